// `perfpred dataset merge` and `perfpred dataset info`.
#include <set>

#include <spdlog/spdlog.h>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {

namespace {

/// Every row parses as its kind (status, numbers, measurements): errors name the file, line and column.
void check_rows(const RawDataset& d) {
  if (d.kind == DatasetKind::kernel)
    kernel_rows(d);
  else
    network_rows(d);
}

/// Unite two sidecars: devices/sources/notes united, scalar facts kept when equal.
void merge_meta(DatasetMeta& into, const DatasetMeta& m, const std::string& shard, nlohmann::json& shards,
                MergeResult& res) {
  for (auto it = m.devices.begin(); it != m.devices.end(); ++it) {
    if (into.devices.contains(it.key()) && into.devices[it.key()] != it.value()) {
      std::string w = shard + ": device '" + it.key() + "' is described differently than in an earlier shard; kept the first";
      res.warnings.push_back(w);
      continue;
    }
    into.devices[it.key()] = it.value();
  }
  for (const auto& s : m.sources) {
    bool have = false;
    for (const auto& t : into.sources) have = have || t == s;
    if (!have) into.sources.push_back(s);
  }
  for (const auto& n : m.notes)
    if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end()) into.notes.push_back(n);
  if (into.licence != m.licence) {
    res.warnings.push_back(shard + ": licence '" + m.licence + "' differs from '" + into.licence +
                           "'; the merged set is marked 'mixed' and will not train a shipped bundle");
    into.licence = "mixed";
  }
  shards.push_back({{"file", shard}, {"environment", m.environment}, {"plan_name", m.plan.is_object() && m.plan.contains("name") ? m.plan["name"] : nlohmann::json()}});
  if (into.environment != m.environment) into.environment = nlohmann::json::object({{"varies", "see shards"}});
  if (into.plan != m.plan) into.plan = nlohmann::json::object({{"varies", "see shards"}});
}

/// Network rows name their ONNX model relative to the dataset's folder (profile writes it so, and
/// learn resolves it so). A shard merged into another folder keeps pointing at the same file: a
/// relative path that resolves from the shard's folder is rewritten relative to the output's folder.
/// Absolute paths, and names that are not files (converted public sets name models, not paths), stay.
void rebase_model_path(std::map<std::string, std::string>& fields, const std::filesystem::path& shard,
                       const std::filesystem::path& out) {
  auto it = fields.find("model");
  if (it == fields.end() || it->second.empty()) return;
  std::filesystem::path model(it->second);
  if (model.is_absolute()) return;
  std::error_code ec;
  auto from = std::filesystem::absolute(shard, ec).parent_path();
  auto to = std::filesystem::absolute(out, ec).parent_path();
  if (ec || from.lexically_normal() == to.lexically_normal()) return;
  auto file = (from / model).lexically_normal();
  if (!std::filesystem::is_regular_file(file, ec)) return;
  auto rel = file.lexically_relative(to.lexically_normal());
  if (!rel.empty()) it->second = rel.generic_string();
}

}  // namespace

MergeResult merge_datasets(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs) {
  if (inputs.empty()) throw InputError("dataset merge: give at least one input file");
  std::error_code ec;
  if (std::filesystem::exists(out, ec))
    throw InputError(out.string() + ": already exists; merge writes a new file (remove it or choose another name)");

  std::vector<RawDataset> sets;
  for (const auto& p : inputs) {
    sets.push_back(read_dataset(p));
    check_rows(sets.back());  // a merge must not carry a row that train or eval would refuse
  }
  MergeResult res;
  res.kind = sets.front().kind;
  std::vector<std::string> header;
  for (const auto& d : sets) {
    if (d.kind != res.kind)
      throw InputError(d.path.string() + ": is a " + to_string(d.kind) + " dataset but " + sets.front().path.string() +
                       " is a " + to_string(res.kind) + " dataset; merge joins one kind");
    for (const auto& c : d.header)
      if (std::find(header.begin(), header.end(), c) == header.end()) header.push_back(c);
    for (const auto& w : d.warnings) res.warnings.push_back(w);
  }

  // Sidecars: all or none of the inputs may have one; a partial set is merged with a warning.
  DatasetMeta meta;
  bool have_meta = false;
  nlohmann::json shards = nlohmann::json::array();
  for (const auto& d : sets) {
    auto sp = sidecar_path(d.path);
    if (!std::filesystem::exists(sp, ec)) {
      res.warnings.push_back(d.path.string() + ": has no sidecar " + sp.filename().string());
      continue;
    }
    DatasetMeta m = read_dataset_meta(sp);
    if (m.kind != res.kind) throw InputError(sp.string() + ": field 'kind' says " + to_string(m.kind) + " but the CSV is " + to_string(res.kind));
    if (!have_meta) {
      meta = m;
      have_meta = true;
      shards.push_back({{"file", d.path.string()}, {"environment", m.environment},
                        {"plan_name", m.plan.is_object() && m.plan.contains("name") ? m.plan["name"] : nlohmann::json()}});
    } else {
      merge_meta(meta, m, d.path.string(), shards, res);
    }
  }

  // Write to a temporary name and rename at the end: a failed merge leaves no half file.
  auto tmp = std::filesystem::path(out.string() + ".partial");
  std::filesystem::remove(tmp, ec);
  {
    // The writer starts a file with the canonical columns; a merge needs the union, so write the
    // header by hand first and let the writer append to it.
    std::string head = "#perfpred " + to_string(res.kind) + "-dataset schema_version=" +
                       std::to_string(k_dataset_schema_version) + "\n" + csv_line(header);
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw InputError(tmp.string() + ": cannot create");
    std::fwrite(head.data(), 1, head.size(), f);
    std::fclose(f);
    DatasetWriter w(tmp, res.kind);
    std::map<std::string, std::map<std::string, std::string>> seen;
    for (const auto& d : sets) {
      for (size_t r = 0; r < d.rows.size(); ++r) {
        ++res.rows_in;
        std::map<std::string, std::string> fields;
        for (size_t c = 0; c < d.header.size(); ++c) fields[d.header[c]] = d.rows[r][c];
        if (res.kind == DatasetKind::network) rebase_model_path(fields, d.path, out);
        const std::string& id = fields["id"];
        if (id.empty())
          throw InputError(d.path.string() + ":" + std::to_string(d.row_lines[r]) + ": column 'id': empty");
        // A row is the same measurement only on the same device: profile ids name the configuration,
        // not the GPU, and shards of one plan on two GPUs share every id.
        const std::string key = fields["gpu_id"] + '\x1f' + id;
        auto it = seen.find(key);
        if (it != seen.end()) {
          ++res.duplicates;
          if (it->second != fields) ++res.conflicting_duplicates;
          continue;
        }
        w.append_named(fields);
        seen.emplace(key, std::move(fields));
        ++res.rows_out;
      }
    }
    w.close();
  }
  if (res.conflicting_duplicates)
    res.warnings.push_back(std::to_string(res.conflicting_duplicates) +
                           " rows shared a GPU and an id with an earlier row but differed; the first was kept");
  std::filesystem::rename(tmp, out, ec);
  if (ec) throw InternalError(out.string() + ": rename failed: " + ec.message());
  if (have_meta) {
    if (shards.size() > 1) meta.extra["merged_from"] = shards;
    meta.created_by = "perfpred dataset merge";
    write_dataset_meta(sidecar_path(out), meta);
  }
  for (const auto& w : res.warnings) spdlog::warn("{}", w);
  return res;
}

DatasetInfo dataset_info(const std::filesystem::path& path) {
  RawDataset d = read_dataset(path);
  check_rows(d);
  DatasetInfo info;
  info.path = path;
  info.kind = d.kind;
  info.schema_version = d.schema_version;
  info.rows = static_cast<int64_t>(d.rows.size());
  info.warnings = d.warnings;
  const char* family_col = d.kind == DatasetKind::kernel ? "op_family" : "model_family";
  for (size_t r = 0; r < d.rows.size(); ++r) {
    auto label = [](const std::string& s) { return s.empty() ? std::string("(empty)") : s; };
    ++info.by_status[label(d.field(r, "status"))];
    ++info.by_gpu[label(d.field(r, "gpu_id"))];
    ++info.by_family[label(d.field(r, family_col))];
    if (d.field(r, "synthetic") == "1") ++info.synthetic_rows;
  }
  std::error_code ec;
  auto sp = sidecar_path(path);
  if (std::filesystem::exists(sp, ec)) {
    DatasetMeta m = read_dataset_meta(sp);
    info.has_sidecar = true;
    info.licence = m.licence;
  }
  return info;
}

nlohmann::json to_json(const DatasetInfo& i) {
  return {{"path", i.path.string()},       {"kind", to_string(i.kind)},
          {"schema_version", i.schema_version}, {"rows", i.rows},
          {"by_status", i.by_status},      {"by_gpu", i.by_gpu},
          {i.kind == DatasetKind::kernel ? "by_op_family" : "by_model_family", i.by_family},
          {"synthetic_rows", i.synthetic_rows}, {"has_sidecar", i.has_sidecar},
          {"licence", i.licence},          {"warnings", i.warnings}};
}

}  // namespace perfpred

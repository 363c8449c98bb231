// The JSON sidecar `<file>.csv.meta.json`.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"

namespace perfpred {

std::filesystem::path sidecar_path(const std::filesystem::path& csv) {
  return std::filesystem::path(csv.string() + ".meta.json");
}

nlohmann::json to_json(const DatasetMeta& m) {
  nlohmann::json j = m.extra.is_object() ? m.extra : nlohmann::json::object();
  j["schema_version"] = m.schema_version;
  j["kind"] = to_string(m.kind);
  j["sources"] = m.sources;
  j["licence"] = m.licence;
  j["created_by"] = m.created_by;
  j["devices"] = m.devices;
  j["environment"] = m.environment;
  j["plan"] = m.plan;
  j["notes"] = m.notes;
  return j;
}

DatasetMeta dataset_meta_from_json(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object()) throw InputError(label + ": a dataset sidecar must be a JSON object");
  DatasetMeta m;
  auto need = [&](const char* key) -> const nlohmann::json& {
    if (!j.contains(key)) throw InputError(label + ": missing field '" + key + "'");
    return j.at(key);
  };
  const auto& v = need("schema_version");
  if (!v.is_number_integer() || v.get<int>() != k_dataset_schema_version)
    throw InputError(label + ": field 'schema_version' must be " + std::to_string(k_dataset_schema_version));
  const auto& kind = need("kind");
  if (!kind.is_string()) throw InputError(label + ": field 'kind' must be \"kernel\" or \"network\"");
  m.kind = dataset_kind_from_string(kind.get<std::string>(), label + ": field 'kind'");
  auto str = [&](const char* key, std::string& out) {
    if (!j.contains(key) || j.at(key).is_null()) return;
    if (!j.at(key).is_string()) throw InputError(label + ": field '" + key + "' must be a string");
    out = j.at(key).get<std::string>();
  };
  str("licence", m.licence);
  str("created_by", m.created_by);
  if (j.contains("sources")) {
    if (!j["sources"].is_array()) throw InputError(label + ": field 'sources' must be an array");
    m.sources = j["sources"];
  }
  if (j.contains("devices") && !j["devices"].is_null()) {
    if (!j["devices"].is_object()) throw InputError(label + ": field 'devices' must be an object (gpu_id -> spec)");
    m.devices = j["devices"];
  }
  if (j.contains("environment") && !j["environment"].is_null()) {
    if (!j["environment"].is_object()) throw InputError(label + ": field 'environment' must be an object");
    m.environment = j["environment"];
  }
  if (j.contains("plan")) m.plan = j["plan"];
  if (j.contains("notes")) {
    if (!j["notes"].is_array()) throw InputError(label + ": field 'notes' must be an array of strings");
    for (const auto& n : j["notes"]) {
      if (!n.is_string()) throw InputError(label + ": field 'notes' must be an array of strings");
      m.notes.push_back(n.get<std::string>());
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    static const char* known[] = {"schema_version", "kind", "sources", "licence", "created_by",
                                  "devices", "environment", "plan", "notes"};
    bool k = false;
    for (const char* n : known) k = k || it.key() == n;
    if (!k) m.extra[it.key()] = it.value();
  }
  return m;
}

DatasetMeta read_dataset_meta(const std::filesystem::path& path) {
  return dataset_meta_from_json(read_json_file(path, "dataset sidecar"), path.string());
}

void write_dataset_meta(const std::filesystem::path& path, const DatasetMeta& m) {
  const std::string text = to_json(m).dump(2) + "\n";
  const std::string tmp = path.string() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(tmp + ": cannot write: " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw InternalError(tmp + ": write failed: " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InternalError(path.string() + ": rename failed: " + ec.message());
}

}  // namespace perfpred

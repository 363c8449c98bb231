#include "perfpred/learn/bundle.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>

#include "perfpred/learn/energy.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/paths.hpp"

namespace perfpred::learn {
namespace {

std::string base64_decode_span(std::string_view in, const std::string& what);

constexpr char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string blob_checksum(const std::string& ubj) {
  Fnv1a64 h;
  h.update(ubj);
  return "fnv1a64:" + h.hex();
}

nlohmann::json blob_to_json(const BoosterBlob& b) {
  return {{"booster_ubj_base64", base64_encode(b.bytes())},
          {"booster_checksum", blob_checksum(b.bytes())},
          {"train_rows", b.train_rows},
          {"train_mean_ape", b.train_mean_ape}};
}

// Base64 bodies load_bundle() lifted out of the file text before parsing the rest: the JSON holds
// "@blob:N" in their place and they are decoded straight from the text, never copied into the JSON, on
// first use (BoosterBlob::bytes) with the file text kept alive by t_lifted_file.
thread_local const std::vector<std::string_view>* t_lifted_blobs = nullptr;
thread_local std::shared_ptr<const std::string> t_lifted_file;

std::string damaged(const std::string& what) {
  return what + ": the booster's bytes do not match its booster_checksum (the file is damaged); "
                "retrain the bundle with `perfpred train` or restore it";
}

BoosterBlob blob_from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object() || !j.contains("booster_ubj_base64") || !j["booster_ubj_base64"].is_string())
    throw InputError(what + ": missing field booster_ubj_base64; retrain the bundle with `perfpred train`");
  BoosterBlob b;
  // XGBoost does not survive every damaged model buffer (a cut one can crash it or make it allocate
  // gigabytes), so the bytes are checked before it sees them.
  if (!j.contains("booster_checksum"))
    throw InputError(what + ": no booster_checksum (written by an older perfpred); retrain the bundle with `perfpred train`");
  if (!j["booster_checksum"].is_string()) throw InputError(damaged(what));
  const auto& checksum = j["booster_checksum"].get_ref<const std::string&>();
  const auto& text = j["booster_ubj_base64"].get_ref<const std::string&>();
  if (t_lifted_blobs && t_lifted_file && text.rfind("@blob:", 0) == 0) {
    const size_t i = std::stoul(text.substr(6));
    if (i < t_lifted_blobs->size()) {
      b.encoded = std::make_shared<const BoosterBlob::Encoded>(
          BoosterBlob::Encoded{t_lifted_file, (*t_lifted_blobs)[i], checksum, what});
    }
  }
  if (!b.encoded) {
    b.ubj = base64_decode_span(text, what + ".booster_ubj_base64");
    if (checksum != blob_checksum(b.ubj)) throw InputError(damaged(what));
  }
  const auto number = [&](const char* key, auto def) {
    if (!j.contains(key)) return def;
    if (!j[key].is_number() || (j[key].is_number_integer() && j[key].get<int64_t>() < 0))
      throw InputError(what + "." + key + ": must be a non-negative number");
    return j[key].get<decltype(def)>();
  };
  b.train_rows = number("train_rows", size_t{0});
  b.train_mean_ape = number("train_mean_ape", 0.0);
  return b;
}

void check_names(const nlohmann::json& j, const char* key, const std::vector<std::string>& expected,
                 const std::string& label) {
  if (!j.contains(key) || !j[key].is_array())
    throw InputError(label + ": missing field " + key + "; retrain the bundle with `perfpred train`");
  std::vector<std::string> got;
  for (const auto& v : j[key]) {
    if (!v.is_string()) throw InputError(label + ": field " + key + " must list strings");
    got.push_back(v.get<std::string>());
  }
  if (got == expected) return;
  std::string detail;
  if (got.size() != expected.size()) {
    detail = std::to_string(got.size()) + " features, this build computes " + std::to_string(expected.size());
  } else {
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != expected[i]) {
        detail = "feature " + std::to_string(i) + " is '" + got[i] + "', this build computes '" + expected[i] + "'";
        break;
      }
  }
  throw InputError(label + ": field " + key + " does not match this perfpred build (" + detail +
                   "); retrain the bundle with this version's `perfpred train`");
}

double finite_number(const nlohmann::json& v, const std::string& what) {
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw InputError(what + ": must be a finite number; retrain the bundle with `perfpred train`");
  return v.get<double>();
}

// kernel_ranges and timer_floors of an efficiency bundle.
// network_target, and for energy corrections their features, ranges and codes.
void read_network_target(const nlohmann::json& j, const std::string& label, Bundle& b) {
  b.network_target = json_string(j, "network_target", "log_ratio", label);
  if (b.network_target == "log_ratio") return;
  if (b.network_target != k_energy_target)
    throw InputError(label + ": field network_target is '" + b.network_target + "'; this perfpred reads \"log_ratio\" or \"" +
                     k_energy_target + "\" (retrain the bundle with `perfpred train`)");
  if (b.target != Target::energy)
    throw InputError(label + ": network_target \"" + b.network_target + "\" needs target energy, not " + to_string(b.target));
  check_names(j, "energy_features", energy_feature_names(), label);
  for (const char* key : {"network_ranges", "network_codes"})
    if (!j.contains(key) || !j[key].is_object())
      throw InputError(label + ": missing object field " + key + "; retrain the bundle with `perfpred train`");
  for (const auto& [name, lohi] : j["network_ranges"].items()) {
    const std::string what = label + ": network_ranges." + name;
    if (!lohi.is_array() || lohi.size() != 2) throw InputError(what + ": must be [lo, hi]");
    b.network_ranges[name] = {finite_number(lohi[0], what), finite_number(lohi[1], what)};
  }
  for (const auto& [name, values] : j["network_codes"].items()) {
    const std::string what = label + ": network_codes." + name;
    if (!values.is_array()) throw InputError(what + ": must be an array of the codes seen");
    auto& seen = b.network_codes[name];
    for (const auto& v : values) seen.push_back(finite_number(v, what));
    std::sort(seen.begin(), seen.end());
  }
}

void read_efficiency_fields(const nlohmann::json& j, const std::string& label, Bundle& b) {
  if (j.contains("kernel_ranges")) {
    if (!j["kernel_ranges"].is_object()) throw InputError(label + ": field kernel_ranges must be an object");
    for (const auto& [fam, r] : j["kernel_ranges"].items()) {
      if (!r.is_object()) throw InputError(label + ": kernel_ranges." + fam + " must be an object");
      for (const auto& [name, lohi] : r.items()) {
        const std::string what = label + ": kernel_ranges." + fam + "." + name;
        if (!lohi.is_array() || lohi.size() != 2) throw InputError(what + ": must be [lo, hi]");
        b.kernel_ranges[fam][name] = {finite_number(lohi[0], what), finite_number(lohi[1], what)};
      }
    }
  }
  if (j.contains("kernel_codes")) {
    if (!j["kernel_codes"].is_object()) throw InputError(label + ": field kernel_codes must be an object");
    for (const auto& [fam, c] : j["kernel_codes"].items()) {
      if (!c.is_object()) throw InputError(label + ": kernel_codes." + fam + " must be an object");
      for (const auto& [name, values] : c.items()) {
        const std::string what = label + ": kernel_codes." + fam + "." + name;
        if (!values.is_array()) throw InputError(what + ": must be an array of the codes seen");
        auto& seen = b.kernel_codes[fam][name];
        for (const auto& v : values) seen.push_back(finite_number(v, what));
        std::sort(seen.begin(), seen.end());
      }
    }
  }
  if (j.contains("kernel_blend")) {
    if (!j["kernel_blend"].is_object()) throw InputError(label + ": field kernel_blend must be an object");
    for (const auto& [fam, v] : j["kernel_blend"].items()) {
      const double w = finite_number(v, label + ": kernel_blend." + fam);
      if (w < 0 || w > 1) throw InputError(label + ": kernel_blend." + fam + ": must be between 0 and 1");
      b.kernel_blend[fam] = w;
    }
  }
  if (j.contains("timer_floors")) {
    if (!j["timer_floors"].is_object()) throw InputError(label + ": field timer_floors must be an object");
    for (const auto& [src, ops] : j["timer_floors"].items()) {
      if (!ops.is_object()) throw InputError(label + ": timer_floors." + src + " must be an object");
      for (const auto& [op, v] : ops.items()) {
        const double s = finite_number(v, label + ": timer_floors." + src + "." + op);
        if (s < 0) throw InputError(label + ": timer_floors." + src + "." + op + ": must not be negative");
        b.timer_floors[src][op] = s;
      }
    }
  }
}

/// A source's or the training's "rows": a count, 0 where absent.
size_t row_count(const nlohmann::json& j, const std::string& where) {
  const int64_t rows = json_int(j, "rows", 0, where);
  if (rows < 0) throw InputError(where + ": field 'rows' must be a count >= 0 (got " + std::to_string(rows) + ")");
  return static_cast<size_t>(rows);
}

std::vector<std::string> strings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& v : j[key])
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

std::string base64_encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out += k_b64[(v >> 18) & 63];
    out += k_b64[(v >> 12) & 63];
    out += k_b64[(v >> 6) & 63];
    out += k_b64[v & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += k_b64[(v >> 18) & 63];
    out += k_b64[(v >> 12) & 63];
    out += i + 1 < in.size() ? k_b64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(const std::string& in, const std::string& what) { return base64_decode_span(in, what); }

const std::string& BoosterBlob::bytes() const {
  if (encoded) {
    std::string decoded = base64_decode_span(encoded->base64, encoded->what + ".booster_ubj_base64");
    if (encoded->checksum != blob_checksum(decoded)) throw InputError(damaged(encoded->what));
    ubj = std::move(decoded);
    encoded.reset();
  }
  return ubj;
}

namespace {
std::string base64_decode_span(std::string_view in, const std::string& what) {
  static const std::array<int, 256> table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(k_b64[i])] = i;
    return t;
  }();
  if (in.size() % 4 != 0) throw InputError(what + ": base64 length is not a multiple of 4 (file truncated?)");
  // Written into a sized buffer, not appended byte by byte: a bundle's boosters are hundreds of KB and
  // appending was a fifth of `perfpred predict`'s instructions with the default bundle.
  std::string out(in.size() / 4 * 3, '\0');
  size_t o = 0;
  const auto* src = reinterpret_cast<const unsigned char*>(in.data());
  size_t i = 0;
  // Every quad but the last has no padding: decode it without the '=' checks.
  for (; i + 4 < in.size(); i += 4) {
    const int a = table[src[i]], b = table[src[i + 1]], c = table[src[i + 2]], d = table[src[i + 3]];
    if ((a | b | c | d) < 0) {
      const size_t bad = a < 0 ? i : b < 0 ? i + 1 : c < 0 ? i + 2 : i + 3;
      throw InputError(what + ": not valid base64 at offset " + std::to_string(bad));
    }
    const unsigned x = (static_cast<unsigned>(a) << 18) | (static_cast<unsigned>(b) << 12) |
                       (static_cast<unsigned>(c) << 6) | static_cast<unsigned>(d);
    out[o] = static_cast<char>((x >> 16) & 255);
    out[o + 1] = static_cast<char>((x >> 8) & 255);
    out[o + 2] = static_cast<char>(x & 255);
    o += 3;
  }
  for (; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const unsigned char c = src[i + k];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        v[k] = 0;
        ++pad;
      } else {
        v[k] = table[c];
        if (v[k] < 0 || pad > 0) throw InputError(what + ": not valid base64 at offset " + std::to_string(i + k));
      }
    }
    const unsigned x = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out[o++] = static_cast<char>((x >> 16) & 255);
    if (pad < 2) out[o++] = static_cast<char>((x >> 8) & 255);
    if (pad < 1) out[o++] = static_cast<char>(x & 255);
  }
  out.resize(o);
  return out;
}
}  // namespace

void Fnv1a64::update(const std::string& s) {
  for (unsigned char c : s) {
    state ^= c;
    state *= 1099511628211ULL;
  }
}

std::string Fnv1a64::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", state);
  return buf;
}

nlohmann::json to_json(const Bundle& b) {
  nlohmann::json j;
  j["schema_version"] = b.schema_version;
  j["kind"] = "perfpred-bundle";
  j["feature_version"] = b.feature_version;
  j["name"] = b.name;
  j["target"] = to_string(b.target);
  j["for_shipping"] = b.for_shipping;
  j["created_by"] = b.created_by;
  j["kernel_features"] = b.kernel_features;
  j["kernel_target"] = b.kernel_target;
  if (b.kernel_target == k_efficiency_target) {
    nlohmann::json ranges = nlohmann::json::object();
    for (const auto& [fam, r] : b.kernel_ranges)
      for (const auto& [name, lohi] : r) ranges[fam][name] = {lohi.first, lohi.second};
    j["kernel_ranges"] = ranges;
    nlohmann::json codes = nlohmann::json::object();
    for (const auto& [fam, c] : b.kernel_codes)
      for (const auto& [name, seen] : c) codes[fam][name] = seen;
    j["kernel_codes"] = codes;
    j["timer_floors"] = b.timer_floors;
    if (!b.kernel_blend.empty()) j["kernel_blend"] = b.kernel_blend;
  }
  j["host_features"] = b.host_features;
  j["network_features"] = b.network_features;
  nlohmann::json km = nlohmann::json::object();
  for (const auto& [fam, blob] : b.kernel_models) km[fam] = blob_to_json(blob);
  j["kernel_models"] = km;
  nlohmann::json hm = nlohmann::json::object();
  for (const auto& [rt, blob] : b.host_models) hm[rt] = blob_to_json(blob);
  j["host_models"] = hm;
  j["network_model"] = b.network_model ? blob_to_json(*b.network_model) : nlohmann::json(nullptr);
  if (b.network_target == k_energy_target) {
    j["network_target"] = b.network_target;
    j["energy_features"] = energy_feature_names();
    nlohmann::json ranges = nlohmann::json::object(), codes = nlohmann::json::object();
    for (const auto& [name, lohi] : b.network_ranges) ranges[name] = {lohi.first, lohi.second};
    for (const auto& [name, seen] : b.network_codes) codes[name] = seen;
    j["network_ranges"] = ranges;
    j["network_codes"] = codes;
  }
  nlohmann::json src = nlohmann::json::array();
  for (const auto& s : b.sources)
    src.push_back({{"name", s.name}, {"file", s.file}, {"licence", s.licence}, {"rows", s.rows}});
  j["training"] = {{"sources", src},
                   {"rows", b.train_rows},
                   {"rows_hash", b.rows_hash},
                   {"holdout_gpus", b.holdout_gpus},
                   {"holdout_families", b.holdout_families},
                   {"params", b.params}};
  j["gpus_seen"] = b.gpus_seen;
  if (!b.policy.empty()) j["policy"] = to_json(b.policy);
  return j;
}

Bundle bundle_from_json(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object()) throw InputError(label + ": not a perfpred bundle (expected a JSON object)");
  if (const auto kind = j.find("kind"); kind == j.end() || *kind != "perfpred-bundle")
    throw InputError(label + ": field kind is not \"perfpred-bundle\"; pass a bundle written by `perfpred train`");
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer())
    throw InputError(label + ": missing field schema_version");
  Bundle b;
  b.schema_version = j["schema_version"].get<int>();
  if (b.schema_version != k_bundle_schema_version)
    throw InputError(label + ": schema_version " + std::to_string(b.schema_version) + " but this perfpred reads " +
                     std::to_string(k_bundle_schema_version) + "; retrain the bundle with this version's `perfpred train`");
  const int64_t feature_version = json_int(j, "feature_version", -1, label);
  if (feature_version < k_oldest_feature_version || feature_version > k_feature_version)
    throw InputError(label + ": feature_version " + std::to_string(feature_version) + " but this perfpred computes " +
                     std::to_string(k_feature_version) + " (and reads back to " + std::to_string(k_oldest_feature_version) +
                     "); retrain the bundle with this version's `perfpred train`");
  b.feature_version = static_cast<int>(feature_version);
  b.kernel_target = json_string(j, "kernel_target", "log_ratio", label);
  if (b.kernel_target != "log_ratio" && b.kernel_target != k_efficiency_target)
    throw InputError(label + ": field kernel_target is '" + b.kernel_target +
                     "'; this perfpred reads \"log_ratio\" or \"efficiency\" (retrain the bundle with `perfpred train`)");
  const bool eff = b.kernel_target == k_efficiency_target;
  check_names(j, "kernel_features", eff ? efficiency_feature_names() : kernel_feature_names(), label);
  b.kernel_features = eff ? efficiency_feature_names() : kernel_feature_names();
  if (eff) read_efficiency_fields(j, label, b);
  check_names(j, "host_features", host_feature_names(), label);
  check_names(j, "network_features", network_feature_names(), label);
  b.name = json_string(j, "name", "", label);
  if (b.name.empty()) throw InputError(label + ": missing field name");
  b.target = target_from_string(json_string(j, "target", "", label), label + ": field target");
  b.for_shipping = json_bool(j, "for_shipping", false, label);
  b.created_by = json_string(j, "created_by", "", label);
  if (j.contains("kernel_models") && j["kernel_models"].is_object())
    for (const auto& [fam, v] : j["kernel_models"].items())
      b.kernel_models[fam] = blob_from_json(v, label + ": kernel_models." + fam);
  if (j.contains("host_models") && j["host_models"].is_object())
    for (const auto& [rt, v] : j["host_models"].items()) {
      runtime_from_string(rt, label + ": host_models key");
      b.host_models[rt] = blob_from_json(v, label + ": host_models." + rt);
    }
  if (j.contains("network_model") && !j["network_model"].is_null())
    b.network_model = blob_from_json(j["network_model"], label + ": network_model");
  read_network_target(j, label, b);
  if (b.kernel_models.empty() && b.host_models.empty() && !b.network_model)
    throw InputError(label + ": the bundle holds no boosters");
  if (j.contains("training") && j["training"].is_object()) {
    const auto& t = j["training"];
    if (t.contains("sources") && t["sources"].is_array())
      for (size_t i = 0; i < t["sources"].size(); ++i) {
        const auto& s = t["sources"][i];
        const std::string where = label + ": training.sources[" + std::to_string(i) + "]";
        if (!s.is_object()) throw InputError(where + ": each source must be an object (name, file, licence, rows)");
        b.sources.push_back({json_string(s, "name", "", where), json_string(s, "file", "", where),
                             json_string(s, "licence", "", where), row_count(s, where)});
      }
    b.train_rows = row_count(t, label + ": training");
    b.rows_hash = json_string(t, "rows_hash", "", label + ": training");
    b.holdout_gpus = strings(t, "holdout_gpus");
    b.holdout_families = strings(t, "holdout_families");
    if (t.contains("params")) b.params = t["params"];
  }
  b.gpus_seen = strings(j, "gpus_seen");
  if (j.contains("policy")) b.policy = policy_from_json(j["policy"], label);
  return b;
}

void save_bundle(const Bundle& b, const std::filesystem::path& path) {
  const auto tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path.string() + ": cannot write the bundle (does the directory exist?)");
    out << dump_json(to_json(b), 1) << "\n";
    if (!out) throw InputError(path.string() + ": writing the bundle failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path.string() + ": cannot rename the bundle into place: " + ec.message());
}

Bundle load_bundle(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path.string() + ": is a directory; give a bundle file written by `perfpred train`");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path.string() + ": cannot open the bundle (give a bundle written by `perfpred train`)");
  const std::streamoff size = in.tellg();
  auto file = std::make_shared<std::string>(size > 0 ? static_cast<size_t>(size) : 0, '\0');
  std::string& text = *file;
  in.seekg(0);
  if (size > 0 && !in.read(text.data(), size))
    throw InputError(path.string() + ": cannot read the bundle");
  // Fast path: the boosters are long base64 strings that a JSON parser would walk byte by byte and copy.
  // Lift them out with a plain scan (base64 has no quotes or escapes), parse the small remainder, and
  // decode each booster straight from the file text (blob_from_json).
  static const std::string key = "\"booster_ubj_base64\":";
  std::vector<std::string_view> blobs;
  std::string small;
  small.reserve(16384);
  size_t pos = 0;
  while (true) {
    const size_t k = text.find(key, pos);
    if (k == std::string::npos) break;
    size_t q = text.find('"', k + key.size());
    if (q == std::string::npos) break;
    const size_t end = text.find('"', q + 1);
    if (end == std::string::npos) break;
    small.append(text, pos, q - pos);
    small += "\"@blob:" + std::to_string(blobs.size()) + "\"";
    blobs.emplace_back(text.data() + q + 1, end - q - 1);
    pos = end + 1;
  }
  small.append(text, pos, std::string::npos);
  std::istringstream small_in(small);
  const nlohmann::json j = parse_json(small_in, path.string() + " (pass a bundle written by `perfpred train`)");
  struct Lifted {
    Lifted(const std::vector<std::string_view>* b, std::shared_ptr<const std::string> f) {
      t_lifted_blobs = b;
      t_lifted_file = std::move(f);
    }
    ~Lifted() {
      t_lifted_blobs = nullptr;
      t_lifted_file.reset();
    }
  } lifted(&blobs, file);
  return bundle_from_json(j, path.string());
}

void decode_boosters(const Bundle& b) {
  for (const auto& [fam, blob] : b.kernel_models) blob.bytes();
  for (const auto& [rt, blob] : b.host_models) blob.bytes();
  if (b.network_model) b.network_model->bytes();
}

std::optional<std::filesystem::path> default_bundle_path() {
  auto p = model_dir() / "perfpred-default.json";
  std::error_code ec;
  if (std::filesystem::is_regular_file(p, ec)) return p;
  return std::nullopt;
}

std::filesystem::path bundle_argument(const std::string& arg) {
  if (arg != "default") return arg;
  if (auto p = default_bundle_path()) return *p;
  throw InputError("the shipped bundle " + (model_dir() / "perfpred-default.json").string() +
                   " is not there (set PERFPRED_MODEL_DIR to the folder holding it, or give a bundle's path)");
}

}  // namespace perfpred::learn

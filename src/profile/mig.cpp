// MIG instance detection and catalog keying (see mig.hpp).
#include "perfpred/profile/mig.hpp"

#include "perfpred/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"

namespace perfpred::mig {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

/// "MIG 3g.20gb" -> "3g.20gb"; "3g.20gb" stays.
std::string bare_profile(const std::string& name) {
  std::string s = trim(name);
  if (s.rfind("MIG ", 0) == 0) s = trim(s.substr(4));
  return s;
}

/// CUDA_VISIBLE_DEVICES entries that name MIG devices ("MIG-<uuid>", or the older
/// "MIG-GPU-<uuid>/<gi>/<ci>").
std::vector<std::string> visible_mig_ids(const std::string& env) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= env.size()) {
    size_t comma = env.find(',', start);
    std::string item = trim(env.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.rfind("MIG-", 0) == 0) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void fill_from_answer(MigInstance& m, const MigDeviceAnswer& a) {
  m.in_mig = true;
  m.uuid = a.uuid;
  if (m.profile.empty()) m.profile = bare_profile(a.profile_name);
  if (a.sm_count > 0 && m.sm_count == 0) m.sm_count = a.sm_count;
  if (a.memory_mb > 0 && m.memory_bytes == 0) m.memory_bytes = a.memory_mb * 1024 * 1024;
}

template <class T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw InputError("recorded NVML answers: " + where + " lacks \"" + key + "\"");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError("recorded NVML answers: " + where + " field \"" + key + "\" has the wrong type");
  }
}

}  // namespace

RecordedMigQuery::RecordedMigQuery(const nlohmann::json& j) {
  if (!j.is_object()) throw InputError("recorded NVML answers: expected a JSON object");
  if (j.contains("mig_mode") && !j["mig_mode"].is_null()) m_mode = field<bool>(j, "mig_mode", "the root");
  m_name = json_string(j, "name", "", "recorded NVML answers");
  if (j.contains("memory_bytes")) m_memory = field<int64_t>(j, "memory_bytes", "the root");
  if (j.contains("mig_devices")) {
    int k = 0;
    for (const auto& d : j["mig_devices"]) {
      std::string where = "mig_devices[" + std::to_string(k++) + "]";
      MigDeviceAnswer a;
      a.uuid = field<std::string>(d, "uuid", where);
      a.profile_name = field<std::string>(d, "profile_name", where);
      a.sm_count = field<int>(d, "sm_count", where);
      a.memory_mb = field<int64_t>(d, "memory_mb", where);
      a.gpu_instance_id = static_cast<int>(json_int(d, "gpu_instance_id", -1, "recorded NVML answers: " + where));
      a.compute_instance_id = static_cast<int>(json_int(d, "compute_instance_id", -1, "recorded NVML answers: " + where));
      a.gi_profile_id = static_cast<int>(json_int(d, "gi_profile_id", -1, "recorded NVML answers: " + where));
      m_devices.push_back(a);
    }
  }
}

MigInstance detect_mig(const MigQuery* nvml, const CudaView& cuda) {
  MigInstance m;
  // CUDA's own view: "<parent> MIG <profile>".
  std::string cuda_profile, cuda_parent;
  if (auto pos = cuda.device_name.find(" MIG "); pos != std::string::npos) {
    cuda_parent = trim(cuda.device_name.substr(0, pos));
    cuda_profile = trim(cuda.device_name.substr(pos + 5));
  }
  std::vector<MigDeviceAnswer> answers;
  std::optional<bool> mode;
  if (nvml) {
    mode = nvml->mig_mode();
    answers = nvml->mig_devices();
    m.parent_name = nvml->parent_name();
  }
  auto ids = visible_mig_ids(cuda.cuda_visible_devices);
  if (!ids.empty()) {
    m.in_mig = true;
    m.how = "CUDA_VISIBLE_DEVICES";
    // CUDA enumerates the listed MIG devices in order; the harness uses the first it sees as device 0.
    m.uuid = ids.front();
    for (const auto& a : answers)
      if (a.uuid == ids.front()) fill_from_answer(m, a);
    if (ids.size() > 1)
      m.notes.push_back("CUDA_VISIBLE_DEVICES lists " + std::to_string(ids.size()) +
                        " MIG devices; CUDA uses only the first in one process");
  } else if (mode.value_or(false) && answers.size() == 1) {
    m.how = "nvml";
    fill_from_answer(m, answers.front());
  } else if (mode.value_or(false) && answers.size() > 1 && !cuda_profile.empty()) {
    m.how = "nvml";
    m.in_mig = true;
    std::vector<const MigDeviceAnswer*> same;
    for (const auto& a : answers)
      if (bare_profile(a.profile_name) == cuda_profile) same.push_back(&a);
    if (same.size() == 1) fill_from_answer(m, *same.front());
    m.notes.push_back(std::to_string(answers.size()) + " MIG instances are visible; the profile is CUDA's (" +
                      cuda_profile + ")");
  }
  if (!cuda_profile.empty()) {
    if (!m.in_mig) m.how = "cuda-device-name";
    m.in_mig = true;
    if (m.profile.empty()) m.profile = cuda_profile;
    if (m.parent_name.empty()) m.parent_name = cuda_parent;
  } else if (mode.value_or(false) && !m.in_mig) {
    m.notes.push_back("MIG mode is enabled on the GPU but CUDA's device is not a MIG instance");
  }
  if (!m.in_mig) return m;
  if (m.parent_name.empty()) m.parent_name = cuda_parent;
  // CUDA's SM count and memory are the instance's own and win over the profile table's.
  if (cuda.sm_count > 0) m.sm_count = cuda.sm_count;
  if (cuda.memory_bytes > 0) m.memory_bytes = cuda.memory_bytes;
  static const std::regex ci_re("([0-9]+)c\\.(.+)");
  std::smatch sm;
  if (std::regex_match(m.profile, sm, ci_re)) {
    m.gpu_instance_profile = sm[2].str();
    m.notes.push_back("compute instance " + sm[1].str() + "c of GPU instance " + m.gpu_instance_profile +
                      ": SMs are the compute instance's, memory and L2 are shared by the GPU instance");
  } else {
    m.gpu_instance_profile = m.profile;
  }
  if (m.profile.empty()) m.notes.push_back("MIG instance detected but its profile is unknown");
  return m;
}

std::string catalog_slice_id(MigInstance& m, const GpuCatalog& catalog, std::optional<int64_t> parent_memory_bytes) {
  m.catalog_id.clear();
  if (!m.in_mig || m.gpu_instance_profile.empty()) return "";
  if (m.gpu_instance_profile != m.profile) {
    m.notes.push_back("the catalog has GPU-instance slices only: the compute instance " + m.profile +
                      " is recorded by its spec");
    return "";
  }
  auto have = alnum_tokens(m.parent_name);
  const GpuSpec* best = nullptr;
  int best_score = -1;
  bool tie = false;
  for (const auto& g : catalog.devices()) {
    auto want = alnum_tokens(g.name);
    int hits = 0;
    bool model_hit = false;
    for (const auto& t : want) {
      bool hit = std::find(have.begin(), have.end(), t) != have.end();
      hits += hit;
      // The model token (a100, h100, a30 ...) is the first token holding a digit.
      if (!model_hit && std::any_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        if (!hit) break;
        model_hit = true;
      }
    }
    if (!model_hit) continue;
    if (parent_memory_bytes && *parent_memory_bytes > 0 &&
        std::fabs(g.memory_bytes() - static_cast<double>(*parent_memory_bytes)) > 0.12 * g.memory_bytes())
      continue;
    bool has_slice = false;
    for (const auto& s : catalog.mig_slices(g.id)) has_slice = has_slice || s.mig_profile == m.gpu_instance_profile;
    if (!has_slice) continue;
    int score = hits * 100 - static_cast<int>(want.size() - hits);
    if (score > best_score) {
      best = &g;
      best_score = score;
      tie = false;
    } else if (score == best_score) {
      tie = true;
    }
  }
  if (!best) {
    m.notes.push_back("no catalog GPU named like '" + m.parent_name + "' has a MIG profile " + m.gpu_instance_profile +
                      ": recorded by its spec");
    return "";
  }
  if (tie) {
    m.notes.push_back("several catalog GPUs match '" + m.parent_name + "' with profile " + m.gpu_instance_profile +
                      ": recorded by its spec (pass --gpu ID:PROFILE to choose)");
    return "";
  }
  m.catalog_id = best->id + ":" + m.gpu_instance_profile;
  return m.catalog_id;
}

nlohmann::json mig_metadata(const MigInstance& m, std::optional<double> whole_gpu_power_w,
                            std::optional<double> whole_gpu_energy_mj) {
  nlohmann::json j = {{"in_mig", m.in_mig}};
  if (!m.in_mig) return j;
  j["profile"] = m.profile;
  j["gpu_instance_profile"] = m.gpu_instance_profile;
  j["uuid"] = m.uuid;
  j["sm_count"] = m.sm_count;
  j["memory_bytes"] = m.memory_bytes;
  j["parent_name"] = m.parent_name;
  j["detected_by"] = m.how;
  j["catalog_id"] = m.catalog_id;
  j["notes"] = m.notes;
  nlohmann::json whole = {{"caveat",
                           "NVML power and energy describe the whole GPU (every MIG instance and idle slices), "
                           "not this instance; they are never attributed to the instance's rows"}};
  if (whole_gpu_power_w) whole["power_w"] = *whole_gpu_power_w;
  if (whole_gpu_energy_mj) whole["energy_mj"] = *whole_gpu_energy_mj;
  j["whole_gpu_nvml"] = whole;
  return j;
}

}  // namespace perfpred::mig

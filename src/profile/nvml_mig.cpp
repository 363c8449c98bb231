// NVML's MIG answers through dlopen (see nvml_mig.hpp). There is no nvml.h on the build machines:
// the few types, constants and prototypes are declared here from the NVML API reference.
#include "perfpred/profile/nvml_mig.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "perfpred/hw/catalog.hpp"

namespace perfpred::mig {

namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t k_success = 0;
constexpr nvmlReturn_t k_not_found = 6;            // NVML_ERROR_NOT_FOUND
constexpr unsigned k_name_buffer = 96;             // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned k_uuid_buffer = 96;             // NVML_DEVICE_UUID_V2_BUFFER_SIZE

struct NvmlMemory {                                 // nvmlMemory_t (v1)
  unsigned long long total, free, used;
};

struct NvmlDeviceAttributes {                       // nvmlDeviceAttributes_t (nvmlDeviceGetAttributes_v2)
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
  unsigned int gpuInstanceSliceCount;
  unsigned int computeInstanceSliceCount;
  unsigned long long memorySizeMB;
};
static_assert(sizeof(NvmlDeviceAttributes) == 40, "nvmlDeviceAttributes_t is 8 unsigned ints and one unsigned long long");

/// The loaded library; nvmlShutdown and dlclose on destruction.
class Library {
 public:
  explicit Library(const std::string& path) { m_handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL); }
  ~Library() {
    if (m_initialised && m_shutdown) m_shutdown();
    if (m_handle) ::dlclose(m_handle);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  void* handle() const { return m_handle; }
  /// The symbol, or the fallback name, or nullptr.
  template <class Fn>
  Fn sym(const char* name, const char* fallback = nullptr) const {
    void* p = ::dlsym(m_handle, name);
    if (!p && fallback) p = ::dlsym(m_handle, fallback);
    return reinterpret_cast<Fn>(p);
  }
  void initialised(nvmlReturn_t (*shutdown)()) {
    m_initialised = true;
    m_shutdown = shutdown;
  }

 private:
  void* m_handle = nullptr;
  bool m_initialised = false;
  nvmlReturn_t (*m_shutdown)() = nullptr;
};

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

}  // namespace

std::string nvml_library_path(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (const char* env = std::getenv(k_nvml_library_env); env && *env) return env;
  return k_nvml_default_library;
}

std::string first_visible_mig_uuid(const std::string& env) {
  size_t start = 0;
  while (start <= env.size()) {
    size_t comma = env.find(',', start);
    std::string item = trim(env.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.rfind("MIG-", 0) == 0) return item;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return "";
}

std::string profile_from_attributes(unsigned gi, unsigned ci, uint64_t memory_mb, uint64_t parent_bytes) {
  if (gi == 0 || ci == 0 || memory_mb == 0 || parent_bytes == 0) return "";
  constexpr double k_mib = 1024.0 * 1024.0;
  constexpr uint64_t k_gib = uint64_t{1} << 30;
  double fraction = static_cast<double>(memory_mb) * k_mib / static_cast<double>(parent_bytes);
  fraction = std::ceil(fraction * 8.0) / 8.0;
  double parent_gb = static_cast<double>((parent_bytes + k_gib - 1) / k_gib);
  auto gb = static_cast<long long>(std::llround(fraction * parent_gb));
  std::string g = std::to_string(gi) + "g." + std::to_string(gb) + "gb";
  return ci == gi ? g : std::to_string(ci) + "c." + g;
}

NvmlMigReading read_nvml_mig(const std::string& library, const std::string& pci_bus_id, const std::string& mig_uuid) {
  NvmlMigReading out;
  out.library = library;
  Library lib(library);
  if (!lib.handle()) {
    const char* e = ::dlerror();
    out.why = "cannot load " + library + (e ? std::string(": ") + e : std::string());
    return out;
  }
  using VoidFn = nvmlReturn_t (*)();
  auto init = lib.sym<VoidFn>("nvmlInit_v2", "nvmlInit");
  auto shutdown = lib.sym<VoidFn>("nvmlShutdown");
  auto error_string = lib.sym<const char* (*)(nvmlReturn_t)>("nvmlErrorString");
  if (!init || !shutdown) {
    out.why = library + " lacks nvmlInit/nvmlShutdown: not an NVML library";
    return out;
  }
  auto err = [&](nvmlReturn_t r) {
    const char* s = error_string ? error_string(r) : nullptr;
    return s ? std::string(s) : "NVML error " + std::to_string(r);
  };
  if (nvmlReturn_t r = init(); r != k_success) {
    out.why = "nvmlInit failed: " + err(r);
    return out;
  }
  lib.initialised(shutdown);
  out.loaded = true;

  // Every other entry point is optional: absent on an old driver means "unknown", recorded once.
  auto unknown = [&](const std::string& question, const std::string& why) { out.unknown.push_back(question + ": " + why); };
  auto absent = [&](const char* fn) { unknown(fn, "symbol absent (driver too old)"); };
  auto by_index = lib.sym<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  auto by_pci = lib.sym<nvmlReturn_t (*)(const char*, nvmlDevice_t*)>("nvmlDeviceGetHandleByPciBusId_v2",
                                                                       "nvmlDeviceGetHandleByPciBusId");
  auto by_uuid = lib.sym<nvmlReturn_t (*)(const char*, nvmlDevice_t*)>("nvmlDeviceGetHandleByUUID");
  auto get_name = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetName");
  auto get_uuid = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetUUID");
  auto get_memory = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, NvmlMemory*)>("nvmlDeviceGetMemoryInfo");
  auto get_power = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>("nvmlDeviceGetPowerUsage");
  auto mig_mode = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*)>("nvmlDeviceGetMigMode");
  auto is_mig = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>("nvmlDeviceIsMigDeviceHandle");
  auto max_mig = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>("nvmlDeviceGetMaxMigDeviceCount");
  auto mig_by_index = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned, nvmlDevice_t*)>("nvmlDeviceGetMigDeviceHandleByIndex");
  auto parent_of = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t*)>("nvmlDeviceGetDeviceHandleFromMigDeviceHandle");
  auto gi_id = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>("nvmlDeviceGetGpuInstanceId");
  auto ci_id = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>("nvmlDeviceGetComputeInstanceId");
  // nvmlDeviceGetAttributes_v2 fills the whole struct; the v1 entry point (CUDA 11.0 drivers) stops
  // after the shared engine counts, so only the SM count is read from it.
  auto attributes_v2 = lib.sym<nvmlReturn_t (*)(nvmlDevice_t, NvmlDeviceAttributes*)>("nvmlDeviceGetAttributes_v2");
  auto attributes_v1 = attributes_v2 ? nullptr : lib.sym<nvmlReturn_t (*)(nvmlDevice_t, NvmlDeviceAttributes*)>("nvmlDeviceGetAttributes");

  // The physical GPU: the parent of CUDA's MIG device when NVML knows its UUID, else CUDA's PCI bus id.
  nvmlDevice_t parent = nullptr, selected_mig = nullptr;
  if (!mig_uuid.empty()) {
    nvmlDevice_t h = nullptr;
    if (!by_uuid) {
      absent("nvmlDeviceGetHandleByUUID");
    } else if (nvmlReturn_t r = by_uuid(mig_uuid.c_str(), &h); r != k_success) {
      unknown("nvmlDeviceGetHandleByUUID(" + mig_uuid + ")", err(r));
    } else {
      unsigned mig = 0;
      if (!is_mig) {
        absent("nvmlDeviceIsMigDeviceHandle");
      } else if (nvmlReturn_t r2 = is_mig(h, &mig); r2 != k_success) {
        unknown("nvmlDeviceIsMigDeviceHandle", err(r2));
      } else if (mig == 0) {
        parent = h;  // the UUID names a whole GPU
      } else if (!parent_of) {
        absent("nvmlDeviceGetDeviceHandleFromMigDeviceHandle");
        selected_mig = h;
      } else if (nvmlReturn_t r3 = parent_of(h, &parent); r3 != k_success) {
        unknown("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", err(r3));
        parent = nullptr;
        selected_mig = h;
      } else {
        selected_mig = h;
      }
      if (parent) out.answers["selected_by"] = "mig-uuid";
    }
  }
  if (!parent && !pci_bus_id.empty() && by_pci) {
    if (nvmlReturn_t r = by_pci(pci_bus_id.c_str(), &parent); r == k_success)
      out.answers["selected_by"] = "pci-bus-id";
    else {
      unknown("nvmlDeviceGetHandleByPciBusId(" + pci_bus_id + ")", err(r));
      parent = nullptr;
    }
  }
  if (!parent && by_index) {
    if (by_index(0, &parent) == k_success)
      out.answers["selected_by"] = "index-0";
    else
      parent = nullptr;
  }

  auto name_of = [&](nvmlDevice_t d) -> std::optional<std::string> {
    char buf[k_name_buffer] = {0};
    if (!get_name || get_name(d, buf, sizeof buf) != k_success) return std::nullopt;
    return std::string(buf);
  };
  auto attributes_of = [&](nvmlDevice_t d, const std::string& who) -> std::optional<NvmlDeviceAttributes> {
    NvmlDeviceAttributes a{};
    auto fn = attributes_v2 ? attributes_v2 : attributes_v1;
    if (!fn) {
      unknown(who + " attributes", "nvmlDeviceGetAttributes_v2 absent (driver too old)");
      return std::nullopt;
    }
    if (nvmlReturn_t r = fn(d, &a); r != k_success) {
      unknown(who + " attributes", err(r));
      return std::nullopt;
    }
    if (!attributes_v2) {
      a.gpuInstanceSliceCount = a.computeInstanceSliceCount = 0;
      a.memorySizeMB = 0;
      unknown(who + " slice counts and memory", "only nvmlDeviceGetAttributes (v1) is present");
    }
    return a;
  };

  std::optional<uint64_t> parent_bytes;
  if (parent) {
    if (auto n = name_of(parent)) out.answers["name"] = *n;
    else unknown("GPU name", get_name ? "nvmlDeviceGetName failed" : "nvmlDeviceGetName absent");
    NvmlMemory mem{};
    if (!get_memory) {
      absent("nvmlDeviceGetMemoryInfo");
    } else if (nvmlReturn_t r = get_memory(parent, &mem); r != k_success) {
      // In MIG mode the whole GPU's memory info needs privileges; its attributes carry the size too.
      unknown("nvmlDeviceGetMemoryInfo", err(r));
    } else {
      parent_bytes = mem.total;
      out.answers["memory_bytes"] = static_cast<int64_t>(mem.total);
    }
    if (!parent_bytes && attributes_v2) {
      NvmlDeviceAttributes a{};
      if (attributes_v2(parent, &a) == k_success && a.memorySizeMB > 0) {
        parent_bytes = a.memorySizeMB * 1024ull * 1024ull;
        out.answers["memory_bytes"] = static_cast<int64_t>(*parent_bytes);
        out.answers["memory_from"] = "nvmlDeviceGetAttributes_v2";
      }
    }
    unsigned mw = 0;
    if (get_power && get_power(parent, &mw) == k_success) out.whole_gpu_power_w = mw / 1000.0;
    unsigned current = 0, pending = 0;
    if (!mig_mode) {
      absent("nvmlDeviceGetMigMode");
      out.answers["mig_mode"] = nullptr;
    } else if (nvmlReturn_t r = mig_mode(parent, &current, &pending); r != k_success) {
      unknown("nvmlDeviceGetMigMode", err(r) + " (a GPU without MIG answers Not Supported)");
      out.answers["mig_mode"] = nullptr;
    } else {
      out.answers["mig_mode"] = current == 1;
      out.answers["pending_mig_mode"] = pending == 1;
    }
  } else {
    unknown("physical GPU", "NVML has no device for PCI bus id '" + pci_bus_id + "' and none at index 0");
    out.answers["mig_mode"] = nullptr;
  }

  auto describe = [&](nvmlDevice_t h, const std::string& who) -> nlohmann::json {
    nlohmann::json d;
    char uuid[k_uuid_buffer] = {0};
    if (get_uuid && get_uuid(h, uuid, sizeof uuid) == k_success) d["uuid"] = std::string(uuid);
    else {
      d["uuid"] = "";
      unknown(who + " UUID", get_uuid ? "nvmlDeviceGetUUID failed" : "nvmlDeviceGetUUID absent");
    }
    unsigned v = 0;
    if (gi_id && gi_id(h, &v) == k_success) d["gpu_instance_id"] = v;
    else if (!gi_id) absent("nvmlDeviceGetGpuInstanceId");
    if (ci_id && ci_id(h, &v) == k_success) d["compute_instance_id"] = v;
    else if (!ci_id) absent("nvmlDeviceGetComputeInstanceId");
    std::string name = name_of(h).value_or("");
    d["name"] = name;
    auto a = attributes_of(h, who);
    d["sm_count"] = a ? static_cast<int>(a->multiprocessorCount) : 0;
    d["memory_mb"] = a ? static_cast<int64_t>(a->memorySizeMB) : int64_t{0};
    if (a) {
      d["gpu_instance_slice_count"] = a->gpuInstanceSliceCount;
      d["compute_instance_slice_count"] = a->computeInstanceSliceCount;
    }
    // The driver names a MIG device "<GPU> MIG <profile>"; when it does not, the profile is built
    // from the slice counts and memory as NVIDIA's tools do.
    std::string profile;
    if (auto pos = name.find(" MIG "); pos != std::string::npos) profile = trim(name.substr(pos + 5));
    else if (name.rfind("MIG ", 0) == 0) profile = trim(name.substr(4));
    std::string derived = a && parent_bytes ? profile_from_attributes(a->gpuInstanceSliceCount, a->computeInstanceSliceCount,
                                                                      a->memorySizeMB, *parent_bytes)
                                            : "";
    if (profile.empty()) profile = derived;
    else if (!derived.empty() && derived != profile)
      unknown(who + " profile", "the name says " + profile + ", the attributes " + derived + "; the name is kept");
    d["profile_name"] = profile;
    return d;
  };

  nlohmann::json devices = nlohmann::json::array();
  if (parent && out.answers["mig_mode"] == true) {
    unsigned count = 0;
    if (!max_mig) absent("nvmlDeviceGetMaxMigDeviceCount");
    else if (nvmlReturn_t r = max_mig(parent, &count); r != k_success) unknown("nvmlDeviceGetMaxMigDeviceCount", err(r));
    if (count > 0 && !mig_by_index) absent("nvmlDeviceGetMigDeviceHandleByIndex");
    for (unsigned i = 0; i < count && mig_by_index; ++i) {
      nvmlDevice_t h = nullptr;
      nvmlReturn_t r = mig_by_index(parent, i, &h);
      if (r == k_not_found) continue;  // an empty slot
      if (r != k_success) {
        unknown("MIG device " + std::to_string(i), err(r));
        continue;
      }
      devices.push_back(describe(h, "MIG device " + std::to_string(i)));
    }
  }
  if (selected_mig) {
    // CUDA's own instance, also when enumeration from the parent could not see it.
    nlohmann::json d = describe(selected_mig, "MIG device " + mig_uuid);
    bool listed = false;
    for (const auto& e : devices) listed = listed || e["uuid"] == d["uuid"];
    if (!listed) devices.push_back(d);
    if (!parent) out.answers["selected_by"] = "mig-uuid";
  }
  out.answers["mig_devices"] = devices;
  return out;
}

MigDescription describe_mig(const NvmlMigReading* nvml, const CudaView& cuda, const GpuCatalog* catalog) {
  MigDescription out;
  std::optional<RecordedMigQuery> query;
  std::string bad_answers;
  if (nvml && nvml->loaded) {
    try {
      query.emplace(nvml->answers);
    } catch (const std::exception& e) {
      bad_answers = e.what();
    }
  }
  out.instance = detect_mig(query ? &*query : nullptr, cuda);
  if (!bad_answers.empty()) out.instance.notes.push_back("NVML's answers were not usable: " + bad_answers);
  if (out.instance.in_mig && catalog)
    catalog_slice_id(out.instance, *catalog, query ? query->parent_memory_bytes() : std::nullopt);
  out.metadata = mig_metadata(out.instance, nvml ? nvml->whole_gpu_power_w : std::nullopt);
  if (!out.instance.in_mig && !out.instance.notes.empty()) out.metadata["notes"] = out.instance.notes;
  if (nvml) {
    out.metadata["nvml"] = {{"library", nvml->library},
                            {"loaded", nvml->loaded},
                            {"answers", nvml->answers},
                            {"unknown", nvml->unknown}};
    if (!nvml->loaded) out.metadata["nvml"]["why"] = nvml->why;
  }
  return out;
}

}  // namespace perfpred::mig

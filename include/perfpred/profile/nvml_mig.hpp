#pragma once
/// The real MigQuery: NVML's MIG answers, read through dlopen. NVML is a plain C library and needs
/// no CUDA header or library, so this lives in src/profile (CUDA-free) and is tested against a fake
/// libnvidia-ml built only for the tests (tests/unit/profile/fake_nvml/). The answers are kept in
/// RecordedMigQuery's JSON form: the sidecar stores exactly what NVML said, and detect_mig() runs
/// the same code on a GPU and in the tests.
///
/// Every NVML entry point is optional. A symbol an old driver lacks, or a call it refuses, is
/// recorded in `unknown` and the question stays unanswered; it never fails the run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/profile/mig.hpp"

namespace perfpred {
class GpuCatalog;
}

namespace perfpred::mig {

/// Environment variable naming the NVML library to load (a fake one in tests, an unusual install).
inline constexpr const char* k_nvml_library_env = "PERFPRED_NVML_LIBRARY";
inline constexpr const char* k_nvml_default_library = "libnvidia-ml.so.1";

/// The NVML library to load: `explicit_path` when not empty, else $PERFPRED_NVML_LIBRARY when set,
/// else libnvidia-ml.so.1.
std::string nvml_library_path(const std::string& explicit_path = "");

/// The first MIG device named in CUDA_VISIBLE_DEVICES ("MIG-<uuid>"), "" when there is none.
std::string first_visible_mig_uuid(const std::string& cuda_visible_devices);

/// What NVML said about the physical GPU CUDA runs on.
struct NvmlMigReading {
  bool loaded = false;                  ///< the library loaded and nvmlInit succeeded
  std::string library;                  ///< what was loaded
  std::string why;                      ///< why NVML could not be used (loaded == false)
  /// RecordedMigQuery's format ("mig_mode" null when unknown, "name", "memory_bytes", "mig_devices"),
  /// plus "pending_mig_mode", "selected_by" ("mig-uuid", "pci-bus-id", "index-0") and, per device,
  /// "name", "gpu_instance_slice_count", "compute_instance_slice_count".
  nlohmann::json answers = nlohmann::json::object();
  std::vector<std::string> unknown;     ///< questions NVML left unanswered, each with the reason
  std::optional<double> whole_gpu_power_w;  ///< nvmlDeviceGetPowerUsage of the physical GPU
};

/// Load NVML from `library`, pick the physical GPU (the parent of `mig_uuid` when NVML knows that
/// MIG device, else the GPU at CUDA's `pci_bus_id`, else index 0), and read its name, memory, MIG
/// mode and every MIG device on it (UUID, GPU/compute instance ids, SM count, slice counts, memory,
/// profile). Unloads NVML before returning. Never throws.
NvmlMigReading read_nvml_mig(const std::string& library, const std::string& pci_bus_id,
                             const std::string& mig_uuid = "");

/// A MIG profile name from nvmlDeviceAttributes_t the way NVIDIA's tools write it: "3g.20gb", or
/// "1c.3g.20gb" for a compute instance smaller than its GPU instance. The memory is the instance's
/// share of the whole GPU rounded up to eighths, times the GPU's memory in GB. "" when a count is 0.
std::string profile_from_attributes(unsigned gpu_instance_slices, unsigned compute_instance_slices,
                                    uint64_t memory_mb, uint64_t parent_memory_bytes);

/// MIG detection as the harness does it: NVML's answers (when loaded) and CUDA's view through
/// detect_mig(), the catalog slice id (when a catalog is given), and the sidecar object:
/// mig_metadata() with the whole-GPU power kept under its caveat, plus "nvml" (library, loaded, why,
/// answers, unknown).
struct MigDescription {
  MigInstance instance;
  nlohmann::json metadata;
};
MigDescription describe_mig(const NvmlMigReading* nvml, const CudaView& cuda, const GpuCatalog* catalog);

}  // namespace perfpred::mig

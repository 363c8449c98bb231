#pragma once
/// MIG: is this process inside a MIG instance, which profile, and which catalog slice is it
/// (`a100-sxm4-40gb:3g.20gb`)? NVML is reached through MigQuery, a seam the CUDA harness implements
/// with the real library and tests implement with recorded answers. Plain C++, no CUDA.
///
/// NVML's power and energy describe the whole GPU, whatever instance asks: mig_metadata() records
/// them with that caveat, and a slice's rows never carry them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfpred {
class GpuCatalog;
}

namespace perfpred::mig {

/// One MIG device as NVML reports it (nvmlDeviceGetMigDeviceHandleByIndex, nvmlDeviceGetUUID,
/// nvmlDeviceGetGpuInstanceId / ComputeInstanceId, nvmlGpuInstanceProfileInfo_v2).
struct MigDeviceAnswer {
  std::string uuid;            ///< "MIG-<uuid>"
  int gpu_instance_id = -1;
  int compute_instance_id = -1;
  std::string profile_name;    ///< profile info name, "MIG 3g.20gb" (or "3g.20gb")
  int gi_profile_id = -1;
  int sm_count = 0;            ///< multiprocessorCount of the instance
  int64_t memory_mb = 0;       ///< memorySizeMB
};

/// The NVML questions MIG detection asks, for the device CUDA runs on.
class MigQuery {
 public:
  virtual ~MigQuery() = default;
  virtual std::optional<bool> mig_mode() const = 0;                 ///< current MIG mode; nullopt: not supported
  virtual std::string parent_name() const = 0;                       ///< "NVIDIA A100-SXM4-40GB"
  virtual std::optional<int64_t> parent_memory_bytes() const = 0;    ///< whole GPU
  virtual std::vector<MigDeviceAnswer> mig_devices() const = 0;      ///< instances visible to this process
};

/// Answers recorded as JSON ({"mig_mode": true, "name": ..., "memory_bytes": ..., "mig_devices": [
/// {"uuid", "gpu_instance_id", "compute_instance_id", "profile_name", "gi_profile_id", "sm_count",
/// "memory_mb"}]}): the fake NVML of the tests. Throws InputError naming a missing or wrong field.
class RecordedMigQuery final : public MigQuery {
 public:
  explicit RecordedMigQuery(const nlohmann::json& answers);
  std::optional<bool> mig_mode() const override { return m_mode; }
  std::string parent_name() const override { return m_name; }
  std::optional<int64_t> parent_memory_bytes() const override { return m_memory; }
  std::vector<MigDeviceAnswer> mig_devices() const override { return m_devices; }

 private:
  std::optional<bool> m_mode;
  std::string m_name;
  std::optional<int64_t> m_memory;
  std::vector<MigDeviceAnswer> m_devices;
};

/// What CUDA itself says about the device (cudaGetDeviceProperties), and the environment.
struct CudaView {
  std::string device_name;          ///< "NVIDIA A100-SXM4-40GB MIG 3g.20gb" inside an instance
  int sm_count = 0;
  int64_t memory_bytes = 0;
  std::string cuda_visible_devices; ///< getenv("CUDA_VISIBLE_DEVICES") or ""
};

struct MigInstance {
  bool in_mig = false;
  std::string profile;         ///< "3g.20gb"; a compute instance inside it: "1c.3g.20gb"
  std::string gpu_instance_profile;  ///< "3g.20gb" (the profile without a compute-instance prefix)
  std::string uuid;            ///< "MIG-..." when known
  int sm_count = 0;
  int64_t memory_bytes = 0;
  std::string parent_name;
  std::string how;             ///< "CUDA_VISIBLE_DEVICES", "nvml", "cuda-device-name"
  std::string catalog_id;      ///< "a100-sxm4-40gb:3g.20gb", "" when the catalog has no such slice
  std::vector<std::string> notes;
};

/// Decide whether CUDA's device is a MIG instance and which. Order of evidence: a MIG UUID in
/// CUDA_VISIBLE_DEVICES matched against NVML's instances; NVML MIG mode with a single visible instance;
/// CUDA's device name "<parent> MIG <profile>". `nvml` may be null (no NVML).
MigInstance detect_mig(const MigQuery* nvml, const CudaView& cuda);

/// The catalog slice id of an instance: the parent found by name tokens (and whole-GPU memory when
/// known), then its slice with the GPU-instance profile. "" with a note added when there is none.
std::string catalog_slice_id(MigInstance& m, const GpuCatalog& catalog,
                             std::optional<int64_t> parent_memory_bytes = std::nullopt);

/// Sidecar object for a MIG run; whole-GPU NVML figures (if any) are kept here, labelled, never in rows.
nlohmann::json mig_metadata(const MigInstance& m, std::optional<double> whole_gpu_power_w = std::nullopt,
                            std::optional<double> whole_gpu_energy_mj = std::nullopt);

}  // namespace perfpred::mig

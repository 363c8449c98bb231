#pragma once
/// The seam between the runner and whatever executes plan entries (the CUDA harness in src/cuda,
/// or the simulated backend). No CUDA types here.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/profile/plan.hpp"

namespace perfpred {

/// The backend cannot run here (no GPU, harness not built, no driver): one line for the user.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How each entry is timed (from the plan).
struct MeasureSettings {
  int warmup = 3;
  int repeats = 20;
  bool flush_l2 = true;
};

/// Outcome of one entry. A failed configuration is a Measurement with a status, not an exception.
struct Measurement {
  RowStatus status = RowStatus::ok;
  std::string reason;            ///< why not ok
  double time_ms = 0;            ///< median of the repeats
  double time_ms_min = 0;
  int repeats = 0;
  std::optional<double> power_w;    ///< mean board power during the repeats
  std::optional<double> energy_mj;  ///< energy of one execution
  std::vector<std::string> kernel_names;
  std::string runtime;           ///< "cudnn", "cublas", "cuda", "simulated"
  std::string runtime_version;
  std::vector<std::string> notes;  ///< algorithm, workspace, clocks, ...
  /// The device is unusable (sticky CUDA error): the runner writes this row and stops.
  bool fatal = false;
};

/// The device a backend measures, recorded in the sidecar.
struct DeviceDescription {
  std::string gpu_id;            ///< catalog id, or "spec:<name>"; empty lets the runner match the catalog
  std::string name;              ///< marketing name as the driver reports it
  nlohmann::json spec = nlohmann::json::object();  ///< GpuSpec fields, catalog format
  nlohmann::json environment = nlohmann::json::object();  ///< driver, cuda, cudnn, cublas, nvml, ...
  std::string source = "perfpred-profile";
  bool synthetic = false;
  std::string power_source;      ///< "nvml-board", "simulated", "" when no power is measured
  std::vector<std::string> notes;
};

/// Outcome of a whole sequence of layer entries (a model run layer by layer).
struct SequenceMeasurement {
  /// time_ms: the sequence back to back in one timed region (warm-up, median of repeats), so launch
  /// gaps and host dispatch are included; status not ok when the sequence could not run at all.
  Measurement total;
  double layer_sum_ms = 0;       ///< sum of each layer's median timed alone
  int64_t layers_run = 0;        ///< layers inside the timed sequence
  /// Layers left out of the sequence: "node (op) phase: status: reason".
  std::vector<std::string> failed;
  RowStatus failed_status = RowStatus::ok;  ///< the worst status among `failed` (oom before unsupported)
  bool sequence_timed = false;   ///< false: total.time_ms is the sum of layers (no sequence timing)
};

/// Executes plan entries on one device.
class ProfileBackend {
 public:
  virtual ~ProfileBackend() = default;
  virtual DeviceDescription describe() = 0;
  /// Measure one entry. Only a broken backend throws; a failing configuration returns a status.
  virtual Measurement measure(const PlanEntry& e, const MeasureSettings& s) = 0;
  /// Execute `layers` back to back inside one timed region. The default measures each layer alone
  /// and reports their sum ("sum of layers" in the notes, sequence_timed false); backends that can
  /// time a sequence override it.
  virtual SequenceMeasurement measure_sequence(const std::vector<PlanEntry>& layers, const MeasureSettings& s);
};

/// Options of the CUDA harness.
struct CudaBackendOptions {
  int device = 0;
  bool use_cupti = true;
  bool use_nvml = true;
  double power_sample_ms = 10;   ///< NVML power sampling period
};

/// True when this binary contains the CUDA harness (src/cuda was built).
bool cuda_backend_built();
/// Number of CUDA devices, 0 when there is none or the harness is not built.
int cuda_device_count();
/// The CUDA harness. Throws BackendUnavailable with one line when it is not built or no GPU is present.
/// Defined in src/cuda when built, else in src/profile/no_cuda_backend.cpp.
std::unique_ptr<ProfileBackend> make_cuda_backend(const CudaBackendOptions& o);

/// Options of the simulated backend.
struct SimulatedBackendOptions {
  GpuSpec gpu;
  double ms_per_entry = 0;  ///< artificial wall-clock delay per entry (try kill-and-resume)
  uint64_t seed = 1;
};
/// Timings from a roofline of each op on the spec with deterministic noise; rows are synthetic.
std::unique_ptr<ProfileBackend> make_simulated_backend(const SimulatedBackendOptions& o);

}  // namespace perfpred

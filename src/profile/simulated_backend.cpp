// The simulated backend: a roofline of each entry on a GpuSpec with deterministic noise. It lets
// the runner, resume, sharding and the profile -> train -> predict path run without a GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/profile/backend.hpp"

namespace perfpred {

namespace {

uint64_t fnv1a(const std::string& s, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ (seed * 0x9e3779b97f4a7c15ull);
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// Uniform in [-1, 1] from a hash.
double unit(uint64_t h) { return static_cast<double>(h >> 11) / static_cast<double>(1ull << 53) * 2.0 - 1.0; }

class SimulatedBackend final : public ProfileBackend {
 public:
  explicit SimulatedBackend(SimulatedBackendOptions o) : m_o(std::move(o)) {}

  DeviceDescription describe() override {
    DeviceDescription d;
    d.gpu_id = m_o.gpu.id;
    d.name = m_o.gpu.name;
    d.spec = to_json(m_o.gpu);
    d.environment = {{"backend", "simulated"}, {"seed", m_o.seed}};
    d.synthetic = true;
    d.power_source = "simulated";
    d.notes.push_back("synthetic: timings from a roofline of each entry on the catalog spec with +-4% noise");
    return d;
  }

  Measurement measure(const PlanEntry& e, const MeasureSettings& s) override {
    if (m_o.ms_per_entry > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(m_o.ms_per_entry));
    return simulate(e, s);
  }

  /// The sequence: each layer's simulated time, but a kernel cannot start before the host has
  /// dispatched it: max(kernel, host dispatch) per launch plus the GPU-side gap between launches.
  SequenceMeasurement measure_sequence(const std::vector<PlanEntry>& layers, const MeasureSettings& s) override {
    if (m_o.ms_per_entry > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(m_o.ms_per_entry));
    const GpuSpec& g = m_o.gpu;
    const double dispatch_ms = host_dispatch_ms(), gap_ms = 0.001;
    SequenceMeasurement out;
    double seq_ms = 0, energy_mj = 0;
    bool have_energy = true;
    for (const auto& e : layers) {
      Measurement m = simulate(e, s);
      if (m.status != RowStatus::ok) {
        out.failed.push_back(e.node + " (" + e.op + ") " + e.phase + ": " + to_string(m.status) + ": " + m.reason);
        if (out.failed_status == RowStatus::ok || m.status == RowStatus::oom) out.failed_status = m.status;
        continue;
      }
      ++out.layers_run;
      out.layer_sum_ms += m.time_ms;
      const double step = std::max(m.time_ms, dispatch_ms) + gap_ms;
      seq_ms += step;
      if (m.energy_mj) energy_mj += *m.energy_mj + idle_w() * (step - m.time_ms);
      else have_energy = false;
    }
    out.total.runtime = "cudnn";
    out.total.runtime_version = "simulated 1";
    out.total.repeats = s.repeats;
    if (out.layers_run == 0) {
      out.total.status = out.failed_status == RowStatus::ok ? RowStatus::failed : out.failed_status;
      out.total.reason = "no layer of the sequence ran";
      return out;
    }
    out.total.status = RowStatus::ok;
    out.total.time_ms = seq_ms;
    out.total.time_ms_min = seq_ms * 0.98;
    if (have_energy && g.tdp_w > 0) {
      out.total.energy_mj = energy_mj;
      out.total.power_w = energy_mj / seq_ms;
    }
    out.sequence_timed = true;
    out.total.notes.push_back("simulated sequence: per launch max(kernel, host dispatch " + std::to_string(dispatch_ms * 1e3).substr(0, 4) +
                              " us) + " + std::to_string(gap_ms * 1e3).substr(0, 4) + " us launch gap");
    return out;
  }

 private:
  /// Host time to dispatch one library call: embedded boards' CPUs are slower.
  double host_dispatch_ms() const { return m_o.gpu.segment == "embedded" ? 0.025 : 0.006; }
  double idle_w() const {
    const GpuSpec& g = m_o.gpu;
    return g.idle_power_w > 0 ? g.idle_power_w : 0.1 * g.tdp_w;
  }

  Measurement simulate(const PlanEntry& e, const MeasureSettings& s) {
    const GpuSpec& g = m_o.gpu;
    Measurement m;
    // Runtime names follow perfpred's Runtime enum: the simulation stands for direct library calls.
    m.runtime = "cudnn";
    m.runtime_version = "simulated 1";
    m.repeats = s.repeats;
    if (e.device_bytes > 0 && static_cast<double>(e.device_bytes) > 0.9 * g.memory_bytes()) {
      m.status = RowStatus::oom;
      m.reason = "needs " + std::to_string(e.device_bytes) + " bytes of device memory; " + g.id + " has " +
                 std::to_string(static_cast<int64_t>(g.memory_bytes()));
      return m;
    }
    const double launch_ms = 0.004;
    double bw = g.mem_bandwidth_gbps * 1e9 * 0.85;
    double compute_s = 0, memory_s = e.bytes / bw, fixed_ms = launch_ms;
    const std::string& k = e.op_kind;
    if (k == "conv" || k == "gemm" || k == "attention" || k == "lstm") {
      double peak = g.peak_flops(e.precision);
      if (peak <= 0) {
        m.status = RowStatus::unsupported;
        m.reason = g.id + " has no " + to_string(e.precision) + " math path";
        return m;
      }
      // Small products fill few SMs: efficiency grows with the work per launch.
      double eff = 0.8 * e.flops / (e.flops + 2e8 * g.sm_count / 80.0);
      if (k == "conv" && e.param("groups", 1) > 1) eff /= 1.0 + std::log2(static_cast<double>(e.param("groups"))) / 3.0;
      if (e.phase == "backward_weight") eff *= 0.8;
      if (k == "lstm") fixed_ms += 0.01 * static_cast<double>(e.param("seq_len")) * static_cast<double>(e.param("layers", 1));
      compute_s = e.flops / (peak * std::max(eff, 0.01));
    } else if (k == "copy") {
      double link = (g.host_link_gbps > 0 ? g.host_link_gbps : g.mem_bandwidth_gbps / 4) * 1e9;
      if (e.label("memory") == "pageable") link *= 0.45;
      memory_s = e.bytes / link;
      fixed_ms = e.label("memory") == "pageable" ? 0.012 : 0.008;
    } else if (k == "launch") {
      memory_s = 0;
      fixed_ms = 0.0025;
    } else if (k == "peak_flops") {
      compute_s = e.flops / (g.vector_flops(e.precision) * 0.95);
    } else {
      compute_s = e.flops / (g.vector_flops(e.precision) * 0.5);
    }
    double model_ms = std::max(compute_s, memory_s) * 1e3 + fixed_ms;
    uint64_t h = fnv1a(e.id + "|" + g.id, m_o.seed);
    double noise = unit(h), spread = std::fabs(unit(h * 0x9e3779b97f4a7c15ull + 1));
    m.time_ms = model_ms * (1.0 + 0.04 * noise);
    m.time_ms_min = m.time_ms * (1.0 - 0.03 * spread);
    double busy = std::max(compute_s, memory_s) * 1e3 / model_ms;
    double idle = g.idle_power_w > 0 ? g.idle_power_w : 0.1 * g.tdp_w;
    if (g.tdp_w > 0 && e.kind == EntryKind::kernel) {
      m.power_w = idle + (g.tdp_w - idle) * (0.25 + 0.6 * busy);
      m.energy_mj = *m.power_w * m.time_ms;  // W * ms = mJ
    }
    m.notes.push_back("simulated");
    return m;
  }

  SimulatedBackendOptions m_o;
};

}  // namespace

std::unique_ptr<ProfileBackend> make_simulated_backend(const SimulatedBackendOptions& o) {
  return std::make_unique<SimulatedBackend>(o);
}

}  // namespace perfpred

// predict(): plan the kernels, time each on the GPU, run the host/GPU timeline (dispatch overlapped
// with GPU work), add copies, integrate power over the timeline, and size the memory.
#include "perfpred/predict/predictor.hpp"

#include <algorithm>
#include <cmath>

#include "memory_model.hpp"
#include "model_constants.hpp"
#include "plan.hpp"
#include "perfpred/hw/power_limit.hpp"
#include "perfpred/hw/sustained_clock.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {

namespace {

using detail::KernelDraft;
using detail::Phase;

/// Layer name and op of the kernels that belong to no graph node.
const char* nodeless_name(Phase p) {
  return p == Phase::loss ? "loss" : p == Phase::gradients ? "gradients" : p == Phase::casts ? "autocast" : "optimizer";
}
const char* nodeless_op(Phase p) {
  return p == Phase::loss        ? "CrossEntropyLoss"
         : p == Phase::gradients ? "AccumulateGrad+ZeroGrad"
         : p == Phase::casts     ? "WeightCast"
                                 : "OptimizerStep";
}
/// Index of a nodeless layer (loss, gradients, autocast, optimizer) in build_layers' slots.
int nodeless_slot(Phase p) { return p == Phase::loss ? 0 : p == Phase::gradients ? 1 : p == Phase::casts ? 2 : 3; }

/// Fill the descriptive fields of a KernelEstimate from a draft (strings: only when needed).
void describe(const Graph& g, const GraphCost& cost, const detail::Plan& plan, const KernelDraft& d,
              KernelEstimate& k, bool with_attrs) {
  k.node_index = d.node_index;
  k.family = d.family;
  k.phase = detail::phase_name(d.phase);
  k.flops = d.flops;
  k.bytes = d.bytes;
  k.host_s = d.host_s;
  if (d.matrix) k.gemm = d.gemm;
  else k.gemm.reset();
  k.attrs.clear();
  if (d.node_index < 0) {
    k.name = nodeless_name(d.phase);
    k.op = nodeless_op(d.phase);
    if ((d.phase == Phase::loss && d.launches == 1) || (d.phase == Phase::casts && d.backward_cast)) k.op += ".bwd";
    return;
  }
  k.name = g.nodes[d.node_index].name;
  k.op.clear();
  if (d.conv_bias || d.amp_cast) {
    k.op = g.nodes[d.node_index].op;
    k.op += d.conv_bias ? ".bias" : ".cast";
  } else {
    for (int p = d.group_begin; p < d.group_end; ++p) {
      if (p > d.group_begin) k.op += '+';
      k.op += g.nodes[plan.group_nodes[p]].op;
    }
  }
  k.op += detail::phase_suffix(d.phase);
  if (with_attrs) k.attrs = cost.nodes[d.node_index].attrs;
}

/// GPU power budget: what the board draws running flat out (its TDP, or less for a compute chip whose FP32
/// work needs less: full_load_power_w), or the GPU's share of a Jetson module's budget.
double gpu_budget_w(const GpuSpec& gpu) {
  return gpu.segment == "embedded" ? gpu.tdp_w * model::k_embedded_gpu_power_share : full_load_power_w(gpu);
}


}  // namespace

double pipelined_period_ms(const Prediction& p, int instances) {
  const double work = std::max(0.0, p.latency_ms - p.h2d_ms - p.d2h_ms);
  const double link = std::max(p.h2d_ms, p.d2h_ms) * std::max(1, instances);
  return std::max(work, link);
}

std::vector<KernelEstimate> plan_kernels(const Graph& g, const GraphCost& cost, const GpuSpec& gpu,
                                         const PredictOptions& opts) {
  detail::Plan plan;
  detail::build_plan(g, cost, gpu, opts, plan);
  const auto rates = detail::gpu_rates(gpu, opts.precision, opts.runtime);
  std::vector<KernelEstimate> out(plan.kernels.size());
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const auto& d = plan.kernels[i];
    auto& k = out[i];
    describe(g, cost, plan, d, k, true);
    detail::apply_terms(detail::time_kernel(d, rates), k);
  }
  return out;
}

namespace {

/// Host dispatch correction of a bundle: the factor on every host cost (1 without one).
double host_scale_of(const detail::Plan& plan, const GpuSpec& gpu, const PredictOptions& opts,
                     const KernelCorrector* corrector) {
  double host_total = plan.host_pre_s + plan.host_post_s;
  for (const auto& d : plan.kernels) host_total += d.host_s;
  if (!corrector || host_total <= 0) return 1.0;
  const double corrected = corrector->host_overhead_s(host_total, gpu, opts);
  return std::isfinite(corrected) && corrected >= 0 ? corrected / host_total : 1.0;
}

double io_bytes(const Graph& g, const std::vector<int>& tensors) {
  double bytes = 0;
  for (int t : tensors) {
    auto b = g.tensors[t].bytes();
    if (b) bytes += static_cast<double>(*b);
  }
  return bytes;
}

/// This machine's GPU speed (PredictOptions::gpu_factor): every kernel's time, analytical and corrected, times G,
/// after the corrector has seen the analytical terms; the same work over a longer time is a lower utilisation.
void scale_gpu_time(double gpu_factor, std::vector<detail::KernelTerms>& terms, std::vector<KernelEstimate>* ks) {
  if (gpu_factor == 1) return;
  for (auto& t : terms) {
    t.time_s *= gpu_factor;
    t.utilisation = std::min(1.0, t.utilisation / gpu_factor);
  }
  if (ks)
    for (auto& k : *ks) {
      k.time_s *= gpu_factor;
      k.corrected_time_s *= gpu_factor;
    }
}

/// Analytical terms of every kernel and, when needed, their records with the corrector's factors applied.
/// Returns the records (p.kernels with detail output, a scratch vector otherwise) or null when neither.
std::vector<KernelEstimate>* time_kernels(const Graph& g, const GraphCost& cost, const detail::Plan& plan,
                                          const detail::GpuRates& rates, const GpuSpec& gpu, const PredictOptions& opts,
                                          const KernelCorrector* corrector, std::vector<detail::KernelTerms>& terms,
                                          Prediction& p) {
  thread_local std::vector<KernelEstimate> scratch_kernels;
  thread_local std::vector<double> factors;
  const size_t nk = plan.kernels.size();
  terms.resize(nk);
  for (size_t i = 0; i < nk; ++i) terms[i] = detail::time_kernel(plan.kernels[i], rates);
  if (!opts.detail && !corrector) {
    scale_gpu_time(opts.gpu_factor, terms, nullptr);
    return nullptr;
  }
  std::vector<KernelEstimate>* ks = opts.detail ? &p.kernels : &scratch_kernels;
  ks->resize(nk);
  for (size_t i = 0; i < nk; ++i) {
    KernelEstimate& k = (*ks)[i];
    describe(g, cost, plan, plan.kernels[i], k, corrector != nullptr);
    detail::apply_terms(terms[i], k);
  }
  if (corrector) {
    factors.clear();
    corrector->factors(*ks, gpu, opts, factors);
    if (factors.size() != nk)
      throw InternalError("corrector '" + corrector->label() + "' returned " + std::to_string(factors.size()) +
                          " factors for " + std::to_string(nk) + " kernels");
    for (size_t i = 0; i < nk; ++i)
      if (std::isfinite(factors[i]) && factors[i] > 0) (*ks)[i].corrected_time_s = terms[i].time_s * factors[i];
  }
  scale_gpu_time(opts.gpu_factor, terms, ks);
  return ks;
}

/// Power state of the timeline walk; the device's figures once per prediction, not per kernel (a sweep
/// predicts millions of kernels, and fp32_power_demand_w looks its chip family up by name).
struct PowerModel {
  double idle = 0;
  double gap = 0;     ///< while the GPU waits on the host or a copy
  double budget = 0;  ///< gpu_budget_w
  /// What a kernel would draw at the boost clock, from the board's FP32 demand (fp32_power_demand_w: above
  /// the TDP on power-limited cards, whose limiter then holds it at the TDP).
  double demand = 0;

  explicit PowerModel(const GpuSpec& gpu)
      : idle(gpu.idle_power_w > 0 ? gpu.idle_power_w : 0.1 * gpu.tdp_w),
        budget(gpu_budget_w(gpu)),
        demand(gpu.segment == "embedded" ? budget : std::max(budget, fp32_power_demand_w(gpu))) {
    gap = idle + std::max(0.0, budget - idle) * model::k_power_gap_fraction;
  }

  /// Power while a kernel with this utilisation runs: its share of the demand, capped at the budget.
  double kernel(double utilisation) const {
    const double dyn = std::max(0.0, demand - idle);
    return std::min(budget, idle + dyn * (model::k_power_active_floor + (1 - model::k_power_active_floor) * utilisation));
  }
};

/// The host/GPU timeline: each kernel starts when the host has issued it and the GPU is free; power is
/// integrated over kernels and gaps. Sets latency, kernel, optimizer and copy times and energy in p.
void run_timeline(const Graph& g, const detail::Plan& plan, const std::vector<detail::KernelTerms>& terms,
                  const std::vector<KernelEstimate>* ks, double host_scale, const GpuSpec& gpu,
                  const PredictOptions& opts, Prediction& p) {
  const PowerModel pw(gpu);
  double energy_j = 0;
  double host_t = 0, gpu_t = 0;
  const bool copies = opts.include_copies && !gpu.unified_memory;
  // A pageable copy's staging is a CPU memcpy: as slow as the machine's host, not the bundle's dispatch correction.
  const double pageable = opts.pageable_copies ? detail::host_cpu_factor(gpu, opts) : 0.0;
  if (copies) {
    p.h2d_ms = detail::host_copy_time_s(io_bytes(g, g.inputs), gpu, pageable) * 1e3;
    host_t = gpu_t = p.h2d_ms * 1e-3;  // pageable cudaMemcpy: the host waits for it
    energy_j += pw.gap * gpu_t;
  }
  host_t += plan.host_pre_s * host_scale;
  double kernels_s = 0, optimizer_s = 0;
  // The end times of the last launch_queue kernels that ran (a ring); a kernel's host work is done before it
  // waits for a free slot, so the host prepares each op while the oldest queued kernel still runs. A queue at
  // least as long as the plan never fills: no ring.
  const size_t queue = opts.launch_queue > 0 && static_cast<size_t>(opts.launch_queue) < plan.kernels.size()
                           ? static_cast<size_t>(opts.launch_queue)
                           : 0;
  std::vector<double> queued_end(queue, 0.0);
  size_t launched = 0;
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const detail::KernelDraft& d = plan.kernels[i];
    const auto& t = terms[i];
    const double time_s = ks ? (*ks)[i].corrected_time_s : t.time_s;
    host_t += d.host_s * host_scale;
    if (queue > 0 && time_s > 0 && launched >= queue) host_t = std::max(host_t, queued_end[launched % queue]);
    const double start = std::max(host_t, gpu_t);
    energy_j += pw.gap * (start - gpu_t);
    gpu_t = start + time_s;
    if (queue > 0 && time_s > 0) queued_end[launched++ % queue] = gpu_t;
    // Power from the achieved utilisation of the analytical estimate, stretched over the corrected time. A
    // launch-bound kernel keeps the SMs working for its body (its compute or memory time) only; the rest of its
    // launch floor (launch latency, ramp, a few SMs busy) draws what the GPU draws between kernels.
    const double util = time_s > 0 ? t.utilisation * std::min(1.0, t.time_s / time_s) : 0;
    const double busy = t.bound == Bound::launch && t.time_s > 0
                            ? std::min(1.0, std::max(t.compute_s, t.memory_s) / t.time_s)
                            : 1.0;
    energy_j += (pw.gap + (pw.kernel(util) - pw.gap) * busy) * time_s;
    kernels_s += time_s;
    if (d.phase == Phase::optimizer) optimizer_s += time_s;
  }
  host_t += plan.host_post_s * host_scale;
  double end = std::max(host_t, gpu_t);
  energy_j += pw.gap * (end - gpu_t);
  if (copies) {
    p.d2h_ms = detail::host_copy_time_s(io_bytes(g, g.outputs), gpu, pageable) * 1e3;
    end += p.d2h_ms * 1e-3;
    energy_j += pw.gap * p.d2h_ms * 1e-3;
  }
  p.latency_ms = end * 1e3;
  p.kernels_ms = kernels_s * 1e3;
  p.optimizer_ms = optimizer_s * 1e3;
  p.host_overhead_ms = std::max(0.0, p.latency_ms - p.kernels_ms - p.h2d_ms - p.d2h_ms);
  p.throughput_samples_per_s = p.latency_ms > 0 ? static_cast<double>(opts.batch) * 1e3 / p.latency_ms : 0;
  const double period_ms = pipelined_period_ms(p);
  p.pipelined_throughput_samples_per_s = period_ms > 0 ? static_cast<double>(opts.batch) * 1e3 / period_ms : 0;
  if (gpu.tdp_w > 0) {
    p.energy_mj = energy_j * 1e3;
    p.avg_power_w = end > 0 ? energy_j / end : 0;
  } else {
    p.notes.push_back("the GPU spec gives no tdp_w: energy and power not predicted (0)");
  }
}

/// Per-layer records: the kernels of one fused group (forward and backward), the loss, the gradient
/// bookkeeping and the optimizer; a layer's bound is its slowest kernel's.
void build_layers(const Graph& g, const detail::Plan& plan, Prediction& p) {
  std::vector<int> layer_of_group(plan.group_nodes.size() + 1, -1);
  int nodeless_layer[4] = {-1, -1, -1, -1};  // loss, gradients, autocast, optimizer
  std::vector<double> best_time;
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const KernelDraft& d = plan.kernels[i];
    const KernelEstimate& k = p.kernels[i];
    int* slot = &layer_of_group[d.group_begin];
    if (d.node_index < 0)
      slot = &nodeless_layer[nodeless_slot(d.phase)];
    if (*slot < 0) {
      *slot = static_cast<int>(p.layers.size());
      LayerPrediction l;
      if (d.node_index < 0) {
        l.name = nodeless_name(d.phase);
        l.op = nodeless_op(d.phase);
      } else {
        l.name = k.name;
        for (int q = d.group_begin; q < d.group_end; ++q) {
          if (q > d.group_begin) l.op += '+';
          l.op += g.nodes[plan.group_nodes[q]].op;
        }
      }
      p.layers.push_back(std::move(l));
      best_time.push_back(-1);
    }
    LayerPrediction& l = p.layers[*slot];
    l.kernels += d.launches + k.reorder_kernels;
    l.time_ms += k.corrected_time_s * 1e3;
    l.flops += d.flops;
    l.bytes += d.bytes;
    if (k.corrected_time_s > best_time[*slot]) {
      best_time[*slot] = k.corrected_time_s;
      l.bound = k.bound;
    }
  }
}

/// Peak memory and whether it fits, with the notes that go with the device.
void size_memory(const Graph& g, const GraphCost& cost, const detail::Plan& plan, const GpuSpec& gpu,
                 const PredictOptions& opts, Prediction& p) {
  p.memory = opts.memory ? *opts.memory : detail::estimate_memory(g, cost, plan, gpu, opts);
  p.peak_memory_bytes = p.memory.weights_bytes + p.memory.activations_bytes + p.memory.optimizer_state_bytes +
                        p.memory.workspace_bytes + p.memory.context_bytes;
  const double capacity = gpu.memory_bytes();
  p.fits = capacity <= 0 || p.peak_memory_bytes <= capacity;
  p.memory_shortfall_bytes = p.fits ? 0 : p.peak_memory_bytes - capacity;
  if (!p.fits)
    p.notes.push_back("does not fit: needs " + std::to_string(static_cast<long long>(p.peak_memory_bytes / 1e6)) +
                      " MB of " + std::to_string(static_cast<long long>(capacity / 1e6)) + " MB");
  if (gpu.unified_memory) p.notes.push_back("unified memory: no host<->device copies");
  if (gpu.segment == "embedded" && gpu.tdp_w > 0)
    p.notes.push_back("power and energy are the GPU's share of the module budget (GPU rail), not the whole module");
}

/// The clock the math runs at. Under a power limit below the TDP, the limiter holds the board's average
/// draw at the limit: the workload is first timed at its rated clock (the limit lifted), and the clock is
/// what brings that run's average power down to the limit (clock_under_limit). A workload that draws less
/// than the limit keeps its rated clock, whatever FP32 work flat out would draw. 0 elsewhere: gpu_rates
/// takes sustained_clock_scale.
double workload_clock_scale(const Graph& g, const GraphCost& cost, const detail::Plan& plan, const GpuSpec& gpu,
                            const PredictOptions& opts, const KernelCorrector* corrector, double host_scale,
                            std::vector<detail::KernelTerms>& terms) {
  if (!(gpu.power_limit_w > 0 && gpu.power_limit_w < gpu.tdp_w) || gpu.segment == "embedded") return 0;
  GpuSpec rated = gpu;
  rated.power_limit_w = 0;
  PredictOptions quiet = opts;
  quiet.detail = false;
  Prediction at_rated;
  const auto rates = detail::gpu_rates(rated, opts.precision, opts.runtime);
  const std::vector<KernelEstimate>* ks = time_kernels(g, cost, plan, rates, rated, quiet, corrector, terms, at_rated);
  run_timeline(g, plan, terms, ks, host_scale, rated, quiet, at_rated);
  return rated_clock_scale(gpu) * clock_under_limit(gpu.power_limit_w, at_rated.avg_power_w);
}

}  // namespace

Prediction predict(const Graph& g, const GraphCost& cost, const GpuSpec& gpu, const PredictOptions& opts,
                   const KernelCorrector* corrector) {
  if (opts.batch < 1) throw InputError("batch must be >= 1 (got " + std::to_string(opts.batch) + ")");
  if (opts.mode == Mode::training && opts.precision == Precision::int8)
    throw InputError("--precision int8 is inference only (frameworks do not train in int8); use --mode inference, "
                     "or fp16/bf16 for training");
  // Reused across calls on one thread: sweeps predict thousands of graphs without reallocating.
  thread_local detail::Plan plan;
  thread_local std::vector<detail::KernelTerms> terms;
  detail::build_plan(g, cost, gpu, opts, plan);
  const double host_scale = host_scale_of(plan, gpu, opts, corrector);
  const double clock = workload_clock_scale(g, cost, plan, gpu, opts, corrector, host_scale, terms);
  const auto rates = detail::gpu_rates(gpu, opts.precision, opts.runtime, clock);

  Prediction p;
  p.notes = plan.notes;
  if (rates.clock_scale < 0.995)
    p.notes.push_back("power-limited (" + std::to_string(static_cast<int>(std::lround(board_power_limit_w(gpu)))) +
                      " W): math at " + std::to_string(static_cast<int>(std::lround(rates.clock_scale * 100))) +
                      "% of the boost clock under load");
  p.model_bundle = corrector ? corrector->label() : "analytical";
  p.gpu_seen_in_training = corrector ? corrector->gpu_seen(gpu) : false;

  const std::vector<KernelEstimate>* ks = time_kernels(g, cost, plan, rates, gpu, opts, corrector, terms, p);
  run_timeline(g, plan, terms, ks, host_scale, gpu, opts, p);
  if (opts.detail) build_layers(g, plan, p);
  size_memory(g, cost, plan, gpu, opts, p);
  return p;
}

}  // namespace perfpred

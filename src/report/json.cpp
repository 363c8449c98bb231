#include "perfpred/report/json.hpp"

#include <cmath>

namespace perfpred::report {

nlohmann::json number_or_null(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

nlohmann::json summary_json(const Prediction& p) {
  nlohmann::json j;
  j["latency_ms"] = number_or_null(p.latency_ms);
  j["throughput_samples_per_s"] = number_or_null(p.throughput_samples_per_s);
  j["pipelined_throughput_samples_per_s"] = number_or_null(p.pipelined_throughput_samples_per_s);
  j["energy_mj"] = number_or_null(p.energy_mj);
  j["avg_power_w"] = number_or_null(p.avg_power_w);
  j["peak_memory_bytes"] = number_or_null(p.peak_memory_bytes);
  j["fits"] = p.fits;
  j["memory_shortfall_bytes"] = number_or_null(p.memory_shortfall_bytes);
  return j;
}

nlohmann::json to_json(const LayerPrediction& l) {
  return {{"name", l.name},          {"op", l.op},       {"kernels", l.kernels},
          {"time_ms", number_or_null(l.time_ms)}, {"flops", number_or_null(l.flops)},
          {"bytes", number_or_null(l.bytes)},     {"bound", to_string(l.bound)}};
}

nlohmann::json to_json(const KernelEstimate& k) {
  nlohmann::json j{{"name", k.name},
                   {"op", k.op},
                   {"family", to_string(k.family)},
                   {"phase", k.phase},
                   {"node_index", k.node_index},
                   {"flops", number_or_null(k.flops)},
                   {"bytes", number_or_null(k.bytes)},
                   {"compute_s", number_or_null(k.compute_s)},
                   {"memory_s", number_or_null(k.memory_s)},
                   {"launch_s", number_or_null(k.launch_s)},
                   {"waves", number_or_null(k.waves)},
                   {"wave_efficiency", number_or_null(k.wave_efficiency)},
                   {"time_s", number_or_null(k.time_s)},
                   {"corrected_time_s", number_or_null(k.corrected_time_s)},
                   {"bound", to_string(k.bound)}};
  if (k.gemm) {
    j["gemm"] = {{"batch", k.gemm->batch}, {"m", k.gemm->m}, {"n", k.gemm->n}, {"k", k.gemm->k}};
  }
  return j;
}

nlohmann::json to_json(const Prediction& p, bool include_kernels) {
  nlohmann::json j = summary_json(p);
  j["breakdown"] = {{"kernels_ms", number_or_null(p.kernels_ms)},
                    {"host_overhead_ms", number_or_null(p.host_overhead_ms)},
                    {"h2d_ms", number_or_null(p.h2d_ms)},
                    {"d2h_ms", number_or_null(p.d2h_ms)},
                    {"optimizer_ms", number_or_null(p.optimizer_ms)}};
  j["memory"] = {{"weights_bytes", number_or_null(p.memory.weights_bytes)},
                 {"activations_bytes", number_or_null(p.memory.activations_bytes)},
                 {"optimizer_state_bytes", number_or_null(p.memory.optimizer_state_bytes)},
                 {"workspace_bytes", number_or_null(p.memory.workspace_bytes)},
                 {"context_bytes", number_or_null(p.memory.context_bytes)}};
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : p.layers) layers.push_back(to_json(l));
  j["layers"] = std::move(layers);
  if (include_kernels) {
    nlohmann::json ks = nlohmann::json::array();
    for (const auto& k : p.kernels) ks.push_back(to_json(k));
    j["kernels"] = std::move(ks);
  }
  j["kernel_count"] = p.kernels.size();
  j["notes"] = p.notes;
  j["model_bundle"] = p.model_bundle;
  j["gpu_seen_in_training"] = p.gpu_seen_in_training;
  return j;
}

nlohmann::json device_brief_json(const GpuSpec& g) {
  nlohmann::json j{{"id", g.id},
                   {"name", g.name},
                   {"sm_count", g.sm_count},
                   {"memory_gb", number_or_null(g.memory_gb)},
                   {"mem_bandwidth_gbps", number_or_null(g.mem_bandwidth_gbps)},
                   {"tdp_w", number_or_null(g.tdp_w)}};
  if (!g.parent_id.empty()) j["parent_id"] = g.parent_id;
  if (!g.mig_profile.empty()) j["mig_profile"] = g.mig_profile;
  if (!g.power_mode.empty()) j["power_mode"] = g.power_mode;
  if (g.power_limit_w > 0) j["power_limit_w"] = g.power_limit_w;
  return j;
}

}  // namespace perfpred::report

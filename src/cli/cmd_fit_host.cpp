#include "cmd_fit_host.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "perfpred/predict/host_fit.hpp"
#include "perfpred/report/text.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::cli {

namespace {

using report::fmt_given;
using report::fmt_ms;

/// What differs between fitting the host factor and the GPU factor.
struct Factor {
  const char* command;  ///< "fit-host"
  const char* flag;     ///< "--host-factor"
  const char* label;    ///< "host factor"
  const char* key;      ///< "host_factor" (JSON)
  double lo, hi;
};
constexpr Factor k_host{"fit-host", "--host-factor", "host factor", "host_factor", k_host_factor_min, k_host_factor_max};
constexpr Factor k_gpu{"fit-gpu", "--gpu-factor", "GPU factor", "gpu_factor", k_gpu_factor_min, k_gpu_factor_max};

/// A GPU factor is fitted only where the latency follows the GPU: at least this change in latency for a 10%
/// change of the factor either way (a host-bound run would fit any GPU factor).
constexpr double k_min_gpu_sensitivity = 0.05;

/// A fit with what its JSON and text show.
struct FitRun {
  const Factor* f = &k_host;
  PredictRun at_1;  ///< predict with the fitted factor at 1 (the other one as given)
  HostFit fit;
  double measured_ms = 0;
};

/// A factor as it is printed and echoed: four significant digits (a fit is not more precise than that).
std::string factor_text(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", f);
  return buf;
}

/// The one-line error for a measurement no host factor in range explains.
[[noreturn]] void unmatched_host(const FitRun& r) {
  const Prediction& p = r.at_1.prediction;
  const std::string t = "--measured-ms " + fmt_given(r.measured_ms);
  const double gpu_only = p.kernels_ms + p.h2d_ms + p.d2h_ms;  // what no host speed takes away
  if (r.fit.status == HostFit::Status::below && r.measured_ms < gpu_only)
    throw InputError(t + ": below the kernel-only floor of " + fmt_ms(gpu_only) + " (kernels " + fmt_ms(p.kernels_ms) +
                     ", copies " + fmt_ms(p.h2d_ms + p.d2h_ms) +
                     "): the GPU work alone is predicted slower than measured, which no host factor changes; "
                     "check --gpu, --batch, --precision and --runtime, or fit the GPU's speed (perfpred fit-gpu)");
  if (r.fit.status == HostFit::Status::below)
    throw InputError(t + ": faster than predicted at the smallest host factor: " + fmt_ms(r.fit.floor_ms) +
                     " at --host-factor " + factor_text(k_host_factor_min) + " (the kernel-only floor is " +
                     fmt_ms(gpu_only) + "); a host over 10x faster than the reference is outside the range");
  throw InputError(t + ": slower than predicted at the largest host factor: " + fmt_ms(r.fit.ceiling_ms) +
                   " at --host-factor " + factor_text(k_host_factor_max) + " (" + fmt_ms(p.latency_ms) +
                   " at 1), more than host speed explains: check --batch, --mode and --runtime, and that the "
                   "timing leaves out warm-up");
}

/// The one-line error for a measurement no GPU factor in range explains.
[[noreturn]] void unmatched_gpu(const FitRun& r) {
  const Prediction& p = r.at_1.prediction;
  const std::string t = "--measured-ms " + fmt_given(r.measured_ms);
  if (r.fit.status == HostFit::Status::below)
    throw InputError(t + ": faster than predicted at the smallest GPU factor: " + fmt_ms(r.fit.floor_ms) +
                     " at --gpu-factor " + factor_text(k_gpu_factor_min) + " (" + fmt_ms(p.latency_ms) + " at 1, of it " +
                     fmt_ms(p.host_overhead_ms) + " waiting on the host): check --gpu, --batch and --precision, "
                     "and --host-factor (perfpred fit-host) where the host bounds the run");
  throw InputError(t + ": slower than predicted at the largest GPU factor: " + fmt_ms(r.fit.ceiling_ms) +
                   " at --gpu-factor " + factor_text(k_gpu_factor_max) + " (" + fmt_ms(p.latency_ms) +
                   " at 1), more than GPU speed explains: check --gpu, --batch, --mode and --runtime, and that the "
                   "timing leaves out warm-up");
}

FitRun compute_fit(const FitHostCmdOptions& o) {
  if (!(std::isfinite(o.measured_ms) && o.measured_ms > 0))
    throw InputError("--measured-ms " + fmt_given(o.measured_ms) +
                     ": the measured latency must be a positive number of milliseconds (per batch, or per training step)");
  const bool host = o.factor == MachineFactor::host;
  PredictCmdOptions po = o.predict;
  (host ? po.host_factor : po.gpu_factor) = 1;
  po.layers = false;
  LatencyByFactor lat = latency_by_factor(po, o.bundles, o.analytical, o.factor);
  FitRun r;
  r.f = host ? &k_host : &k_gpu;
  r.at_1 = std::move(lat.run);
  r.measured_ms = o.measured_ms;
  r.fit = host ? fit_host_factor(lat.latency_ms, o.measured_ms) : fit_gpu_factor(lat.latency_ms, o.measured_ms);
  if (r.fit.status == HostFit::Status::not_monotone)
    throw InternalError(std::string(r.f->command) + ": the latency at " + r.f->flag + " " + factor_text(r.f->lo) + " (" +
                        fmt_ms(r.fit.floor_ms) + ") exceeds the one at " + factor_text(r.f->hi) + " (" +
                        fmt_ms(r.fit.ceiling_ms) + "): not monotone in the factor");
  if (r.fit.status != HostFit::Status::fitted) host ? unmatched_host(r) : unmatched_gpu(r);
  // The factor as printed, and its latency: what `predict --host-factor F` (--gpu-factor G) with it gives.
  r.fit.factor = std::clamp(std::strtod(factor_text(r.fit.factor).c_str(), nullptr), r.f->lo, r.f->hi);
  r.fit.latency_ms = lat.latency_ms(r.fit.factor);
  if (!host) {
    const double g = r.fit.factor;
    const double spread = (lat.latency_ms(std::min(g * 1.1, k_gpu_factor_max)) -
                           lat.latency_ms(std::max(g / 1.1, k_gpu_factor_min))) / r.fit.latency_ms;
    if (spread < k_min_gpu_sensitivity)
      throw InputError("--measured-ms " + fmt_given(o.measured_ms) + ": the run is bound by the host here (" +
                       fmt_ms(r.at_1.prediction.host_overhead_ms) + " of " + fmt_ms(r.at_1.prediction.latency_ms) +
                       " waiting on it at --gpu-factor 1), so its latency barely follows the GPU's speed (" +
                       std::to_string(static_cast<int>(std::lround(spread * 100))) +
                       "% for 10% either way); fit-gpu on a GPU-bound run (a larger batch or model), fit-host on this one");
  }
  return r;
}

nlohmann::json fit_json(const FitRun& r) {
  const PredictCmdOptions& s = r.at_1.shown;
  const Prediction& p = r.at_1.prediction;
  const std::string key = r.f->key;
  nlohmann::json j{{"schema_version", 1},
                   {"model", r.at_1.model_name},
                   {"gpu", r.at_1.gpu.id},
                   {"batch", s.batch},
                   {"precision", s.precision},
                   {"mode", s.mode},
                   {"runtime", s.runtime},
                   {"measured_ms", r.measured_ms},
                   {key, r.fit.factor},
                   {"latency_ms", {{"at_" + key + "_1", r6(p.latency_ms)}, {"fitted", r6(r.fit.latency_ms)}}},
                   {"range_ms", {{"at_" + key + "_" + factor_text(r.f->lo), r6(r.fit.floor_ms)},
                                 {"at_" + key + "_" + factor_text(r.f->hi), r6(r.fit.ceiling_ms)}}},
                   {"breakdown_at_" + key + "_1",
                    {{"kernels_ms", r6(p.kernels_ms)}, {"host_overhead_ms", r6(p.host_overhead_ms)},
                     {"h2d_ms", r6(p.h2d_ms)}, {"d2h_ms", r6(p.d2h_ms)}}},
                   {"model_bundle", p.model_bundle}};
  // The factor held at its given value (fit-host's --gpu-factor, fit-gpu's --host-factor), where it is not 1.
  if (r.f == &k_host && s.gpu_factor != 1) j["gpu_factor"] = s.gpu_factor;
  if (r.f == &k_gpu && s.host_factor != 1) j["host_factor"] = s.host_factor;
  if (s.mode == "training") j["optimizer"] = s.optimizer;
  return j;
}

}  // namespace

nlohmann::json fit_host_document(const FitHostCmdOptions& o) { return fit_json(compute_fit(o)); }

int run_fit_host(const FitHostCmdOptions& o) {
  const FitRun r = compute_fit(o);
  if (o.json) {
    print_json(fit_json(r));
    return 0;
  }
  const PredictCmdOptions& s = r.at_1.shown;
  const Prediction& p = r.at_1.prediction;
  const std::string f = factor_text(r.fit.factor);
  const std::string held = r.f == &k_host ? machine_factors_text(1, s.gpu_factor) : machine_factors_text(s.host_factor, 1);
  std::printf("%s %s on %s (batch %lld, %s, %s, runtime %s%s), predictor %s\n", r.f->command, r.at_1.model_name.c_str(),
              r.at_1.gpu.id.c_str(), static_cast<long long>(s.batch), s.precision.c_str(), s.mode.c_str(),
              s.runtime.c_str(), held.c_str(), p.model_bundle.c_str());
  std::printf("measured     %s\n", fmt_ms(r.measured_ms).c_str());
  std::printf("%-12s %s  (predict %s %s matches the measurement)\n", r.f->label, f.c_str(), r.f->flag, f.c_str());
  std::printf("predicted    %s at %s 1 (kernels %s, host overhead %s), %s at %s %s\n", fmt_ms(p.latency_ms).c_str(),
              r.f->label, fmt_ms(p.kernels_ms).c_str(), fmt_ms(p.host_overhead_ms).c_str(),
              fmt_ms(r.fit.latency_ms).c_str(), r.f->label, f.c_str());
  std::printf("range        %s at %s %s to %s at %s\n", fmt_ms(r.fit.floor_ms).c_str(), r.f->label,
              factor_text(r.f->lo).c_str(), fmt_ms(r.fit.ceiling_ms).c_str(), factor_text(r.f->hi).c_str());
  return 0;
}

}  // namespace perfpred::cli

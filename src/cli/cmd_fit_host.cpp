#include "cmd_fit_host.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cmd_eval.hpp"
#include "common.hpp"
#include "perfpred/predict/host_fit.hpp"
#include "perfpred/report/text.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::cli {

namespace {

using report::fmt_given;
using report::fmt_ms;

/// A fit with what its JSON and text show.
struct FitRun {
  PredictRun at_1;  ///< predict at --host-factor 1
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
[[noreturn]] void unmatched(const FitRun& r) {
  const Prediction& p = r.at_1.prediction;
  const std::string t = "--measured-ms " + fmt_given(r.measured_ms);
  const double gpu_only = p.kernels_ms + p.h2d_ms + p.d2h_ms;  // what no host speed takes away
  if (r.fit.status == HostFit::Status::below && r.measured_ms < gpu_only)
    throw InputError(t + ": below the kernel-only floor of " + fmt_ms(gpu_only) + " (kernels " + fmt_ms(p.kernels_ms) +
                     ", copies " + fmt_ms(p.h2d_ms + p.d2h_ms) +
                     "): the GPU work alone is predicted slower than measured, which no host factor changes; "
                     "check --gpu, --batch, --precision and --runtime");
  if (r.fit.status == HostFit::Status::below)
    throw InputError(t + ": faster than predicted at the smallest host factor: " + fmt_ms(r.fit.floor_ms) +
                     " at --host-factor " + factor_text(k_host_factor_min) + " (the kernel-only floor is " +
                     fmt_ms(gpu_only) + "); a host over 10x faster than the reference is outside the range");
  if (r.fit.status == HostFit::Status::above)
    throw InputError(t + ": slower than predicted at the largest host factor: " + fmt_ms(r.fit.ceiling_ms) +
                     " at --host-factor " + factor_text(k_host_factor_max) + " (" + fmt_ms(p.latency_ms) +
                     " at 1), more than host speed explains: check --batch, --mode and --runtime, and that the "
                     "timing leaves out warm-up");
  throw InternalError("fit-host: the latency at --host-factor 0.1 (" + fmt_ms(r.fit.floor_ms) + ") exceeds the one at 10 (" +
                      fmt_ms(r.fit.ceiling_ms) + "): not monotone in the host factor");
}

FitRun compute_fit(const FitHostCmdOptions& o) {
  if (!(std::isfinite(o.measured_ms) && o.measured_ms > 0))
    throw InputError("--measured-ms " + fmt_given(o.measured_ms) +
                     ": the measured latency must be a positive number of milliseconds (per batch, or per training step)");
  PredictCmdOptions po = o.predict;
  po.host_factor = 1;
  po.layers = false;
  LatencyByHostFactor lat = latency_by_host_factor(po, o.bundles, o.analytical);
  FitRun r{std::move(lat.run), fit_host_factor(lat.latency_ms, o.measured_ms), o.measured_ms};
  if (r.fit.status != HostFit::Status::fitted) unmatched(r);
  // The factor as printed, and its latency: what `predict --host-factor F` with the printed F gives.
  r.fit.factor = std::clamp(std::strtod(factor_text(r.fit.factor).c_str(), nullptr), k_host_factor_min, k_host_factor_max);
  r.fit.latency_ms = lat.latency_ms(r.fit.factor);
  return r;
}

nlohmann::json fit_json(const FitRun& r) {
  const PredictCmdOptions& s = r.at_1.shown;
  const Prediction& p = r.at_1.prediction;
  nlohmann::json j{{"schema_version", 1},
                   {"model", r.at_1.model_name},
                   {"gpu", r.at_1.gpu.id},
                   {"batch", s.batch},
                   {"precision", s.precision},
                   {"mode", s.mode},
                   {"runtime", s.runtime},
                   {"measured_ms", r.measured_ms},
                   {"host_factor", r.fit.factor},
                   {"latency_ms", {{"at_host_factor_1", r6(p.latency_ms)}, {"fitted", r6(r.fit.latency_ms)}}},
                   {"range_ms", {{"at_host_factor_0.1", r6(r.fit.floor_ms)}, {"at_host_factor_10", r6(r.fit.ceiling_ms)}}},
                   {"breakdown_at_host_factor_1",
                    {{"kernels_ms", r6(p.kernels_ms)}, {"host_overhead_ms", r6(p.host_overhead_ms)},
                     {"h2d_ms", r6(p.h2d_ms)}, {"d2h_ms", r6(p.d2h_ms)}}},
                   {"model_bundle", p.model_bundle}};
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
  std::printf("fit-host %s on %s (batch %lld, %s, %s, runtime %s), predictor %s\n", r.at_1.model_name.c_str(),
              r.at_1.gpu.id.c_str(), static_cast<long long>(s.batch), s.precision.c_str(), s.mode.c_str(),
              s.runtime.c_str(), p.model_bundle.c_str());
  std::printf("measured     %s\n", fmt_ms(r.measured_ms).c_str());
  std::printf("host factor  %s  (predict --host-factor %s matches the measurement)\n", f.c_str(), f.c_str());
  std::printf("predicted    %s at host factor 1 (kernels %s, host overhead %s), %s at host factor %s\n",
              fmt_ms(p.latency_ms).c_str(), fmt_ms(p.kernels_ms).c_str(), fmt_ms(p.host_overhead_ms).c_str(),
              fmt_ms(r.fit.latency_ms).c_str(), f.c_str());
  std::printf("range        %s at host factor 0.1 to %s at 10\n", fmt_ms(r.fit.floor_ms).c_str(),
              fmt_ms(r.fit.ceiling_ms).c_str());
  return 0;
}

}  // namespace perfpred::cli

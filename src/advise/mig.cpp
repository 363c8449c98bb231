#include "perfpred/advise/mig.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

#include <nlohmann/json.hpp>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::advise {
namespace {

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string gib(double bytes) { return fmt(bytes / (1024.0 * 1024 * 1024), 2) + " GiB"; }

Prediction predict_at(const ModelAtBatch& model, int64_t batch, const GpuSpec& gpu, PredictOptions opts,
                      const KernelCorrector* corrector) {
  auto m = model(batch);
  if (!m) throw InternalError("model callback returned nothing for batch " + std::to_string(batch));
  opts.batch = m->batch;  // the batch the model runs at: `batch`, unless its inputs fix another
  return predict(m->graph, m->cost, gpu, opts, corrector);
}

}  // namespace

double instances_throughput(const Prediction& p, int64_t batch, int instances) {
  const int n = std::max(1, instances);
  const double period_ms = pipelined_period_ms(p, n);
  return period_ms > 0 ? static_cast<double>(n) * static_cast<double>(batch) * 1e3 / period_ms : 0;
}

MigGeometry mig_geometry(const GpuSpec& slice, const GpuSpec& parent, int compute_total) {
  static const std::regex k_re(R"(^(\d+)g\.(\d+)gb(\+me)?$)");
  std::smatch m;
  if (!std::regex_match(slice.mig_profile, m, k_re))
    throw InputError("MIG profile '" + slice.mig_profile + "' of " + slice.id +
                     ": expected <compute>g.<memory>gb, e.g. 3g.20gb");
  MigGeometry g;
  g.compute_slices = std::stoi(m[1].str());
  const double mem_gb = std::stod(m[2].str());
  g.media_extensions = m[3].matched;
  g.compute_slices_total = compute_total > 0 ? compute_total : 7;
  // A100/H100/H200 have 7 compute and 8 memory slices; A30 has 4 and 4.
  g.memory_slices_total = g.compute_slices_total >= 7 ? 8 : g.compute_slices_total;
  // Memory slices from the profile's nominal memory: 5 GB of 40 -> 1 of 8; 71 GB of 141 -> 4 of 8.
  double raw = parent.memory_gb > 0 ? mem_gb / parent.memory_gb * g.memory_slices_total : 1;
  int slices = 1;
  while (slices * 2 <= g.memory_slices_total && std::fabs(raw - slices * 2) < std::fabs(raw - slices)) slices *= 2;
  g.memory_slices = slices;
  // Instances: bounded by compute slices and by memory-slot placement. A 1-slot profile cannot start at
  // the last slot on an 8-slot part (7 instances, not 8).
  int by_compute = g.compute_slices_total / std::max(1, g.compute_slices);
  int by_memory = g.memory_slices_total / std::max(1, g.memory_slices);
  g.max_instances = std::max(1, std::min(by_compute, by_memory));
  if (g.media_extensions) g.max_instances = 1;
  return g;
}

std::optional<int64_t> largest_batch(const std::function<bool(int64_t)>& ok, int64_t limit) {
  if (limit < 1 || !ok(1)) return std::nullopt;
  int64_t good = 1, bad = 0;
  while (true) {
    if (good >= limit) return limit;
    int64_t next = std::min(good * 2, limit);
    if (!ok(next)) {
      bad = next;
      break;
    }
    good = next;
  }
  while (bad - good > 1) {
    int64_t mid = good + (bad - good) / 2;
    if (ok(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

MigAdvice advise_mig(const ModelAtBatch& model, const std::string& gpu_id, const PredictOptions& opts,
                     const MigOptions& mig, const KernelCorrector* corrector) {
  const auto& cat = GpuCatalog::instance();
  GpuSpec gpu = cat.resolve(gpu_id);
  if (!gpu.parent_id.empty())
    throw InputError("--gpu " + gpu_id + " is already a MIG slice or power mode; give the whole device, e.g. " +
                     gpu.parent_id);
  auto slices = cat.mig_slices(gpu.id);
  if (slices.empty()) {
    std::vector<std::string> capable;
    for (const auto& d : cat.devices())
      if (!cat.mig_slices(d.id).empty()) capable.push_back(d.id);
    throw InputError("--gpu " + gpu_id + " has no MIG profiles; MIG-capable devices: " +
                     (capable.empty() ? std::string("none in the catalog") : join(capable, ", ")));
  }
  // The catalog records each profile's slice counts and max instances; prefer them to the name.
  std::vector<MigGeometry> geo;
  if (const nlohmann::json* raw = cat.raw(gpu.id); raw && raw->contains("mig_profiles")) {
    for (const auto& s : slices) {
      for (const auto& p : (*raw)["mig_profiles"]) {
        if (p.value("name", std::string()) != s.mig_profile) continue;
        MigGeometry g;
        g.compute_slices = p.value("compute_slices", 0);
        g.compute_slices_total = p.value("compute_slices_total", 0);
        g.memory_slices = p.value("memory_slices", 0);
        g.memory_slices_total = p.value("memory_slices_total", 0);
        g.max_instances = p.value("max_instances", 0);
        g.media_extensions = s.mig_profile.find("+me") != std::string::npos;
        if (g.compute_slices > 0 && g.memory_slices > 0 && g.max_instances > 0) geo.push_back(g);
        break;
      }
    }
  }
  return advise_mig(model, gpu, slices, opts, mig, corrector, geo.size() == slices.size() ? &geo : nullptr);
}

MigAdvice advise_mig(const ModelAtBatch& model, const GpuSpec& gpu, const std::vector<GpuSpec>& slices,
                     const PredictOptions& opts, const MigOptions& mig, const KernelCorrector* corrector,
                     const std::vector<MigGeometry>* geometries) {
  if (geometries && geometries->size() != slices.size())
    throw InternalError("advise_mig: geometries and slices differ in length");
  if (mig.slo_ms && !(*mig.slo_ms > 0 && std::isfinite(*mig.slo_ms)))
    throw InputError("--slo-ms " + fmt(*mig.slo_ms, 3) + ": the latency target must be a positive number of milliseconds");
  if (!(mig.memory_headroom >= 0 && mig.memory_headroom < 1))
    throw InputError("--memory-headroom " + fmt(mig.memory_headroom, 3) + ": must be in [0, 1), e.g. 0.1 for 10%");
  if (opts.batch < 1) throw InputError("--batch " + std::to_string(opts.batch) + ": must be at least 1");
  if (slices.empty()) throw InputError(gpu.id + " has no MIG profiles");

  MigAdvice adv;
  adv.gpu = gpu;
  adv.whole_gpu = predict_at(model, opts.batch, gpu, opts, corrector);

  int compute_total = 0;
  for (const auto& s : slices) {
    static const std::regex k_c(R"(^(\d+)g\.)");
    std::smatch m;
    if (std::regex_search(s.mig_profile, m, k_c)) compute_total = std::max(compute_total, std::stoi(m[1].str()));
  }

  for (size_t si = 0; si < slices.size(); ++si) {
    const GpuSpec& s = slices[si];
    MigProfileResult r;
    r.slice = s;
    r.geometry = geometries ? (*geometries)[si] : mig_geometry(s, gpu, compute_total);
    r.prediction = predict_at(model, opts.batch, s, opts, corrector);
    r.usable_memory_bytes = s.memory_bytes();
    r.memory_limit_bytes = r.usable_memory_bytes * (1 - mig.memory_headroom);
    r.fits_memory = r.prediction.peak_memory_bytes <= r.memory_limit_bytes;
    r.meets_slo = !mig.slo_ms || r.prediction.latency_ms <= *mig.slo_ms;
    r.gpu_throughput_samples_per_s = instances_throughput(r.prediction, opts.batch, r.geometry.max_instances);
    std::vector<std::string> why;
    if (!r.fits_memory)
      why.push_back("needs " + gib(r.prediction.peak_memory_bytes) + ", over " + gib(r.memory_limit_bytes) + " (" +
                    gib(r.usable_memory_bytes) + " less " + fmt(mig.memory_headroom * 100, 0) + "% headroom)");
    if (!r.meets_slo)
      why.push_back("latency " + fmt(r.prediction.latency_ms, 3) + " ms over the " + fmt(*mig.slo_ms, 3) + " ms SLO");
    r.reason = why.empty() ? "fits (" + gib(r.prediction.peak_memory_bytes) + " of " + gib(r.memory_limit_bytes) + ")" +
                                 (mig.slo_ms ? " and meets the SLO" : std::string())
                           : join(why, "; ");
    if (mig.max_batch) {
      auto ok = [&](int64_t b) {
        Prediction p = predict_at(model, b, s, opts, corrector);
        return p.peak_memory_bytes <= r.memory_limit_bytes && (!mig.slo_ms || p.latency_ms <= *mig.slo_ms);
      };
      r.max_batch = largest_batch(ok, mig.max_batch_limit);
      if (r.max_batch) r.max_batch_prediction = predict_at(model, *r.max_batch, s, opts, corrector);
    }
    adv.profiles.push_back(std::move(r));
  }
  std::stable_sort(adv.profiles.begin(), adv.profiles.end(), [](const MigProfileResult& a, const MigProfileResult& b) {
    if (a.geometry.compute_slices != b.geometry.compute_slices) return a.geometry.compute_slices < b.geometry.compute_slices;
    if (a.geometry.memory_slices != b.geometry.memory_slices) return a.geometry.memory_slices < b.geometry.memory_slices;
    return !a.geometry.media_extensions && b.geometry.media_extensions;
  });

  for (size_t i = 0; i < adv.profiles.size(); ++i) {
    const auto& r = adv.profiles[i];
    if (!r.eligible()) continue;
    if (!adv.recommended) adv.recommended = i;
    if (r.geometry.media_extensions) continue;  // +me exists once per GPU: not a packing choice
    if (!adv.best_packing ||
        r.gpu_throughput_samples_per_s > adv.profiles[*adv.best_packing].gpu_throughput_samples_per_s * (1 + 1e-9))
      adv.best_packing = i;
  }

  std::string slo_text = mig.slo_ms ? "the " + fmt(*mig.slo_ms, 3) + " ms SLO" : std::string("no latency target");
  if (!adv.recommended) {
    // Say what blocks the largest profile: that is what the user would have to change.
    const auto& big = adv.profiles.back();
    adv.explanation = "No MIG profile of " + gpu.id + " fits with " + fmt(mig.memory_headroom * 100, 0) +
                      "% memory headroom" + (mig.slo_ms ? " and meets " + slo_text : std::string()) +
                      ". Even the largest, " + big.slice.mig_profile + ": " + big.reason +
                      ". Try a smaller batch, a lower precision, a larger GPU" +
                      (mig.slo_ms ? ", or a looser SLO." : ".");
    return adv;
  }
  const auto& rec = adv.profiles[*adv.recommended];
  std::string e = rec.slice.mig_profile + " is the smallest profile that fits with " +
                  fmt(mig.memory_headroom * 100, 0) + "% headroom (peak " + gib(rec.prediction.peak_memory_bytes) +
                  " of " + gib(rec.usable_memory_bytes) + " usable)";
  if (mig.slo_ms)
    e += " and meets " + slo_text + " (" + fmt(rec.prediction.latency_ms, 3) + " ms)";
  else
    e += "; its latency is " + fmt(rec.prediction.latency_ms, 3) + " ms vs " + fmt(adv.whole_gpu.latency_ms, 3) +
         " ms on the whole GPU";
  e += ". " + std::to_string(rec.geometry.max_instances) + " such instance" + (rec.geometry.max_instances > 1 ? "s per GPU serve" : " per GPU serves") +
       " about " + fmt(rec.gpu_throughput_samples_per_s, 1) + " samples/s together, vs " +
       fmt(adv.whole_gpu.pipelined_throughput_samples_per_s, 1) + " samples/s from one unpartitioned GPU" +
       " (full load: batches back to back, copies overlapping the work).";
  // Smaller profiles that were rejected: say why, once, for the next smaller one.
  if (*adv.recommended > 0) {
    const auto& prev = adv.profiles[*adv.recommended - 1];
    e += " The next smaller profile, " + prev.slice.mig_profile + ", is out: " + prev.reason + ".";
  }
  if (adv.best_packing && *adv.best_packing != *adv.recommended) {
    const auto& bp = adv.profiles[*adv.best_packing];
    e += " For the most throughput per GPU, " + std::to_string(bp.geometry.max_instances) + " x " + bp.slice.mig_profile +
         " give about " + fmt(bp.gpu_throughput_samples_per_s, 1) + " samples/s.";
  }
  adv.explanation = e;
  return adv;
}

}  // namespace perfpred::advise

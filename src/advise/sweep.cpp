#include "perfpred/advise/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <cmath>
#include <set>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::advise {
namespace {

enum class Kind { integer, real };
struct FieldInfo {
  const char* name;
  Kind kind;
};

const std::vector<FieldInfo>& fields() {
  static const std::vector<FieldInfo> f = {
      {"sm_count", Kind::integer},         {"fp32_lanes_per_sm", Kind::integer}, {"boost_clock_mhz", Kind::real},
      {"base_clock_mhz", Kind::real},      {"fp32_tflops", Kind::real},          {"fp16_tflops", Kind::real},
      {"bf16_tflops", Kind::real},         {"fp64_tflops", Kind::real},          {"tensor_fp16_tflops", Kind::real},
      {"tensor_bf16_tflops", Kind::real},  {"tensor_tf32_tflops", Kind::real},   {"tensor_int8_tops", Kind::real},
      {"int8_tops", Kind::real},           {"tensor_cores", Kind::integer},      {"memory_gb", Kind::real},
      {"mem_bandwidth_gbps", Kind::real},  {"l2_cache_mb", Kind::real},          {"shared_mem_per_sm_kb", Kind::real},
      {"registers_per_sm", Kind::integer}, {"max_threads_per_sm", Kind::integer}, {"tdp_w", Kind::real},
      {"idle_power_w", Kind::real},        {"host_link_gbps", Kind::real},       {"tensor_fp16_fp16acc_tflops", Kind::real}};
  return f;
}

const FieldInfo* find_field(const std::string& name) {
  for (const auto& f : fields())
    if (name == f.name) return &f;
  return nullptr;
}

void scale_rates(GpuSpec& g, double all, double vector_only) {
  g.fp32_tflops *= all * vector_only;
  g.fp16_tflops *= all * vector_only;
  g.bf16_tflops *= all * vector_only;
  g.fp64_tflops *= all * vector_only;
  g.int8_tops *= all * vector_only;
  g.tensor_fp16_tflops *= all;
  g.tensor_fp16_fp16acc_tflops *= all;
  g.tensor_bf16_tflops *= all;
  g.tensor_tf32_tflops *= all;
  g.tensor_int8_tops *= all;
}

void set_field(GpuSpec& g, const std::string& f, double v) {
  if (f == "sm_count") g.sm_count = static_cast<int>(std::lround(v));
  else if (f == "fp32_lanes_per_sm") g.fp32_lanes_per_sm = static_cast<int>(std::lround(v));
  else if (f == "boost_clock_mhz") g.boost_clock_mhz = v;
  else if (f == "base_clock_mhz") g.base_clock_mhz = v;
  else if (f == "fp32_tflops") g.fp32_tflops = v;
  else if (f == "fp16_tflops") g.fp16_tflops = v;
  else if (f == "bf16_tflops") g.bf16_tflops = v;
  else if (f == "fp64_tflops") g.fp64_tflops = v;
  else if (f == "tensor_fp16_tflops") g.tensor_fp16_tflops = v;
  else if (f == "tensor_fp16_fp16acc_tflops") g.tensor_fp16_fp16acc_tflops = v;
  else if (f == "tensor_bf16_tflops") g.tensor_bf16_tflops = v;
  else if (f == "tensor_tf32_tflops") g.tensor_tf32_tflops = v;
  else if (f == "tensor_int8_tops") g.tensor_int8_tops = v;
  else if (f == "int8_tops") g.int8_tops = v;
  else if (f == "tensor_cores") g.tensor_cores = static_cast<int>(std::lround(v));
  else if (f == "memory_gb") g.memory_gb = v;
  else if (f == "mem_bandwidth_gbps") g.mem_bandwidth_gbps = v;
  else if (f == "l2_cache_mb") g.l2_cache_mb = v;
  else if (f == "shared_mem_per_sm_kb") g.shared_mem_per_sm_kb = v;
  else if (f == "registers_per_sm") g.registers_per_sm = static_cast<int>(std::lround(v));
  else if (f == "max_threads_per_sm") g.max_threads_per_sm = static_cast<int>(std::lround(v));
  else if (f == "tdp_w") g.tdp_w = v;
  else if (f == "idle_power_w") g.idle_power_w = v;
  else if (f == "host_link_gbps") g.host_link_gbps = v;
  else throw InputError("--vary " + f + ": not a sweepable field (" + join(sweepable_fields(), ", ") + ")");
}

constexpr double k_max_int_field = 2147483647;  // integer fields are C ints

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

const std::vector<std::string>& sweepable_fields() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& f : fields()) n.push_back(f.name);
    return n;
  }();
  return names;
}

size_t SweepAxis::count() const {
  if (step <= 0) return 1;
  const double steps = (stop - start) / step;  // a 1e-9 relative tolerance keeps a STOP that a step lands on
  const double n = std::floor(steps * (1 + 1e-9) + 1e-9) + 1;
  if (!(n >= 1)) return 0;
  return n >= 9.2e18 ? SIZE_MAX : static_cast<size_t>(n);
}

std::vector<double> SweepAxis::values() const {
  // The count in closed form: adding STEP to START one at a time never passes STOP when STEP is below
  // the precision of a double there (1e17 + 1 == 1e17), and the loop would fill memory.
  const size_t n = count();
  std::vector<double> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(start + static_cast<double>(i) * step);
  return out;
}

SweepAxis parse_sweep_axis(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--vary '" + printable(spec, 80) + "': expected FIELD=START:STOP:STEP, e.g. sm_count=40:160:20");
  SweepAxis a;
  a.field = trim(spec.substr(0, eq));
  const FieldInfo* info = find_field(a.field);
  if (!info)
    throw InputError("--vary '" + printable(spec, 80) + "': unknown field '" + printable(a.field, 40) + "'; sweepable: " + join(sweepable_fields(), ", "));
  auto parts = split(spec.substr(eq + 1), ':');
  const std::string what = "--vary " + a.field;
  if (parts.size() == 1) {
    a.start = a.stop = parse_double(parts[0], what);
    a.step = 0;
  } else if (parts.size() == 3) {
    a.start = parse_double(parts[0], what + " START");
    a.stop = parse_double(parts[1], what + " STOP");
    a.step = parse_double(parts[2], what + " STEP");
    if (!(a.step > 0)) throw InputError(what + ": STEP " + fmt(a.step) + " must be positive");
    if (a.stop < a.start) throw InputError(what + ": STOP " + fmt(a.stop) + " is below START " + fmt(a.start));
  } else {
    throw InputError("--vary '" + printable(spec, 80) + "': expected FIELD=START:STOP:STEP or FIELD=VALUE");
  }
  if (!(a.start > 0)) throw InputError(what + ": values must be positive (START is " + fmt(a.start) + ")");
  if (a.step > 0 && a.stop > a.start && a.start + a.step == a.start)
    throw InputError(what + ": STEP " + fmt(a.step) + " is below the precision of a double at START " + fmt(a.start) +
                     "; use a step of at least " + fmt(a.start * 1e-15));
  if (info->kind == Kind::integer) {
    if (a.stop > k_max_int_field)
      throw InputError(what + ": " + a.field + " is an integer of at most " + fmt(k_max_int_field) + "; " + fmt(a.stop) +
                       " is over");
    // START and STEP whole make every value whole.
    for (double v : {a.start, a.step})
      if (std::fabs(v - std::round(v)) > 1e-9)
        throw InputError(what + ": " + a.field + " is an integer; " + fmt(v) + " is not (use an integer START and STEP)");
  }
  return a;
}

GpuSpec apply_sweep_point(const GpuSpec& base, const std::vector<std::string>& names, const std::vector<double>& values) {
  if (names.size() != values.size()) throw InternalError("apply_sweep_point: fields and values differ in length");
  GpuSpec g = base;
  // Structural fields first, with consistent rescaling of the peak rates.
  double rate_scale = 1, vector_scale = 1;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto& f = names[i];
    double v = values[i];
    if (f == "sm_count" && base.sm_count > 0) {
      rate_scale *= v / base.sm_count;
      if (base.tensor_cores > 0) g.tensor_cores = static_cast<int>(std::lround(base.tensor_cores * v / base.sm_count));
    } else if (f == "boost_clock_mhz" && base.boost_clock_mhz > 0) {
      rate_scale *= v / base.boost_clock_mhz;
      if (base.base_clock_mhz > 0) g.base_clock_mhz = base.base_clock_mhz * v / base.boost_clock_mhz;
    } else if (f == "fp32_lanes_per_sm" && base.fp32_lanes_per_sm > 0) {
      vector_scale *= v / base.fp32_lanes_per_sm;
    }
  }
  scale_rates(g, rate_scale, vector_scale);
  bool idle_given = false;
  for (size_t i = 0; i < names.size(); ++i) {
    set_field(g, names[i], values[i]);
    idle_given = idle_given || names[i] == "idle_power_w";
  }
  // As in a spec file with "base": a new tdp_w keeps the base's idle share of TDP unless idle is varied too.
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == "tdp_w" && !idle_given && base.tdp_w > 0) g.idle_power_w = base.idle_power_w * values[i] / base.tdp_w;
  // A swept device is hypothetical: a learned corrector must not treat it as the catalogued base.
  g.id = base.id + "~sweep";
  g.segment = "hypothetical";
  // The point must be a device a spec file could describe (idle power at most TDP, ...). The label is
  // built only for an error: formatting it for every point was a tenth of a sweep's time.
  try {
    validate_gpu_spec(g, "");
  } catch (const InputError& e) {
    std::string where = "--vary";
    for (size_t i = 0; i < names.size(); ++i) where += (i ? ", " : " ") + names[i] + "=" + fmt(values[i]);
    where += " on " + base.id;
    throw InputError(where + std::string(e.what()) + "; change the --vary range so every grid point is a valid GPU");
  }
  return g;
}

size_t sweep_grid_size(const std::vector<SweepAxis>& axes, size_t max_points) {
  size_t n = 1;
  for (const auto& a : axes) {
    size_t k = a.count();
    if (k == 0) throw InputError("--vary " + a.field + ": the range is empty");
    if (n > max_points / k)
      throw InputError("the sweep grid exceeds " + std::to_string(max_points) +
                       " points; use larger steps or fewer --vary, or raise --max-points");
    n *= k;
  }
  return n;
}

namespace {

// What the memory estimate depends on besides the graph and the options: a point that matches the
// first one here has its memory (the liveness walk, half of a point's time) and only its capacity differs.
struct MemoryKey {
  std::string segment;
  bool tf32 = false, precision_cores = false;
  MemoryKey(const GpuSpec& g, const PredictOptions& o)
      : segment(g.segment), tf32(g.uses_tensor_cores(Precision::tf32)), precision_cores(g.uses_tensor_cores(o.precision)) {}
  bool operator==(const MemoryKey&) const = default;
};

// Points [begin, end) of the grid, row-major with the last axis fastest, into res.points. `first` is
// the memory estimate of point 0 on `first_key`.
void sweep_range(const AnalyzedModel& model, const GpuSpec& base, const std::vector<std::vector<double>>& vals,
                 const PredictOptions& opts, const KernelCorrector* corrector, size_t begin, size_t end,
                 const MemoryBreakdown& first, const MemoryKey& first_key, SweepResult& res,
                 std::atomic<size_t>& done) {
  const size_t na = vals.size();
  std::vector<size_t> idx(na, 0);
  for (size_t a = na, rest = begin; a-- > 0;) {
    idx[a] = rest % vals[a].size();
    rest /= vals[a].size();
  }
  std::vector<double> point(na);
  for (size_t n = begin; n < end; ++n) {
    for (size_t a = 0; a < na; ++a) point[a] = vals[a][idx[a]];
    GpuSpec g = apply_sweep_point(base, res.fields, point);
    PredictOptions o = opts;
    if (MemoryKey(g, opts) == first_key) o.memory = &first;
    Prediction p = predict(model.graph, model.cost, g, o, corrector);
    res.points[n] = {point, p.latency_ms, p.throughput_samples_per_s, p.energy_mj, p.avg_power_w, p.peak_memory_bytes,
                     p.fits};
    for (size_t a = na; a-- > 0;) {
      if (++idx[a] < vals[a].size()) break;
      idx[a] = 0;
    }
    if ((n - begin) % 256 == 255) done += 256;
  }
}

}  // namespace

SweepResult run_sweep(const AnalyzedModel& model, const GpuSpec& base, const std::vector<SweepAxis>& axes,
                      const PredictOptions& opts, const KernelCorrector* corrector, size_t max_points,
                      const SweepProgress& progress) {
  if (axes.empty()) throw InputError("sweep: give at least one --vary FIELD=START:STOP:STEP");
  std::set<std::string> seen;
  for (const auto& a : axes)
    if (!seen.insert(a.field).second) throw InputError("--vary " + a.field + " is given twice; combine the ranges");
  const size_t total = sweep_grid_size(axes, max_points);
  SweepResult res;
  res.base_gpu = base.id;
  std::vector<std::vector<double>> vals;
  for (const auto& a : axes) {
    res.fields.push_back(a.field);
    vals.push_back(a.values());
  }
  res.points.resize(total);
  // Point 0 alone first: its error, if any, is the one to report, and its memory estimate is reused.
  std::vector<double> point0;
  for (const auto& v : vals) point0.push_back(v[0]);
  const GpuSpec g0 = apply_sweep_point(base, res.fields, point0);
  const MemoryBreakdown memory0 = predict(model.graph, model.cost, g0, opts, corrector).memory;
  const MemoryKey key0(g0, opts);
  // Points are independent and predict() keeps its scratch per thread: large grids run on every core,
  // each thread a contiguous block, so the rows keep their order. A learned corrector runs on one.
  const size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = corrector || total < 4096 ? 1 : std::min<size_t>(hw, 16);
  std::atomic<size_t> done{0}, finished{0};
  std::vector<std::exception_ptr> errors(workers);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w) {
    const size_t b = total * w / workers, e = total * (w + 1) / workers;
    auto body = [&, w, b, e] {
      try {
        sweep_range(model, base, vals, opts, corrector, b, e, memory0, key0, res, done);
      } catch (...) {
        errors[w] = std::current_exception();
      }
      ++finished;
    };
    if (workers == 1 && !progress) body();
    else pool.emplace_back(body);
  }
  while (progress && finished.load() < pool.size()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (finished.load() < pool.size())
      progress(std::min(done.load(), total), total,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  for (auto& t : pool) t.join();
  // The first failing point in grid order is the one reported, whatever thread found it.
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  res.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.points_per_second = res.elapsed_s > 0 ? static_cast<double>(total) / res.elapsed_s : 0;
  return res;
}

}  // namespace perfpred::advise

// Plan parsing and expansion: sweeps of op configurations -> deterministic entries with stable ids.
#include "perfpred/profile/plan.hpp"

#include <fstream>
#include <set>

#include <spdlog/spdlog.h>

#include "plan_build.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/paths.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred {

namespace {

/// Bytes as int64, saturating: a configuration too large to count (a 2^32-cube GEMM) must read as
/// "more memory than any device has", not overflow into a small or negative number.
int64_t saturated_bytes(double bytes) {
  constexpr double k_max = 9.0e18;
  if (!(bytes >= 0)) return 0;
  return bytes >= k_max ? static_cast<int64_t>(k_max) : static_cast<int64_t>(bytes);
}

using Raw = PlanRaw;

/// One op kind of the plan vocabulary: the grid keys it accepts and the phases it has.
struct OpKindInfo {
  const char* name;
  EntryKind kind;
  std::vector<std::string> keys;
  std::vector<std::string> phases;
  bool uses_precision = true;
};

const std::vector<OpKindInfo>& op_kinds() {
  static const std::vector<OpKindInfo> kinds = {
      {"conv", EntryKind::kernel,
       {"batch", "in_channels", "out_channels", "size", "height", "width", "kernel", "stride", "padding", "dilation",
        "groups"},
       {"forward", "backward_data", "backward_weight"}},
      {"gemm", EntryKind::kernel, {"batch", "m", "n", "k"}, {"forward", "backward_data", "backward_weight"}},
      {"attention", EntryKind::kernel, {"batch", "heads", "seq_len", "head_dim", "product"},
       {"forward", "backward_data", "backward_weight"}},
      {"pool", EntryKind::kernel, {"batch", "channels", "size", "kernel", "stride", "padding", "mode"},
       {"forward", "backward"}},
      {"batch_norm", EntryKind::kernel, {"batch", "channels", "size"}, {"forward", "backward"}},
      {"layer_norm", EntryKind::kernel, {"rows", "hidden"}, {"forward", "backward"}},
      {"activation", EntryKind::kernel, {"function", "elements"}, {"forward", "backward"}},
      {"elementwise", EntryKind::kernel, {"function", "elements"}, {"forward"}},
      {"softmax", EntryKind::kernel, {"rows", "cols"}, {"forward", "backward"}},
      {"lstm", EntryKind::kernel, {"batch", "seq_len", "input_size", "hidden", "layers"},
       {"forward", "backward_data", "backward_weight"}},
      {"copy", EntryKind::microbench, {"direction", "memory", "bytes"}, {"forward"}, false},
      {"launch", EntryKind::microbench, {"kernels"}, {"forward"}, false},
      {"bandwidth", EntryKind::microbench, {"bytes"}, {"forward"}, false},
      {"peak_flops", EntryKind::microbench, {"elements", "iterations"}, {"forward"}},
  };
  return kinds;
}

/// Typed access to one grid combination with errors naming the sweep and key.
class Params {
 public:
  Params(const Raw& raw, std::string where) : m_raw(raw), m_where(std::move(where)) {}
  bool has(const std::string& k) const { return m_raw.count(k) != 0; }
  int64_t integer(const std::string& k, std::optional<int64_t> def = std::nullopt, int64_t min = 1) const {
    auto it = m_raw.find(k);
    if (it == m_raw.end()) {
      if (!def) throw InputError(m_where + ": missing '" + k + "' (give it in \"grid\" or \"configs\")");
      return *def;
    }
    if (!it->second.is_number_integer())
      throw InputError(m_where + ": '" + k + "' must be an integer, got " + json_excerpt(it->second));
    int64_t v = it->second.get<int64_t>();
    if (v < min) throw InputError(m_where + ": '" + k + "' = " + std::to_string(v) + " must be >= " + std::to_string(min));
    return v;
  }
  std::string text(const std::string& k, const std::vector<std::string>& allowed, std::optional<std::string> def = std::nullopt) const {
    auto it = m_raw.find(k);
    std::string v;
    if (it == m_raw.end()) {
      if (!def) throw InputError(m_where + ": missing '" + k + "' (one of " + join(allowed, ", ") + ")");
      v = *def;
    } else {
      if (!it->second.is_string()) throw InputError(m_where + ": '" + k + "' must be one of " + join(allowed, ", "));
      v = it->second.get<std::string>();
    }
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      throw InputError(m_where + ": '" + k + "' = '" + v + "' is not one of " + join(allowed, ", "));
    return v;
  }
  const Raw& raw() const { return m_raw; }

 private:
  const Raw& m_raw;
  std::string m_where;
};

int64_t out_dim(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

/// Fill a gemm-family entry for a (batched) product A[b,m,k] x B[b,k,n] and a phase.
void fill_gemm(PlanEntry& e, int64_t b, int64_t m, int64_t n, int64_t k, double eb) {
  int64_t gm = m, gn = n, gk = k;
  if (e.phase == "backward_data") {  // dA = dC . B^T
    gm = m, gn = k, gk = n;
  } else if (e.phase == "backward_weight") {  // dB = A^T . dC
    gm = k, gn = n, gk = m;
  }
  e.gemm_batch = b;
  e.gemm_m = gm;
  e.gemm_n = gn;
  e.gemm_k = gk;
  e.flops = 2.0 * b * gm * gn * gk;
  // An int8 GEMM accumulates into and writes int32 (cuBLAS CUBLAS_COMPUTE_32I).
  const double out_eb = e.has_precision && e.precision == Precision::int8 ? 4 : eb;
  e.bytes = b * (eb * (double(gm) * gk + double(gk) * gn) + out_eb * double(gm) * gn);
  e.device_bytes = saturated_bytes(e.bytes);
}

/// Build one entry from a combination; returns false (with `why`) for a combination that is not
/// a valid configuration (channels not divisible by groups, output smaller than one pixel).
bool build(PlanEntry& e, const Params& p, std::string& why) {
  const double eb = e.has_precision ? element_bytes(e.precision) : 1;
  const std::string& k = e.op_kind;
  if (k == "conv") {
    int64_t n = p.integer("batch"), c = p.integer("in_channels");
    int64_t h = p.has("size") ? p.integer("size") : p.integer("height");
    int64_t w = p.has("size") ? h : p.integer("width");
    int64_t r = p.integer("kernel"), s = p.integer("stride", 1), d = p.integer("dilation", 1);
    int64_t g = 1;
    bool depthwise = p.has("groups") && p.raw().at("groups").is_string();
    if (depthwise) {
      p.text("groups", {"depthwise"});
      g = c;
    } else {
      g = p.integer("groups", 1);
    }
    int64_t kout = p.has("out_channels") ? p.integer("out_channels") : (depthwise ? c : -1);
    if (kout < 0) throw InputError("conv: missing 'out_channels'");
    int64_t pad = p.integer("padding", -1, -1);
    if (pad < 0) pad = d * (r - 1) / 2;
    if (c % g || kout % g) {
      why = "channels not divisible by groups";
      return false;
    }
    int64_t oh = out_dim(h, r, s, pad, d), ow = out_dim(w, r, s, pad, d);
    if (oh <= 0 || ow <= 0) {
      why = "output smaller than one pixel";
      return false;
    }
    e.params = {{"batch", n},     {"in_channels", c}, {"out_channels", kout}, {"in_h", h},       {"in_w", w},
                {"kernel_h", r},  {"kernel_w", r},    {"stride_h", s},        {"stride_w", s},   {"pad_h", pad},
                {"pad_w", pad},   {"dilation_h", d},  {"dilation_w", d},      {"groups", g},     {"out_h", oh},
                {"out_w", ow}};
    e.op_family = "conv";
    e.op = "Conv";
    double x = double(n) * c * h * w, wt = double(kout) * (c / g) * r * r, y = double(n) * kout * oh * ow;
    e.flops = 2.0 * n * kout * oh * ow * (c / g) * r * r;
    e.bytes = eb * (x + wt + y);
    e.device_bytes = saturated_bytes(eb * (2 * x + 2 * wt + 2 * y));
    // Every phase carries the forward's implicit-GEMM view (docs/formats.md): cuDNN tiles the gradients over it
    // too, and the model times them on it.
    e.gemm_batch = g;
    e.gemm_m = n * oh * ow, e.gemm_n = kout / g, e.gemm_k = c / g * r * r;
    std::vector<int64_t> xs{n, c, h, w}, ws{kout, c / g, r, r}, ys{n, kout, oh, ow};
    if (e.phase == "forward") e.inputs = {xs, ws};
    else if (e.phase == "backward_data") e.inputs = {ys, ws};
    else e.inputs = {xs, ys};
    return true;
  }
  if (k == "gemm") {
    int64_t b = p.integer("batch", 1), m = p.integer("m"), n = p.integer("n"), kk = p.integer("k");
    e.params = b > 1 ? std::map<std::string, int64_t>{{"batch", b}, {"m", m}, {"n", n}, {"k", kk}}
                     : std::map<std::string, int64_t>{{"m", m}, {"n", n}, {"k", kk}};
    e.op_family = "gemm";
    e.op = b > 1 ? "MatMul" : "Gemm";
    fill_gemm(e, b, m, n, kk, eb);
    auto shape = [&](int64_t r, int64_t c) { return b > 1 ? std::vector<int64_t>{b, r, c} : std::vector<int64_t>{r, c}; };
    if (e.phase == "forward") e.inputs = {shape(m, kk), shape(kk, n)};
    else if (e.phase == "backward_data") e.inputs = {shape(m, n), shape(kk, n)};
    else e.inputs = {shape(m, kk), shape(m, n)};
    return true;
  }
  if (k == "attention") {
    int64_t b = p.integer("batch"), h = p.integer("heads"), s = p.integer("seq_len"), d = p.integer("head_dim");
    std::string prod = p.text("product", {"qk", "av"}, "qk");
    e.params = {{"batch", b}, {"heads", h}, {"seq_len", s}, {"head_dim", d}};
    e.labels = {{"product", prod}};
    e.op_family = "gemm";
    e.op = "MatMul";
    int64_t m = s, n = prod == "qk" ? s : d, kk = prod == "qk" ? d : s;
    fill_gemm(e, b * h, m, n, kk, eb);
    std::vector<int64_t> a{b, h, m, kk}, bb{b, h, kk, n}, c{b, h, m, n};
    if (e.phase == "forward") e.inputs = {a, bb};
    else if (e.phase == "backward_data") e.inputs = {c, bb};
    else e.inputs = {a, c};
    return true;
  }
  if (k == "pool") {
    int64_t n = p.integer("batch"), c = p.integer("channels"), h = p.integer("size");
    std::string mode = p.text("mode", {"max", "avg", "global_avg"}, "max");
    int64_t r = mode == "global_avg" ? h : p.integer("kernel", 2);
    int64_t s = mode == "global_avg" ? 1 : p.integer("stride", r);
    int64_t pad = mode == "global_avg" ? 0 : p.integer("padding", 0, 0);
    int64_t oh = out_dim(h, r, s, pad, 1);
    if (oh <= 0) {
      why = "output smaller than one pixel";
      return false;
    }
    e.params = {{"batch", n}, {"channels", c}, {"in_h", h}, {"in_w", h}, {"kernel_h", r}, {"kernel_w", r},
                {"stride_h", s}, {"stride_w", s}, {"pad_h", pad}, {"pad_w", pad}, {"out_h", oh}, {"out_w", oh}};
    e.labels = {{"mode", mode}};
    e.op_family = "pool";
    e.op = mode == "max" ? "MaxPool" : mode == "avg" ? "AveragePool" : "GlobalAveragePool";
    double x = double(n) * c * h * h, y = double(n) * c * oh * oh;
    e.flops = y * r * r;
    e.bytes = eb * (e.phase == "forward" ? x + y : (mode == "max" ? 2 * x + 2 * y : x + y));
    e.device_bytes = saturated_bytes(eb * (2 * x + 2 * y));
    e.inputs = {e.phase == "forward" ? std::vector<int64_t>{n, c, h, h} : std::vector<int64_t>{n, c, oh, oh}};
    return true;
  }
  if (k == "batch_norm") {
    int64_t n = p.integer("batch"), c = p.integer("channels"), h = p.integer("size");
    e.params = {{"batch", n}, {"channels", c}, {"in_h", h}, {"in_w", h}};
    e.op_family = "norm";
    e.op = "BatchNormalization";
    double x = double(n) * c * h * h;
    e.flops = e.phase == "forward" ? 2 * x : 6 * x;
    e.bytes = eb * (e.phase == "forward" ? 2 * x : 3 * x);
    e.device_bytes = saturated_bytes(eb * 3 * x + 16.0 * c);
    e.inputs = {{n, c, h, h}, {c}};
    return true;
  }
  if (k == "layer_norm") {
    int64_t r = p.integer("rows"), hd = p.integer("hidden");
    e.params = {{"rows", r}, {"hidden", hd}};
    e.op_family = "norm";
    e.op = "LayerNormalization";
    double x = double(r) * hd;
    e.flops = e.phase == "forward" ? 8 * x : 12 * x;
    e.bytes = eb * (e.phase == "forward" ? 2 * x : 3 * x);
    e.device_bytes = saturated_bytes(eb * 3 * x + 16.0 * hd + 8.0 * r);
    e.inputs = {{r, hd}, {hd}};
    return true;
  }
  if (k == "activation" || k == "elementwise") {
    std::vector<std::string> fns = k == "activation" ? std::vector<std::string>{"relu", "sigmoid", "tanh", "gelu"}
                                                     : std::vector<std::string>{"add", "mul"};
    std::string fn = p.text("function", fns);
    int64_t x = p.integer("elements");
    e.params = {{"elements", x}};
    e.labels = {{"function", fn}};
    e.op_family = "elementwise";
    static const std::map<std::string, std::pair<const char*, double>> ops = {
        {"relu", {"Relu", 1}}, {"sigmoid", {"Sigmoid", 4}}, {"tanh", {"Tanh", 4}}, {"gelu", {"Gelu", 8}},
        {"add", {"Add", 1}},   {"mul", {"Mul", 1}}};
    e.op = ops.at(fn).first;
    e.flops = ops.at(fn).second * x * (e.phase == "forward" ? 1 : 2);
    e.bytes = eb * 3.0 * x * (k == "activation" && e.phase == "forward" ? 2.0 / 3.0 : 1.0);
    e.device_bytes = saturated_bytes(eb * 3.0 * x);
    e.inputs = k == "elementwise" ? std::vector<std::vector<int64_t>>{{x}, {x}} : std::vector<std::vector<int64_t>>{{x}};
    return true;
  }
  if (k == "softmax") {
    int64_t r = p.integer("rows"), c = p.integer("cols");
    e.params = {{"rows", r}, {"cols", c}};
    e.op_family = "softmax";
    e.op = "Softmax";
    double x = double(r) * c;
    e.flops = 5 * x;
    e.bytes = eb * (e.phase == "forward" ? 2 * x : 3 * x);
    e.device_bytes = saturated_bytes(eb * 3 * x);
    e.inputs = {{r, c}};
    return true;
  }
  if (k == "lstm") {
    int64_t b = p.integer("batch"), s = p.integer("seq_len"), i = p.integer("input_size"), h = p.integer("hidden"),
            l = p.integer("layers", 1);
    e.params = {{"batch", b}, {"seq_len", s}, {"input_size", i}, {"hidden", h}, {"layers", l}, {"directions", 1}};
    e.op_family = "rnn";
    e.op = "LSTM";
    double weights = 4.0 * h * (i + h + 2) + (l - 1) * 4.0 * h * (2 * h + 2);
    double gemm_flops = 2.0 * s * b * 4 * h * (i + h) + (l - 1) * 2.0 * s * b * 4 * h * (2 * h);
    e.flops = gemm_flops;
    double acts = double(s) * b * (i + h * l * 6);  // inputs, outputs and the gate activations kept for backward
    e.bytes = eb * (weights + acts);
    e.device_bytes = saturated_bytes(eb * (3 * weights + 3 * acts));
    e.gemm_batch = 1;
    e.gemm_m = s * b, e.gemm_n = 4 * h, e.gemm_k = i + h;
    e.inputs = {{s, b, i}, {l, 4 * h, i}, {l, 4 * h, h}};
    return true;
  }
  if (k == "copy") {
    std::string dir = p.text("direction", {"h2d", "d2h"});
    std::string mem = p.text("memory", {"pageable", "pinned", "mapped"});
    int64_t bytes = p.integer("bytes");
    e.params = {{"bytes", bytes}};
    e.labels = {{"direction", dir}, {"memory", mem}};
    e.op_family = "data_movement";
    e.op = dir == "h2d" ? "MemcpyH2D" : "MemcpyD2H";
    e.bytes = double(bytes);
    e.device_bytes = bytes;
    e.inputs = {{bytes}};
    return true;
  }
  if (k == "launch") {
    int64_t n = p.integer("kernels", 1000);
    e.params = {{"kernels", n}};
    e.op_family = "microbench";
    e.op = "EmptyKernel";
    return true;
  }
  if (k == "bandwidth") {
    int64_t bytes = p.integer("bytes");
    e.params = {{"bytes", bytes}};
    e.op_family = "data_movement";
    e.op = "DeviceCopy";
    e.bytes = 2.0 * bytes;  // read + write
    e.device_bytes = 2 * bytes;
    e.inputs = {{bytes}};
    return true;
  }
  if (k == "peak_flops") {
    if (e.precision != Precision::fp32 && e.precision != Precision::fp16)
      throw InputError("peak_flops: precision " + to_string(e.precision) +
                       " has no FMA microbenchmark (fp32, fp16; tensor-core peaks come from the gemm sweep)");
    int64_t n = p.integer("elements", 1 << 22), it = p.integer("iterations", 1024);
    e.params = {{"elements", n}, {"iterations", it}};
    e.op_family = "microbench";
    e.op = "PeakFma";
    e.flops = 2.0 * n * it * (e.precision == Precision::fp16 ? 2 : 1);  // half2: two lanes per FMA
    e.bytes = 0;
    e.device_bytes = n * 4;
    return true;
  }
  throw InternalError("plan: op kind '" + k + "' has no builder");
}

std::vector<std::string> string_list(const nlohmann::json& j, const std::string& where) {
  if (!j.is_array()) throw InputError(where + ": must be an array of strings");
  std::vector<std::string> out;
  for (const auto& v : j) {
    if (!v.is_string()) throw InputError(where + ": must be an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

/// The cartesian product of a grid, in key order (std::map) with values in listed order.
std::vector<Raw> grid_product(const nlohmann::json& grid, const std::string& where) {
  std::vector<Raw> out{Raw{}};
  if (grid.is_null()) return out;
  if (!grid.is_object()) throw InputError(where + ": \"grid\" must be an object of key: [values]");
  for (auto it = grid.begin(); it != grid.end(); ++it) {
    const auto& vals = it.value();
    std::vector<nlohmann::json> list;
    if (vals.is_array()) {
      if (vals.empty()) throw InputError(where + ": grid key '" + it.key() + "' has no values");
      for (const auto& v : vals) list.push_back(v);
    } else {
      list.push_back(vals);
    }
    std::vector<Raw> next;
    for (const auto& base : out)
      for (const auto& v : list) {
        if (!v.is_number_integer() && !v.is_string())
          throw InputError(where + ": grid key '" + it.key() + "' values must be integers or strings");
        Raw r = base;
        r[it.key()] = v;
        next.push_back(std::move(r));
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace

std::string plan_entry_id(const PlanEntry& e) {
  return e.op_kind + "|" + e.phase + "|" + (e.has_precision ? to_string(e.precision) : "-") + "|" + e.attrs_text();
}

bool build_plan_entry(PlanEntry& e, const PlanRaw& raw, const std::string& where, std::string& why) {
  return build(e, Params(raw, where), why);
}

namespace {

/// A list of integers or one integer; InputError naming `where`.
std::vector<int64_t> int_list(const nlohmann::json& j, const std::string& where) {
  std::vector<int64_t> out;
  auto one = [&](const nlohmann::json& v) {
    if (!v.is_number_integer() || v.get<int64_t>() < 1) throw InputError(where + ": must be integers >= 1");
    out.push_back(v.get<int64_t>());
  };
  if (j.is_array()) {
    for (const auto& v : j) one(v);
  } else {
    one(j);
  }
  if (out.empty()) throw InputError(where + ": must not be empty");
  return out;
}

std::vector<std::string> text_list(const nlohmann::json& j, const std::string& where) {
  if (j.is_string()) return {j.get<std::string>()};
  return string_list(j, where);
}

/// A sweep {"kind": "model", "models": [...], "batch": [...], "precision": [...], "mode": [...]}:
/// per (model, batch, precision, mode) the layer entries (shared between modes: a layer's forward
/// is measured once) followed by one network entry.
void add_model_sweep(Plan& plan, const nlohmann::json& sw, std::string where, const std::string& label,
                     const std::filesystem::path& plan_dir, const std::vector<Precision>& default_precisions,
                     std::set<std::string>& seen_ids) {
  static const std::set<std::string> keys = {"name", "kind", "models", "batch", "precision", "precisions", "mode"};
  for (auto it = sw.begin(); it != sw.end(); ++it)
    if (!keys.count(it.key()))
      throw InputError(where + ": unknown field '" + it.key() + "' for a model sweep (name, kind, models, batch, precision, mode)");
  std::string name = json_string(sw, "name", "models", where);
  where += " (" + name + ")";
  if (!sw.contains("models")) throw InputError(where + ": 'models' is required (ONNX files, e.g. \"models/zoo/resnet18.onnx\")");
  auto models = string_list(sw["models"], where + ": 'models'");
  if (models.empty()) throw InputError(where + ": 'models' must name at least one ONNX file");
  std::vector<int64_t> batches = sw.contains("batch") ? int_list(sw["batch"], where + ": 'batch'") : std::vector<int64_t>{1};
  // int8 runs only as the op sweeps' conv and GEMM forward: a whole model in int8 needs the
  // quantize/dequantize nodes and int8 kernels of every other op, which the harness does not have.
  // The plan's default list may hold int8 for those sweeps; a model sweep skips it there.
  std::vector<Precision> precisions;
  for (Precision pr : default_precisions)
    if (pr != Precision::int8) precisions.push_back(pr);
  for (const char* key : {"precision", "precisions"})
    if (sw.contains(key)) {
      precisions.clear();
      for (const auto& t : text_list(sw[key], where + ": '" + key + "'"))
        precisions.push_back(precision_from_string(t, where + ": '" + key + "'"));
    }
  for (Precision pr : precisions)
    if (pr == Precision::int8)
      throw InputError(where + ": precision int8 is profiled only in op sweeps of conv and gemm (forward); "
                       "a model sweep takes fp32, tf32, fp16 or bf16");
  if (precisions.empty()) throw InputError(where + ": no precision left to run (give 'precision', e.g. [\"fp32\"])");
  std::vector<std::string> modes = sw.contains("mode") ? text_list(sw["mode"], where + ": 'mode'") : std::vector<std::string>{"inference"};
  for (const auto& m : modes)
    if (m != "inference" && m != "training")
      throw InputError(where + ": 'mode' = '" + m + "' is not one of inference, training");
  for (const auto& model : models) {
    auto path = resolve_model_path(model, plan_dir);
    if (path.empty())
      throw InputError(label + ": sweep '" + name + "': model '" + model +
                       "' not found (relative paths resolve against the plan's directory and the repository root)");
    for (Precision pr : precisions) {
      // One kernel entry per distinct layer configuration of this model and precision: the 2nd..nth
      // node running the same kernel (ResNet's repeated blocks, the batch-independent SGD update) is
      // named in its notes.
      std::map<std::string, size_t> by_config;
      for (int64_t b : batches) {
        for (const auto& mode : modes) {
          ModelExpandOptions o;
          o.model = model;
          o.model_path = path;
          o.sweep = name;
          o.batch = b;
          o.precision = pr;
          o.mode = mode;
          auto run = std::make_shared<ModelRun>(expand_model(o));
          for (const auto& layer : run->layers) {
            if (!seen_ids.insert(layer.id).second) continue;  // the forward of an earlier mode
            auto [it, fresh] = by_config.emplace(plan_entry_id(layer), plan.entries.size());
            if (fresh) {
              plan.entries.push_back(layer);
              plan.entries.back().notes.push_back("same kernel runs for:");
            } else {
              auto& first = plan.entries[it->second];
              std::string& note = first.notes.back();
              note += std::string(note.back() == ':' ? " " : ", ") + layer.node + " (layer " + std::to_string(layer.layer_index) +
                      ", batch " + std::to_string(b) + ")";
            }
          }
          PlanEntry net;
          net.sweep = name;
          net.kind = EntryKind::network;
          net.op_kind = "network";
          net.op_family = "network";
          net.op = "Model";
          net.phase = mode;
          net.precision = pr;
          net.model = model;
          net.params = {{"batch", b}};
          net.labels = {{"model", model}, {"mode", mode}};
          for (const auto& l : run->layers) {
            net.flops += l.flops;
            net.bytes += l.bytes;
            net.device_bytes += l.device_bytes;
          }
          net.id = "network|" + mode + "|" + to_string(pr) + "|model=" + model + ";batch=" + std::to_string(b);
          net.network = std::move(run);
          if (seen_ids.insert(net.id).second) plan.entries.push_back(std::move(net));
        }
      }
      for (const auto& [key, index] : by_config)
        if (plan.entries[index].notes.back() == "same kernel runs for:") plan.entries[index].notes.pop_back();
    }
  }
}

}  // namespace

std::filesystem::path resolve_model_path(const std::string& model, const std::filesystem::path& plan_dir) {
  std::error_code ec;
  std::filesystem::path p(model);
  std::vector<std::filesystem::path> candidates;
  if (p.is_absolute()) {
    candidates.push_back(p);
  } else {
    if (!plan_dir.empty()) candidates.push_back(plan_dir / p);
    candidates.push_back(data_dir().parent_path() / p);
    candidates.push_back(model_dir().parent_path() / p);
  }
  for (const auto& c : candidates)
    if (std::filesystem::is_regular_file(c, ec)) return std::filesystem::absolute(c, ec).lexically_normal();
  return {};
}

Plan plan_from_json(const nlohmann::json& j, const std::string& label, const std::filesystem::path& plan_dir) {
  if (!j.is_object()) throw InputError(label + ": a plan must be a JSON object");
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer() ||
      j["schema_version"].get<int>() != k_plan_schema_version)
    throw InputError(label + ": field 'schema_version' must be " + std::to_string(k_plan_schema_version));
  static const std::set<std::string> top = {"schema_version", "name", "description", "target_minutes", "warmup",
                                            "repeats", "flush_l2", "precisions", "sweeps", "microbenchmarks"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!top.count(it.key()))
      throw InputError(label + ": unknown field '" + it.key() + "' (known: " +
                       join(std::vector<std::string>(top.begin(), top.end()), ", ") + ")");
  Plan plan;
  plan.source = j;
  plan.name = json_string(j, "name", "", label);
  if (plan.name.empty()) throw InputError(label + ": field 'name' is required");
  plan.description = json_string(j, "description", "", label);
  auto int_field = [&](const char* key, int def, int min) {
    if (!j.contains(key)) return def;
    if (!j[key].is_number_integer() || j[key].get<int>() < min)
      throw InputError(label + ": field '" + key + "' must be an integer >= " + std::to_string(min));
    return j[key].get<int>();
  };
  plan.warmup = int_field("warmup", 3, 0);
  plan.repeats = int_field("repeats", 20, 1);
  if (j.contains("flush_l2")) {
    if (!j["flush_l2"].is_boolean()) throw InputError(label + ": field 'flush_l2' must be true or false");
    plan.flush_l2 = j["flush_l2"].get<bool>();
  }
  if (j.contains("target_minutes")) {
    if (!j["target_minutes"].is_number()) throw InputError(label + ": field 'target_minutes' must be a number");
    plan.target_minutes = j["target_minutes"].get<double>();
  }
  std::vector<Precision> default_precisions{Precision::fp32};
  if (j.contains("precisions")) {
    default_precisions.clear();
    for (const auto& s : string_list(j["precisions"], label + ": field 'precisions'"))
      default_precisions.push_back(precision_from_string(s, label + ": field 'precisions'"));
  }

  std::set<std::string> seen_ids;
  int64_t dropped = 0, duplicates = 0;
  for (const char* section : {"sweeps", "microbenchmarks"}) {
    if (!j.contains(section)) continue;
    if (!j[section].is_array()) throw InputError(label + ": field '" + section + "' must be an array of sweeps");
    size_t index = 0;
    for (const auto& sw : j[section]) {
      std::string where = label + ": " + section + "[" + std::to_string(index++) + "]";
      if (!sw.is_object()) throw InputError(where + ": must be an object");
      if (sw.contains("kind")) {
        if (!sw["kind"].is_string() || (sw["kind"] != "model" && sw["kind"] != "op"))
          throw InputError(where + ": 'kind' must be \"model\" (whole ONNX models) or \"op\" (the default)");
        if (sw["kind"] == "model") {
          if (std::string(section) != "sweeps") throw InputError(where + ": model sweeps belong in 'sweeps'");
          add_model_sweep(plan, sw, where, label, plan_dir, default_precisions, seen_ids);
          continue;
        }
      }
      for (auto it = sw.begin(); it != sw.end(); ++it)
        if (it.key() == "kind") continue;
        else
        if (it.key() != "name" && it.key() != "op" && it.key() != "phases" && it.key() != "precisions" &&
            it.key() != "grid" && it.key() != "configs")
          throw InputError(where + ": unknown field '" + it.key() + "' (name, op, phases, precisions, grid, configs)");
      std::string op_kind = json_string(sw, "op", "", where);
      const OpKindInfo* info = nullptr;
      std::vector<std::string> kind_names;
      for (const auto& k : op_kinds()) {
        kind_names.push_back(k.name);
        if (op_kind == k.name) info = &k;
      }
      if (!info) throw InputError(where + ": 'op' = '" + op_kind + "' is not one of " + join(kind_names, ", "));
      if ((info->kind == EntryKind::microbench) != (std::string(section) == "microbenchmarks"))
        throw InputError(where + ": op '" + op_kind + "' belongs in '" +
                         (info->kind == EntryKind::microbench ? "microbenchmarks" : "sweeps") + "'");
      std::string name = json_string(sw, "name", op_kind, where);
      where += " (" + name + ")";
      std::vector<std::string> phases{"forward"};
      if (sw.contains("phases")) {
        phases = string_list(sw["phases"], where + ": 'phases'");
        for (const auto& ph : phases)
          if (std::find(info->phases.begin(), info->phases.end(), ph) == info->phases.end())
            throw InputError(where + ": phase '" + ph + "' does not apply to " + op_kind + " (" + join(info->phases, ", ") + ")");
      }
      std::vector<Precision> precisions = default_precisions;
      if (sw.contains("precisions")) {
        precisions.clear();
        for (const auto& s : string_list(sw["precisions"], where + ": 'precisions'"))
          precisions.push_back(precision_from_string(s, where + ": 'precisions'"));
      }
      // int8 is the inference path of convolutions (cuDNN INT8x NHWC) and GEMMs (cuBLAS IMMA/dp4a).
      const bool int8_op = op_kind == "conv" || op_kind == "gemm";
      if (sw.contains("precisions") && !int8_op)
        for (Precision pr : precisions)
          if (pr == Precision::int8)
            throw InputError(where + ": precision int8 is profiled for conv and gemm (forward) only, not " + op_kind);
      std::vector<Raw> configs{Raw{}};
      if (sw.contains("configs")) {
        if (!sw["configs"].is_array() || sw["configs"].empty())
          throw InputError(where + ": 'configs' must be a non-empty array of objects");
        configs.clear();
        for (const auto& c : sw["configs"]) {
          if (!c.is_object()) throw InputError(where + ": 'configs' must be a non-empty array of objects");
          Raw r;
          for (auto it = c.begin(); it != c.end(); ++it) r[it.key()] = it.value();
          configs.push_back(std::move(r));
        }
      }
      auto combos = grid_product(sw.contains("grid") ? sw["grid"] : nlohmann::json(), where);
      int64_t made = 0;
      for (const auto& cfg : configs)
        for (const auto& combo : combos) {
          Raw raw = combo;
          for (const auto& [key, v] : cfg) raw[key] = v;
          for (const auto& [key, v] : raw)
            if (std::find(info->keys.begin(), info->keys.end(), key) == info->keys.end())
              throw InputError(where + ": unknown key '" + key + "' for op " + op_kind + " (" + join(info->keys, ", ") + ")");
          std::vector<Precision> prs = info->uses_precision ? precisions : std::vector<Precision>{Precision::fp32};
          for (Precision pr : prs) {
            // TF32 changes only matrix products; elsewhere it is FP32 and would duplicate rows.
            bool matmul = op_kind == "conv" || op_kind == "gemm" || op_kind == "attention" || op_kind == "lstm";
            if (pr == Precision::tf32 && !matmul) continue;
            for (const auto& ph : phases) {
              if (pr == Precision::int8 && (!int8_op || ph != "forward")) continue;  // no int8 training
              PlanEntry e;
              e.sweep = name;
              e.kind = info->kind;
              e.op_kind = op_kind;
              e.phase = ph;
              e.precision = pr;
              e.has_precision = info->uses_precision;
              std::string why;
              if (!build(e, Params(raw, where), why)) {
                ++dropped;
                spdlog::debug("{}: combination dropped: {}", where, why);
                continue;
              }
              e.id = plan_entry_id(e);
              if (!seen_ids.insert(e.id).second) {
                ++duplicates;
                continue;
              }
              plan.entries.push_back(std::move(e));
              ++made;
            }
          }
        }
      if (made == 0 && dropped == 0 && duplicates == 0)
        throw InputError(where + ": expands to no entries");
    }
  }
  if (plan.entries.empty()) throw InputError(label + ": the plan has no entries (add 'sweeps' or 'microbenchmarks')");
  if (dropped) spdlog::debug("{}: {} invalid combinations dropped, {} duplicates", label, dropped, duplicates);
  return plan;
}

std::filesystem::path resolve_plan_path(const std::string& name_or_path) {
  std::error_code ec;
  std::filesystem::path p(name_or_path);
  if (std::filesystem::is_regular_file(p, ec)) return p;
  if (name_or_path.find('/') == std::string::npos && p.extension() != ".json")
    return data_dir() / "plans" / (name_or_path + ".json");
  return p;
}

Plan load_plan(const std::string& name_or_path) {
  auto path = resolve_plan_path(name_or_path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InputError("--plan " + name_or_path + ": cannot open " + path.string() +
                     " (give a plan file or a shipped plan: quick, full)");
  return plan_from_json(read_json_file(path, "plan"), path.string(), path.parent_path());
}

Shard parse_shard(const std::string& text) {
  auto parts = split(text, '/');
  if (parts.size() != 2) throw InputError("--shard '" + text + "': expected I/N, e.g. 0/4");
  Shard s;
  s.index = static_cast<int>(parse_int64(parts[0], "--shard index"));
  s.count = static_cast<int>(parse_int64(parts[1], "--shard count"));
  if (s.count < 1 || s.index < 0 || s.index >= s.count)
    throw InputError("--shard '" + text + "': need 0 <= I < N");
  return s;
}

std::vector<PlanEntry> select_shard(const std::vector<PlanEntry>& entries, Shard s) {
  std::vector<PlanEntry> out;
  for (size_t i = 0; i < entries.size(); ++i)
    if (static_cast<int64_t>(i % static_cast<size_t>(s.count)) == s.index) out.push_back(entries[i]);
  return out;
}

std::vector<PlanEntry> filter_precisions(const std::vector<PlanEntry>& entries, const std::vector<Precision>& keep) {
  if (keep.empty()) return entries;
  std::vector<PlanEntry> out;
  for (const auto& e : entries)
    if (!e.has_precision || std::find(keep.begin(), keep.end(), e.precision) != keep.end()) out.push_back(e);
  return out;
}

}  // namespace perfpred

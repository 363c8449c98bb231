#include "shape_rules.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "perfpred/util/checked_math.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::onnx_import::detail {

namespace {

using Shape = std::vector<int64_t>;
constexpr int64_t U = k_unknown_dim;

bool known(const Shape& s) {
  return std::all_of(s.begin(), s.end(), [](int64_t d) { return d >= 0; });
}

std::optional<int64_t> numel_of(const Shape& s) {
  if (!known(s)) return std::nullopt;
  return checked_product(s);
}

const Tensor* shaped(const Tensor* t) { return t && t->has_shape ? t : nullptr; }

Tensor* out_tensor(Graph& g, const Node& n, size_t i) {
  if (i >= n.outputs.size() || n.outputs[i] < 0) return nullptr;
  return &g.tensors[static_cast<size_t>(n.outputs[i])];
}

std::optional<std::vector<int64_t>> ints_of(const Tensor* t) {
  if (!t) return std::nullopt;
  if (t->int_values) return *t->int_values;
  if (t->float_values) {
    std::vector<int64_t> v;
    for (double d : *t->float_values) {
      if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18) return std::nullopt;
      v.push_back(static_cast<int64_t>(d));
    }
    return v;
  }
  return std::nullopt;
}

std::optional<std::vector<double>> doubles_of(const Tensor* t) {
  if (!t) return std::nullopt;
  if (t->float_values) return *t->float_values;
  if (t->int_values) return std::vector<double>(t->int_values->begin(), t->int_values->end());
  return std::nullopt;
}

bool has_values(const Tensor* t) { return t && (t->int_values || t->float_values); }

std::optional<int64_t> scalar_int(const Tensor* t) {
  auto v = ints_of(t);
  if (!v || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

// Merge a derived shape into a tensor: fills unknown rank or unknown dims, never overrides a known dim.
bool set_shape(Tensor& t, const Shape& s) {
  if (!t.has_shape) {
    t.has_shape = true;
    t.shape = s;
    return true;
  }
  if (t.shape.size() != s.size()) return false;
  bool changed = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (t.shape[i] < 0 && s[i] >= 0) {
      t.shape[i] = s[i];
      changed = true;
    }
  }
  return changed;
}

bool set_dtype(Tensor& t, DType d) {
  if (t.dtype == DType::unknown && d != DType::unknown) {
    t.dtype = d;
    return true;
  }
  return false;
}

// Both of a tensor's facts at once; both setters always run (whether either changed decides another pass).
bool set_type(Tensor& t, DType d, const Shape& s) {
  const bool dtype_changed = set_dtype(t, d);
  const bool shape_changed = set_shape(t, s);
  return dtype_changed || shape_changed;
}

bool same_shape(const Tensor& t, const Shape& s) { return t.has_shape && t.shape == s; }

// Store folded integer values (and their shape) on an output.
bool set_int_values(Tensor& t, const Shape& s, std::vector<int64_t> v) {
  bool changed = set_shape(t, s);
  if (!same_shape(t, s)) return changed;
  auto n = numel_of(s);
  if (!n || *n != static_cast<int64_t>(v.size()) || *n > k_max_fold_elems) return changed;
  if (t.int_values || t.float_values) return changed;
  if (t.dtype == DType::unknown) t.dtype = DType::i64;
  if (is_integral(t.dtype)) {
    if (t.dtype == DType::boolean)
      for (auto& x : v) x = x != 0;
    t.int_values = std::move(v);
  } else {
    t.float_values = std::vector<double>(v.begin(), v.end());
  }
  return true;
}

bool set_double_values(Tensor& t, const Shape& s, const std::vector<double>& v) {
  bool changed = set_shape(t, s);
  if (!same_shape(t, s)) return changed;
  auto n = numel_of(s);
  if (!n || *n != static_cast<int64_t>(v.size()) || *n > k_max_fold_elems) return changed;
  if (t.int_values || t.float_values) return changed;
  if (t.dtype == DType::unknown) t.dtype = DType::f32;
  if (is_integral(t.dtype)) {
    std::vector<int64_t> iv;
    for (double d : v) {
      if (!std::isfinite(d) || std::fabs(d) > 9.0e18) return changed;
      iv.push_back(t.dtype == DType::boolean ? (d != 0) : static_cast<int64_t>(std::trunc(d)));
    }
    t.int_values = std::move(iv);
  } else {
    t.float_values = v;
  }
  return true;
}

int64_t norm_axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// Multidirectional (numpy) broadcast; nullopt when two known dims disagree.
std::optional<Shape> broadcast(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = 1;
    bool unknown = false;
    for (const auto& s : shapes) {
      if (s.size() + i < rank) continue;
      int64_t x = s[i - (rank - s.size())];
      if (x < 0) {
        unknown = true;
      } else if (x != 1) {
        if (d != 1 && d != x) return std::nullopt;
        d = x;
      }
    }
    out[i] = (d == 1 && unknown) ? U : d;
  }
  return out;
}

// Row-major strides of `in` seen through a broadcast to `out` (0 on broadcast dims).
std::vector<int64_t> bcast_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> st(out.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    size_t i = in.size() - 1 - k;
    size_t o = out.size() - 1 - k;
    st[o] = in[i] == 1 ? 0 : s;
    s *= in[i];
  }
  return st;
}

// Flat index into an input for each flat output index under broadcasting.
std::vector<int64_t> bcast_index(const Shape& in, const Shape& out) {
  auto st = bcast_strides(in, out);
  int64_t n = *checked_product(out);
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t f = 0; f < n; ++f) {
    int64_t rem = f, src = 0;
    for (size_t d = out.size(); d-- > 0;) {
      int64_t c = rem % out[d];
      rem /= out[d];
      src += c * st[d];
    }
    idx[static_cast<size_t>(f)] = src;
  }
  return idx;
}

const std::unordered_set<std::string> k_same_shape_ops = {
    "Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "Erf", "Gelu", "HardSwish", "HardSigmoid", "Softplus",
    "Softsign", "Clip", "Mish", "Elu", "Selu", "Celu", "ThresholdedRelu", "Exp", "Log", "Sqrt", "Reciprocal",
    "Neg", "Abs", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
    "Asinh", "Acosh", "Atanh", "Not", "Identity", "Dropout", "Softmax", "LogSoftmax", "Hardmax",
    "BatchNormalization", "InstanceNormalization", "LRN", "LpNormalization", "MeanVarianceNormalization",
    "LayerNormalization", "GroupNormalization", "Shrink", "IsNaN", "IsInf", "CumSum", "Trilu", "Cast", "CastLike",
    "QuantizeLinear", "DequantizeLinear", "Bernoulli", "RandomNormalLike", "RandomUniformLike", "EyeLike",
    "BitwiseNot", "ScatterND", "ScatterElements", "Scatter", "Swish", "FastGelu", "BiasGelu", "QuickGelu",
    "SkipLayerNormalization", "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization", "RotaryEmbedding",
    "RMSNormalization", "ReverseSequence", "CumProd", "TensorScatter", "BitCast"};

const std::unordered_set<std::string> k_broadcast_ops = {
    "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And",
    "Or", "Xor", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Max", "Min", "Sum", "Mean", "Where"};

const std::unordered_set<std::string> k_bool_ops = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                                    "And", "Or", "Xor", "Not", "IsNaN", "IsInf"};

std::optional<double> fold_binary(const std::string& op, double a, double b, bool integral, int64_t fmod) {
  if (op == "Add" || op == "Sum") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") {
    if (b == 0) return std::nullopt;
    return integral ? std::trunc(a / b) : a / b;
  }
  if (op == "Pow") return std::pow(a, b);
  if (op == "Mod") {
    if (b == 0) return std::nullopt;
    if (fmod || !integral) return std::fmod(a, b);
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Mean") return (a + b) / 2;  // only two-input Mean is folded
  if (op == "Equal") return a == b ? 1.0 : 0.0;
  if (op == "Less") return a < b ? 1.0 : 0.0;
  if (op == "Greater") return a > b ? 1.0 : 0.0;
  if (op == "LessOrEqual") return a <= b ? 1.0 : 0.0;
  if (op == "GreaterOrEqual") return a >= b ? 1.0 : 0.0;
  if (op == "And") return (a != 0 && b != 0) ? 1.0 : 0.0;
  if (op == "Or") return (a != 0 || b != 0) ? 1.0 : 0.0;
  if (op == "Xor") return ((a != 0) != (b != 0)) ? 1.0 : 0.0;
  return std::nullopt;
}

std::optional<int64_t> fold_binary_int(const std::string& op, int64_t a, int64_t b, int64_t fmod) {
  auto chk = [](std::optional<int64_t> v) { return v; };
  if (op == "Add" || op == "Sum") return chk(checked_add(a, b));
  if (op == "Sub") return chk(checked_add(a, -b));
  if (op == "Mul") return chk(checked_mul(a, b));
  if (op == "Div") return b == 0 ? std::nullopt : std::optional<int64_t>(a / b);
  if (op == "Mod") {
    if (b == 0) return std::nullopt;
    int64_t r = a % b;
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  if (op == "And") return a != 0 && b != 0;
  if (op == "Or") return a != 0 || b != 0;
  if (op == "Xor") return (a != 0) != (b != 0);
  if (op == "BitwiseAnd") return a & b;
  if (op == "BitwiseOr") return a | b;
  if (op == "BitwiseXor") return a ^ b;
  if (op == "Pow") {
    if (b < 0 || b > 62) return std::nullopt;
    int64_t r = 1;
    for (int64_t i = 0; i < b; ++i) {
      auto m = checked_mul(r, a);
      if (!m) return std::nullopt;
      r = *m;
    }
    return r;
  }
  return std::nullopt;
}

std::optional<double> fold_unary(const std::string& op, double a) {
  if (op == "Identity" || op == "Cast" || op == "CastLike") return a;
  if (op == "Neg") return -a;
  if (op == "Abs") return std::fabs(a);
  if (op == "Floor") return std::floor(a);
  if (op == "Ceil") return std::ceil(a);
  if (op == "Round") return std::nearbyint(a);
  if (op == "Sqrt") return a < 0 ? std::nullopt : std::optional<double>(std::sqrt(a));
  if (op == "Reciprocal") return a == 0 ? std::nullopt : std::optional<double>(1.0 / a);
  if (op == "Not") return a == 0 ? 1.0 : 0.0;
  if (op == "Sign") return a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0;
  if (op == "Relu") return std::max(a, 0.0);
  if (op == "Exp") return std::exp(a);
  if (op == "Log") return a <= 0 ? std::nullopt : std::optional<double>(std::log(a));
  return std::nullopt;
}

// Output spatial size of a convolution/pooling window.
int64_t window_out(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb, int64_t pe,
                   const std::string& auto_pad, bool ceil_mode) {
  if (in < 0 || k < 0) return U;
  if (stride <= 0) stride = 1;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") return (in + stride - 1) / stride;
  int64_t eff = dil * (k - 1) + 1;
  if (auto_pad == "VALID") pb = pe = 0;
  int64_t span = in + pb + pe - eff;
  if (span < 0) return U;
  int64_t o = ceil_mode ? (span + stride - 1) / stride + 1 : span / stride + 1;
  // ceil_mode: the last window must start inside the input or left padding
  if (ceil_mode && (o - 1) * stride >= in + pb) --o;
  return o;
}

bool conv_like(Graph& g, Node& n, Tensor& o) {
  const Tensor* x = shaped(g.input(n, 0));
  if (!x || x->shape.size() < 3) return false;
  const Shape& xs = x->shape;
  size_t sp = xs.size() - 2;
  Shape kernel = n.attr_ints("kernel_shape");
  int64_t out_c = U;
  const bool is_conv = n.op == "Conv" || n.op == "ConvInteger" || n.op == "QLinearConv" || n.op == "FusedConv" ||
                       n.op == "DeformConv";
  const bool is_tconv = n.op == "ConvTranspose";
  if (is_conv || is_tconv) {
    const Tensor* w = shaped(g.input(n, n.op == "QLinearConv" ? 3 : 1));
    if (w && w->shape.size() == xs.size()) {
      if (kernel.empty()) kernel.assign(w->shape.begin() + 2, w->shape.end());
      int64_t grp = n.attr_int("group", 1);
      out_c = is_tconv ? (w->shape[1] < 0 ? U : w->shape[1] * grp) : w->shape[0];
    }
  } else {
    out_c = xs[1];
  }
  if (kernel.size() != sp) return false;
  Shape strides = n.attr_ints("strides", Shape(sp, 1));
  Shape dil = n.attr_ints("dilations", Shape(sp, 1));
  Shape pads = n.attr_ints("pads", Shape(2 * sp, 0));
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) return false;
  std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  bool ceil_mode = n.attr_int("ceil_mode", 0) != 0;
  Shape s{xs[0], out_c};
  if (is_tconv) {
    Shape out_shape = n.attr_ints("output_shape");
    Shape out_pad = n.attr_ints("output_padding", Shape(sp, 0));
    for (size_t i = 0; i < sp; ++i) {
      if (out_shape.size() == sp) {
        s.push_back(out_shape[i]);
      } else if (xs[2 + i] < 0 || out_pad.size() != sp) {
        s.push_back(U);
      } else {
        int64_t total = strides[i] * (xs[2 + i] - 1) + out_pad[i] + (kernel[i] - 1) * dil[i] + 1;
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")
          s.push_back(xs[2 + i] * strides[i]);
        else
          s.push_back(total - pads[i] - pads[sp + i]);
      }
    }
  } else {
    for (size_t i = 0; i < sp; ++i)
      s.push_back(window_out(xs[2 + i], kernel[i], strides[i], dil[i], pads[i], pads[sp + i], auto_pad, ceil_mode));
  }
  return set_shape(o, s);
}

// Slice parameters for one axis: returns output length, and start/step for value folding.
struct SliceAxis {
  int64_t start = 0, step = 1, len = 0;
};

std::optional<SliceAxis> slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (dim < 0 || step == 0) return std::nullopt;
  SliceAxis a;
  a.step = step;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    a.len = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    a.len = start > end ? (start - end + (-step) - 1) / (-step) : 0;
  }
  a.start = start;
  return a;
}

// Gather values of an n-d tensor at per-output-dim coordinates given by index lists.
template <typename T>
std::vector<T> gather_nd_coords(const std::vector<T>& data, const Shape& ds, const std::vector<std::vector<int64_t>>& coords) {
  Shape os;
  for (auto& c : coords) os.push_back(static_cast<int64_t>(c.size()));
  int64_t n = *checked_product(os);
  std::vector<int64_t> st(ds.size(), 1);
  for (size_t d = ds.size(); d-- > 1;) st[d - 1] = st[d] * ds[d];
  std::vector<T> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t f = 0; f < n; ++f) {
    int64_t rem = f, src = 0;
    for (size_t d = os.size(); d-- > 0;) {
      int64_t c = rem % os[d];
      rem /= os[d];
      src += coords[d][static_cast<size_t>(c)] * st[d];
    }
    out.push_back(data[static_cast<size_t>(src)]);
  }
  return out;
}

bool fold_gather_values(Tensor& o, const Tensor& data, const Tensor& idx, int64_t axis, const Shape& os) {
  auto iv = ints_of(&idx);
  if (!iv || !data.shape_known() || !idx.shape_known() || !known(os)) return false;
  const Shape& ds = data.shape;
  int64_t outer = *checked_product(Shape(ds.begin(), ds.begin() + axis));
  int64_t inner = *checked_product(Shape(ds.begin() + axis + 1, ds.end()));
  int64_t dim = ds[static_cast<size_t>(axis)];
  std::vector<int64_t> src;
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t k : *iv) {
      if (k < 0) k += dim;
      if (k < 0 || k >= dim) return false;
      for (int64_t b = 0; b < inner; ++b) src.push_back((a * dim + k) * inner + b);
    }
  if (data.int_values) {
    std::vector<int64_t> v;
    for (int64_t s : src) v.push_back((*data.int_values)[static_cast<size_t>(s)]);
    return set_int_values(o, os, v);
  }
  if (data.float_values) {
    std::vector<double> v;
    for (int64_t s : src) v.push_back((*data.float_values)[static_cast<size_t>(s)]);
    return set_double_values(o, os, v);
  }
  return false;
}

// The element count the user set for a data-dependent node (Graph::data_counts), capped at `upper` (>= 0);
// nullopt where none is set.
std::optional<int64_t> data_count(const Graph& g, const Node& n, int64_t upper) {
  auto it = g.data_counts.find(n.name);
  const int64_t v = it != g.data_counts.end() ? it->second : g.data_count_all;
  if (v < 0 || upper < 0) return std::nullopt;
  return std::min(v, upper);
}

// A Gather of known dims out of a Shape whose other dims are not known: `x.size(1)` of an [N, 1] tensor whose N
// depends on the data (the boxes NMS keeps) is still 1, and torchvision's exported detection models decide an If
// on it. The dims picked by constant indices, when each of those is known; nullopt otherwise.
std::optional<std::vector<int64_t>> gathered_shape_dims(const Graph& g, const Node& n, const Tensor& x,
                                                        const Tensor& idx) {
  if (x.shape.size() != 1 || x.shape[0] < 0 || n.attr_int("axis", 0) != 0 || n.inputs.empty()) return std::nullopt;
  const auto picks = ints_of(&idx);
  if (!picks) return std::nullopt;
  const int data = n.inputs[0];
  for (const Node& p : g.nodes) {
    if (p.op != "Shape" || std::find(p.outputs.begin(), p.outputs.end(), data) == p.outputs.end()) continue;
    const Tensor* src = shaped(g.input(p, 0));
    if (!src) return std::nullopt;
    const int64_t r = static_cast<int64_t>(src->shape.size());
    const int64_t start = std::clamp<int64_t>(norm_axis(p.attr_int("start", 0), r), 0, r);
    const int64_t end = std::clamp<int64_t>(norm_axis(p.attr_int("end", r), r), 0, r);
    std::vector<int64_t> dims;
    for (int64_t i : *picks) {
      const int64_t k = i < 0 ? i + (end - start) : i;
      if (k < 0 || k >= end - start) return std::nullopt;
      const int64_t d = src->shape[static_cast<size_t>(start + k)];
      if (d < 0) return std::nullopt;
      dims.push_back(d);
    }
    return dims;
  }
  return std::nullopt;
}

// Values of a reduction over a small constant (shape arithmetic: torchvision's detection transform takes the
// min and max of an image's size to scale it, a box count's ReduceProd decides an If). Min, max, sum, product
// and mean; the other reductions (norms, log-sum-exp) are left unfolded.
bool fold_reduce(const std::string& op, const Tensor& x, const std::set<int64_t>& axes, const Shape& out_shape,
                 Tensor& o) {
  static const std::set<std::string> folded = {"ReduceMin", "ReduceMax", "ReduceSum", "ReduceProd", "ReduceMean"};
  if (!folded.count(op) || !x.shape_known() || !has_values(&x) || !known(out_shape)) return false;
  const auto v = doubles_of(&x);
  const auto out_n = numel_of(out_shape);
  if (!v || !out_n || v->empty()) return false;
  const size_t rank = x.shape.size();
  std::vector<double> acc(static_cast<size_t>(*out_n), 0.0);
  std::vector<int64_t> count(acc.size(), 0);
  std::vector<int64_t> idx(rank, 0);
  for (size_t f = 0; f < v->size(); ++f) {
    // Output position: the input's index with the reduced axes dropped (their size-1 kept dims add nothing).
    int64_t pos = 0;
    for (size_t d = 0; d < rank; ++d)
      if (!axes.count(static_cast<int64_t>(d))) pos = pos * x.shape[d] + idx[d];
    double& a = acc[static_cast<size_t>(pos)];
    const double y = (*v)[f];
    if (count[static_cast<size_t>(pos)]++ == 0) a = y;
    else if (op == "ReduceMin") a = std::min(a, y);
    else if (op == "ReduceMax") a = std::max(a, y);
    else if (op == "ReduceProd") a *= y;
    else a += y;  // ReduceSum, ReduceMean
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < x.shape[d]) break;
      idx[d] = 0;
    }
  }
  if (op == "ReduceMean")
    for (size_t i = 0; i < acc.size(); ++i) acc[i] /= static_cast<double>(count[i]);
  if (is_integral(x.dtype) && op != "ReduceMean") {
    std::vector<int64_t> iv;
    for (double d : acc) {
      if (!std::isfinite(d) || std::fabs(d) > 9.0e18) return false;
      iv.push_back(static_cast<int64_t>(d));
    }
    return set_int_values(o, out_shape, iv);
  }
  return set_double_values(o, out_shape, acc);
}

bool infer_reduce(Graph& g, Node& n, Tensor& o) {
  const Tensor* x = shaped(g.input(n, 0));
  if (!x) return false;
  int64_t rank = static_cast<int64_t>(x->shape.size());
  std::optional<std::vector<int64_t>> axes;
  if (n.has_attr("axes")) {
    axes = n.attr_ints("axes");
  } else if (g.input(n, 1)) {
    axes = ints_of(g.input(n, 1));
    if (!axes) return false;
  } else {
    axes = std::vector<int64_t>{};
  }
  bool keep = n.attr_int("keepdims", 1) != 0;
  bool noop = n.attr_int("noop_with_empty_axes", 0) != 0;
  std::set<int64_t> ax;
  if (axes->empty()) {
    if (noop) return set_shape(o, x->shape);
    for (int64_t i = 0; i < rank; ++i) ax.insert(i);
  }
  for (int64_t a : *axes) ax.insert(norm_axis(a, rank));
  Shape s;
  for (int64_t i = 0; i < rank; ++i) {
    if (ax.count(i)) {
      if (keep) s.push_back(1);
    } else {
      s.push_back(x->shape[static_cast<size_t>(i)]);
    }
  }
  const bool changed = set_shape(o, s);
  return fold_reduce(n.op, *x, ax, s, o) || changed;
}

// Explicit or implicit equations, with "..." broadcast right-aligned across the operands (a 1 gives way).
// Anything the equation does not pin down (a term that does not fit its input's rank, an output letter no
// input has) infers nothing: validate_node and the analysis say what is wrong.
bool infer_einsum(Graph& g, Node& n, Tensor& o) {
  const std::string eq = einsum_explicit(n.attr_string("equation", ""));
  const auto arrow = eq.find("->");
  if (arrow == std::string::npos) return false;
  const std::string lhs = eq.substr(0, arrow), rhs = eq.substr(arrow + 2);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    auto c = lhs.find(',', start);
    terms.push_back(lhs.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  if (terms.size() != n.inputs.size()) return false;
  auto merge = [](int64_t& s, int64_t d) {
    if (s < 0 || s == 1) s = d;
  };
  std::map<char, int64_t> dims;
  Shape ellipsis;  // the broadcast "..." dims
  for (size_t i = 0; i < terms.size(); ++i) {
    const Tensor* t = shaped(g.input(n, i));
    const std::string& term = terms[i];
    const size_t dot = term.find('.');
    const bool has_ellipsis = dot != std::string::npos;
    if (has_ellipsis && (term.compare(dot, 3, "...") != 0 || term.find('.', dot + 3) != std::string::npos)) return false;
    const size_t letters = term.size() - (has_ellipsis ? 3 : 0);
    if (!t || t->shape.size() < letters || (!has_ellipsis && t->shape.size() != letters)) return false;
    const size_t ell_rank = t->shape.size() - letters;
    if (ell_rank > ellipsis.size()) ellipsis.insert(ellipsis.begin(), ell_rank - ellipsis.size(), 1);
    size_t axis = 0;
    for (size_t k = 0; k < term.size(); ++k) {
      if (term[k] == '.') {
        for (size_t j = 0; j < ell_rank; ++j) {
          const int64_t d = t->shape[axis++];
          if (d != 1) merge(ellipsis[ellipsis.size() - ell_rank + j], d);
        }
        k += 2;
        continue;
      }
      const int64_t d = t->shape[axis++];
      auto it = dims.find(term[k]);
      if (it == dims.end()) dims[term[k]] = d;
      else merge(it->second, d);
    }
  }
  Shape s;
  for (size_t k = 0; k < rhs.size(); ++k) {
    if (rhs[k] == '.') {
      if (rhs.compare(k, 3, "...") != 0) return false;
      s.insert(s.end(), ellipsis.begin(), ellipsis.end());
      k += 2;
      continue;
    }
    auto it = dims.find(rhs[k]);
    if (it == dims.end()) return false;
    s.push_back(it->second);
  }
  return set_shape(o, s);
}

bool infer_rnn(Graph& g, Node& n) {
  const Tensor* x = shaped(g.input(n, 0));
  int64_t hidden = n.attr_int("hidden_size", U);
  if (!x || x->shape.size() != 3 || hidden < 0) return false;
  std::string dir = n.attr_string("direction", "forward");
  int64_t dirs = dir == "bidirectional" ? 2 : 1;
  bool batch_first = n.attr_int("layout", 0) != 0;
  int64_t seq = batch_first ? x->shape[1] : x->shape[0];
  int64_t batch = batch_first ? x->shape[0] : x->shape[1];
  bool ch = false;
  DType dt = x->dtype;
  if (Tensor* y = out_tensor(g, n, 0)) {
    ch |= set_dtype(*y, dt);
    ch |= set_shape(*y, batch_first ? Shape{batch, seq, dirs, hidden} : Shape{seq, dirs, batch, hidden});
  }
  for (size_t i = 1; i < 3; ++i)
    if (Tensor* y = out_tensor(g, n, i)) {
      ch |= set_dtype(*y, dt);
      ch |= set_shape(*y, batch_first ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden});
    }
  return ch;
}

// com.microsoft Attention: input [B, S, in], weights [in, q + k + v] (qkv_hidden_sizes, else three
// equal parts), optional past [2, B, heads, P, head]; output [B, S, v], present [2, B, heads, P + S, head].
bool infer_ms_attention(Graph& g, Node& n) {
  const Tensor* x = shaped(g.input(n, 0));
  const Tensor* w = shaped(g.input(n, 1));
  if (!x || !w || x->shape.size() != 3 || w->shape.size() != 2) return false;
  const int64_t heads = n.attr_int("num_heads", 0);
  Shape qkv = n.attr_ints("qkv_hidden_sizes");
  if (qkv.size() != 3) {
    if (w->shape[1] < 0) return false;
    qkv.assign(3, w->shape[1] / 3);
  }
  bool ch = false;
  Tensor* o = out_tensor(g, n, 0);
  if (o) {
    ch |= set_dtype(*o, x->dtype);
    ch |= set_shape(*o, Shape{x->shape[0], x->shape[1], qkv[2]});
  }
  Tensor* present = out_tensor(g, n, 1);
  if (present && heads > 0) {
    int64_t past = 0;
    if (const Tensor* p = shaped(g.input(n, 4))) past = p->shape.size() == 5 ? p->shape[3] : U;
    const int64_t total = past < 0 || x->shape[1] < 0 ? U : past + x->shape[1];
    ch |= set_dtype(*present, x->dtype);
    ch |= set_shape(*present, Shape{2, x->shape[0], heads, total, qkv[2] / heads});
  }
  return ch;
}

// com.microsoft MultiHeadAttention: query [B, S, D]; key and value [B, L, D] (then past_key/past_value, inputs 6
// and 7, [B, N, P, H] come before them) or already split into heads [B, N, L, H]; output [B, S, N * Hv],
// present_key/value [B, N, P + L, H]. GroupQueryAttention: query [B, S, N * H] and key/value [B, S, kvN * H] (or
// one packed query [B, S, (N + 2 kvN) * H]), past_key/value [B, kvN, P, H] (inputs 3 and 4), the total length
// as input 6: present [B, kvN, max(P, total), H], output [B, S, N * H].
bool infer_ms_mha_gqa(Graph& g, Node& n) {
  const Tensor* q = shaped(g.input(n, 0));
  const int64_t heads = n.attr_int("num_heads", 0);
  if (!q || q->shape.size() != 3 || heads < 1) return false;
  const int64_t b = q->shape[0], s = q->shape[1], d = q->shape[2];
  const DType dt = q->dtype;
  bool ch = false;
  auto put = [&](size_t slot, const Shape& shape) {
    if (Tensor* t = out_tensor(g, n, slot)) ch |= set_type(*t, dt, shape);
  };
  auto mul = [](int64_t a, int64_t c) { return a < 0 || c < 0 ? U : a * c; };
  auto div = [](int64_t a, int64_t c) { return a < 0 || c <= 0 ? U : a / c; };
  if (n.op == "GroupQueryAttention") {
    const int64_t kv_heads = n.attr_int("kv_num_heads", 0);
    if (kv_heads < 1) return false;
    const bool packed = !g.input(n, 1);
    const int64_t h = div(d, packed ? heads + 2 * kv_heads : heads);
    put(0, Shape{b, s, mul(heads, h)});
    int64_t past = 0;
    if (const Tensor* p = shaped(g.input(n, 3))) past = p->shape.size() == 4 ? p->shape[2] : U;
    const auto total = scalar_int(g.input(n, 6));
    const int64_t t = total ? (past < 0 ? *total : std::max(past, *total)) : U;
    put(1, Shape{b, kv_heads, t, h});
    put(2, Shape{b, kv_heads, t, h});
    return ch;
  }
  const Tensor* k = shaped(g.input(n, 1));
  const Tensor* v = shaped(g.input(n, 2));
  if (!k || !v || k->shape.size() != v->shape.size()) return false;
  const bool split = k->shape.size() == 4;  // [B, N, L, H]: no past joins it
  if (!split && k->shape.size() != 3) return false;
  const int64_t len = split ? k->shape[2] : k->shape[1];
  const int64_t hk = split ? k->shape[3] : div(k->shape[2], heads);
  const int64_t hv = split ? v->shape[3] : div(v->shape[2], heads);
  int64_t past = 0;
  if (const Tensor* p = shaped(g.input(n, 6)); p && !split) past = p->shape.size() == 4 ? p->shape[2] : U;
  const int64_t t = past < 0 || len < 0 ? U : past + len;
  put(0, Shape{b, s, mul(heads, hv)});
  put(1, Shape{b, heads, t, hk});
  put(2, Shape{b, heads, t, hv});
  return ch;
}

// ONNX Attention (opsets 23-24): Q [B, S, q_num_heads * H] or [B, qN, S, H]; K, V [B, L, kv_num_heads * H] or
// [B, kvN, L, H]; past_key/value [B, kvN, P, H] (inputs 4, 5). Y has Q's rank, [B, S, qN * Hv] or [B, qN, S, Hv];
// present_key/value [B, kvN, P + L, H]; qk_matmul_output [B, qN, S, P + L]. Attention-24's nonpad_kv_seqlen
// (input 6: how much of a TensorScatter-written cache each row uses) masks keys and changes no shape.
bool infer_onnx_attention(Graph& g, Node& n) {
  const Tensor* q = shaped(g.input(n, 0));
  const Tensor* k = shaped(g.input(n, 1));
  const Tensor* v = shaped(g.input(n, 2));
  if (!q || !k || !v) return false;
  const size_t rq = q->shape.size(), rk = k->shape.size();
  if ((rq != 3 && rq != 4) || (rk != 3 && rk != 4) || v->shape.size() != rk) return false;
  auto heads_of = [&](const Shape& x, const char* attr, int64_t& heads, int64_t& len, int64_t& size) {
    if (x.size() == 4) {
      heads = x[1], len = x[2], size = x[3];
      return true;
    }
    heads = n.attr_int(attr, 0);
    if (heads < 1) return false;
    len = x[1], size = x[2] < 0 ? U : x[2] / heads;
    return true;
  };
  int64_t qn = 0, s = 0, hq = 0, kvn = 0, l = 0, hk = 0, vn = 0, lv = 0, hv = 0;
  if (!heads_of(q->shape, "q_num_heads", qn, s, hq) || !heads_of(k->shape, "kv_num_heads", kvn, l, hk) ||
      !heads_of(v->shape, "kv_num_heads", vn, lv, hv))
    return false;
  int64_t past = 0;
  if (const Tensor* p = shaped(g.input(n, 4))) past = p->shape.size() == 4 ? p->shape[2] : U;
  const int64_t t = past < 0 || l < 0 ? U : past + l;
  const int64_t b = q->shape[0];
  bool ch = false;
  auto put = [&](size_t slot, const Shape& shape) {
    if (Tensor* o = out_tensor(g, n, slot)) ch |= set_type(*o, q->dtype, shape);
  };
  put(0, rq == 3 ? Shape{b, s, qn < 0 || hv < 0 ? U : qn * hv} : Shape{b, qn, s, hv});
  put(1, Shape{b, kvn, t, hk});
  put(2, Shape{b, kvn, t, hv});
  put(3, Shape{b, qn, s, t});
  return ch;
}

// Opset-17 audio front ends, MaxUnpool and the training losses, whose sizes come from scalar inputs or reduction
// attributes that ONNX 1.12's inference leaves unknown without data propagation:
// - HannWindow/HammingWindow/BlackmanWindow: [size]; MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins], both
//   typed by output_datatype (default float);
// - STFT: signal [B, L, 1 or 2], frame_step, window [W], frame_length -> [B, (L - W) / step + 1, bins, 2], bins
//   W / 2 + 1 when onesided (the default), else W;
// - MaxUnpool: output_shape (input 2) when given, else (in - 1) * stride + kernel - pads a spatial dim;
// - SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss: [] under reduction mean or sum (the default mean), the
//   target's shape under none; SoftmaxCrossEntropyLoss's log_prob is the scores' shape.
bool infer_audio_unpool_loss(Graph& g, Node& n, Tensor& o) {
  const std::string& op = n.op;
  bool ch = false;
  if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") {  // typed in infer_node
    const auto size = scalar_int(g.input(n, 0));
    return size ? ch | set_shape(o, Shape{*size}) : ch;
  }
  if (op == "MelWeightMatrix") {
    const auto bins = scalar_int(g.input(n, 0)), dft = scalar_int(g.input(n, 1));
    return bins && dft ? ch | set_shape(o, Shape{*dft / 2 + 1, *bins}) : ch;
  }
  const Tensor* x = shaped(g.input(n, 0));
  if (!x) return false;
  const Shape& xs = x->shape;
  if (op == "STFT") {
    if (xs.size() != 3) return false;
    int64_t len = U;
    if (const auto fl = scalar_int(g.input(n, 3))) len = *fl;
    else if (const Tensor* w = shaped(g.input(n, 2)); w && w->shape.size() == 1) len = w->shape[0];
    const auto step = scalar_int(g.input(n, 1));
    const int64_t frames = len < 1 || !step || *step < 1 || xs[1] < 0 || xs[1] < len ? U : (xs[1] - len) / *step + 1;
    const int64_t bins = len < 1 ? U : n.attr_int("onesided", 1) ? len / 2 + 1 : len;
    return set_shape(o, Shape{xs[0], frames, bins, 2});
  }
  if (op == "MaxUnpool") {
    if (xs.size() < 3) return false;
    const size_t sp = xs.size() - 2;
    if (const auto given = ints_of(g.input(n, 2)); given && given->size() == xs.size()) return set_shape(o, *given);
    Shape kernel = n.attr_ints("kernel_shape");
    Shape strides = n.attr_ints("strides", Shape(sp, 1));
    Shape pads = n.attr_ints("pads", Shape(2 * sp, 0));
    if (kernel.size() != sp || strides.size() != sp || pads.size() != 2 * sp) return false;
    Shape s{xs[0], xs[1]};
    for (size_t i = 0; i < sp; ++i)
      s.push_back(xs[2 + i] < 0 ? U : (xs[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[sp + i]);
    return set_shape(o, s);
  }
  // The losses: scores or log-probabilities [N, C, d1, ...], target [N, d1, ...].
  const std::string reduction = n.attr_string("reduction", "mean");
  if (reduction == "none") {
    if (const Tensor* target = shaped(g.input(n, 1))) ch |= set_shape(o, target->shape);
  } else {
    ch |= set_shape(o, Shape{});
  }
  if (op == "SoftmaxCrossEntropyLoss")
    if (Tensor* log_prob = out_tensor(g, n, 1)) ch |= set_type(*log_prob, x->dtype, xs);
  return ch;
}

// Ops of opsets 17-20 that the ONNX library (1.12) shapes wrongly or not at all: CenterCropPad-18,
// Col2Im-18, AffineGrid-20, GridSample-16/20 (N-D) and DFT-17/20 (axis and dft_length as inputs from 20).
bool infer_signal_and_grid(Graph& g, Node& n, Tensor& o) {
  const Tensor* x = shaped(g.input(n, 0));
  if (!x) return false;
  const Shape& xs = x->shape;
  const int64_t r = static_cast<int64_t>(xs.size());
  if (n.op == "CenterCropPad") {  // the axes' dims become the shape input's values
    auto shape = ints_of(g.input(n, 1));
    if (!shape) return false;
    Shape axes = n.attr_ints("axes");
    if (axes.empty())
      for (int64_t i = 0; i < r; ++i) axes.push_back(i);
    if (axes.size() != shape->size()) return false;
    Shape s = xs;
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = norm_axis(axes[i], r);
      if (a < 0 || a >= r) return false;
      s[static_cast<size_t>(a)] = (*shape)[i];
    }
    return set_shape(o, s);
  }
  if (n.op == "Col2Im") {  // [N, C * prod(block), L] -> [N, C, *image_shape]
    auto image = ints_of(g.input(n, 1));
    auto block = ints_of(g.input(n, 2));
    if (!image || !block || r != 3 || block->empty()) return false;
    int64_t kprod = 1;
    for (int64_t b : *block) kprod = b > 0 ? kprod * b : U;
    Shape s{xs[0], kprod > 0 && xs[1] >= 0 ? xs[1] / kprod : U};
    s.insert(s.end(), image->begin(), image->end());
    return set_shape(o, s);
  }
  if (n.op == "AffineGrid") {  // size [N, C, H, W] -> [N, H, W, 2]; [N, C, D, H, W] -> [N, D, H, W, 3]
    auto size = ints_of(g.input(n, 1));
    if (!size || (size->size() != 4 && size->size() != 5)) return false;
    Shape s{(*size)[0]};
    s.insert(s.end(), size->begin() + 2, size->end());
    s.push_back(static_cast<int64_t>(size->size()) - 2);
    return set_shape(o, s);
  }
  if (n.op == "GridSample") {  // X [N, C, D1...], grid [N, D1_out..., k] -> [N, C, D1_out...]
    const Tensor* grid = shaped(g.input(n, 1));
    if (!grid || grid->shape.size() < 3 || r < 3) return false;
    Shape s{xs[0], xs[1]};
    s.insert(s.end(), grid->shape.begin() + 1, grid->shape.end() - 1);
    return set_shape(o, s);
  }
  // DFT: the signal's last dim becomes 2 (complex); the transformed axis takes dft_length, halved + 1
  // when onesided.
  if (r < 2) return false;
  int64_t axis = n.attr_int("axis", 1);
  std::optional<int64_t> length;
  if (const Tensor* l = g.input(n, 1)) {
    length = scalar_int(l);
    if (!length) return false;
  }
  if (g.opset >= 20) {
    axis = -2;
    if (const Tensor* a = g.input(n, 2)) {
      auto v = scalar_int(a);
      if (!v) return false;
      axis = *v;
    }
  }
  axis = norm_axis(axis, r);
  if (axis < 0 || axis >= r - 1) return false;
  Shape s = xs;
  int64_t len = length ? *length : xs[static_cast<size_t>(axis)];
  if (n.attr_int("onesided", 0) && len >= 0) len = len / 2 + 1;
  s[static_cast<size_t>(axis)] = len;
  s.back() = 2;
  return set_shape(o, s);
}

bool infer_resize(Graph& g, Node& n, Tensor& o) {
  const Tensor* x = shaped(g.input(n, 0));
  if (!x) return false;
  size_t rank = x->shape.size();
  std::optional<std::vector<double>> scales;
  std::optional<std::vector<int64_t>> sizes;
  if (n.op == "Upsample" && n.has_attr("scales")) {
    auto it = n.attrs.find("scales");
    if (auto* v = std::get_if<std::vector<double>>(&it->second)) scales = *v;
  } else if (n.op == "Upsample" || g.opset < 11) {
    scales = doubles_of(g.input(n, 1));
  } else {
    const Tensor* st = g.input(n, 2);
    if (st && st->shape_known() && st->numel().value_or(0) > 0) scales = doubles_of(st);
    const Tensor* sz = g.input(n, 3);
    if (sz && sz->shape_known() && sz->numel().value_or(0) > 0) {
      sizes = ints_of(sz);
      if (!sizes) return false;
    }
  }
  Shape axes = n.attr_ints("axes");
  if (sizes) {
    if (axes.empty())
      for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
    if (axes.size() != sizes->size()) return false;
    for (auto& a : axes) a = norm_axis(a, static_cast<int64_t>(rank));
    Shape s = x->shape;
    // Resize-18 keep_aspect_ratio_policy: one scale for all the axes, the smallest (not_larger) or the
    // largest (not_smaller) of sizes/input, and each axis round(scale * input).
    const std::string policy = n.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy == "not_larger" || policy == "not_smaller") {
      std::optional<double> scale;
      for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t in = x->shape[static_cast<size_t>(axes[i])];
        if (in <= 0) return false;
        const double r = static_cast<double>((*sizes)[i]) / static_cast<double>(in);
        if (!scale || (policy == "not_larger" ? r < *scale : r > *scale)) scale = r;
      }
      for (int64_t a : axes)
        s[static_cast<size_t>(a)] = static_cast<int64_t>(std::round(*scale * static_cast<double>(x->shape[static_cast<size_t>(a)])));
      return set_shape(o, s);
    }
    for (size_t i = 0; i < axes.size(); ++i) s[static_cast<size_t>(axes[i])] = (*sizes)[i];
    return set_shape(o, s);
  }
  if (!scales) return false;
  std::vector<double> sc(rank, 1.0);
  if (axes.empty()) {
    if (scales->size() != rank) return false;
    sc = *scales;
  } else {
    if (axes.size() != scales->size()) return false;
    for (size_t i = 0; i < axes.size(); ++i) sc[static_cast<size_t>(norm_axis(axes[i], static_cast<int64_t>(rank)))] = (*scales)[i];
  }
  Shape s;
  for (size_t i = 0; i < rank; ++i)
    s.push_back(x->shape[i] < 0 ? U : static_cast<int64_t>(std::floor(static_cast<double>(x->shape[i]) * sc[i] + 1e-9)));
  return set_shape(o, s);
}

}  // namespace

std::string einsum_explicit(const std::string& equation) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  if (eq.empty()) return eq;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto plain = [&](const std::string& part, bool commas) {
    return std::all_of(part.begin(), part.end(), [&](char c) { return letter(c) || c == '.' || (commas && c == ','); });
  };
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  if (!plain(lhs, true)) return "";
  if (arrow != std::string::npos) return plain(eq.substr(arrow + 2), false) ? eq : "";
  int count[128] = {};
  for (char c : lhs)
    if (letter(c)) ++count[static_cast<unsigned char>(c)];
  std::string rhs = lhs.find('.') != std::string::npos ? "..." : "";
  for (int c = 0; c < 128; ++c)
    if (count[c] == 1) rhs += static_cast<char>(c);
  return lhs + "->" + rhs;
}

bool is_data_dependent(const std::string& op) {
  return op == "NonZero" || op == "NonMaxSuppression" || op == "Compress" || op == "Unique";
}

bool is_integral(DType t) {
  switch (t) {
    case DType::i8: case DType::u8: case DType::i16: case DType::u16: case DType::i32: case DType::u32:
    case DType::i64: case DType::u64: case DType::boolean:
      return true;
    default:
      return false;
  }
}

// The shape of the shaped tensors `ins` joined along `axis` (and the axis, normalised): unknown dims take another
// input's known one; nullopt when there are none, the ranks differ or the axis is out of range.
std::optional<std::pair<Shape, int64_t>> concat_shape(const std::vector<const Tensor*>& ins, int64_t axis) {
  if (ins.empty()) return std::nullopt;
  const int64_t r = static_cast<int64_t>(ins[0]->shape.size());
  axis = norm_axis(axis, r);
  if (axis < 0 || axis >= r) return std::nullopt;
  Shape s = ins[0]->shape;
  int64_t total = 0;
  for (const Tensor* t : ins) {
    if (static_cast<int64_t>(t->shape.size()) != r) return std::nullopt;
    const int64_t d = t->shape[static_cast<size_t>(axis)];
    total = (total < 0 || d < 0) ? U : total + d;
    for (int64_t i = 0; i < r; ++i)
      if (i != axis && s[static_cast<size_t>(i)] < 0) s[static_cast<size_t>(i)] = t->shape[static_cast<size_t>(i)];
  }
  s[static_cast<size_t>(axis)] = total;
  return std::make_pair(s, axis);
}

// com.microsoft QLinear* ops (ONNX Runtime's QOperator quantization): 8-bit tensors, each with a scale and
// a zero point, in the shapes of the float op each stands for. QLinearConcat's inputs are (Y_scale,
// Y_zero_point) then one (X, scale, zero point) triple per concatenated tensor; the others take X first.
const std::unordered_set<std::string> k_qlinear_contrib = {
    "QLinearAdd",     "QLinearMul",   "QLinearSigmoid",           "QLinearLeakyRelu",
    "QLinearSoftmax", "QLinearConcat", "QLinearGlobalAveragePool", "QLinearAveragePool"};

bool is_qlinear_contrib(const Node& n) { return n.domain == "com.microsoft" && k_qlinear_contrib.count(n.op); }

// The output's 8-bit type: that of the output zero point where the node has one, else of the data input.
DType qlinear_contrib_dtype(const Graph& g, const Node& n) {
  const size_t zp_slot = n.op == "QLinearConcat" ? 1
                         : n.op == "QLinearAdd" || n.op == "QLinearMul" ? 7
                                                                        : 4;
  if (const Tensor* zp = g.input(n, zp_slot)) return zp->dtype;
  const Tensor* x = g.input(n, n.op == "QLinearConcat" ? 2 : 0);
  return x ? x->dtype : DType::u8;
}

bool infer_qlinear_contrib(Graph& g, Node& n, Tensor& o) {
  const std::string& op = n.op;
  if (op == "QLinearConcat") {
    std::vector<const Tensor*> ins;
    for (size_t i = 2; i < n.inputs.size(); i += 3) {
      const Tensor* t = shaped(g.input(n, i));
      if (!t) return false;
      ins.push_back(t);
    }
    const auto s = concat_shape(ins, n.attr_int("axis", 0));
    return s ? set_shape(o, s->first) : false;
  }
  const Tensor* x = shaped(g.input(n, 0));
  if (!x) return false;
  if (op == "QLinearAdd" || op == "QLinearMul") {
    const Tensor* b = shaped(g.input(n, 3));
    if (!b) return false;
    auto s = broadcast({x->shape, b->shape});
    return s ? set_shape(o, *s) : false;
  }
  if (op == "QLinearSigmoid" || op == "QLinearLeakyRelu" || op == "QLinearSoftmax") return set_shape(o, x->shape);
  // The pools: NCHW, or NHWC with channels_last = 1 (the channels last, the spatial dims from 1 on).
  if (x->shape.size() < 3) return false;
  const bool last = n.attr_int("channels_last", 0) != 0;
  const size_t sp = x->shape.size() - 2, first = last ? 1 : 2;
  Shape s = x->shape;
  if (op == "QLinearGlobalAveragePool") {
    for (size_t i = 0; i < sp; ++i) s[first + i] = 1;
    return set_shape(o, s);
  }
  Shape kernel = n.attr_ints("kernel_shape");
  Shape strides = n.attr_ints("strides", Shape(sp, 1));
  Shape pads = n.attr_ints("pads", Shape(2 * sp, 0));
  if (kernel.size() != sp || strides.size() != sp || pads.size() != 2 * sp) return false;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  const bool ceil_mode = n.attr_int("ceil_mode", 0) != 0;
  for (size_t i = 0; i < sp; ++i)
    s[first + i] =
        window_out(x->shape[first + i], kernel[i], strides[i], 1, pads[i], pads[sp + i], auto_pad, ceil_mode);
  return set_shape(o, s);
}

// ---- sequences and optionals -------------------------------------------------------------------
// ONNX's tensor sequences, as TorchScript exports a Python list (torch.split into a loop, appends, torch.cat
// of the list): the elements are tracked one by one while the length is known (Tensor::elements), so a Loop
// over SequenceLength unrolls and ConcatFromSequence sizes its output. Optionals (an Optional[Tensor]) carry
// their tensor or none (Tensor::holds_element).

bool is_optional_op(const std::string& op) {
  return op == "Optional" || op == "OptionalHasElement" || op == "OptionalGetElement";
}

bool is_sequence_op(const std::string& op) {
  return op == "SequenceEmpty" || op == "SequenceConstruct" || op == "SequenceInsert" || op == "SequenceErase" ||
         op == "SequenceAt" || op == "SequenceLength" || op == "SplitToSequence" || op == "ConcatFromSequence";
}

namespace {

/// InputError "node 'NAME' (OP): MSG".
[[noreturn]] void fail_at(const Node& n, const std::string& msg) {
  throw InputError("node '" + printable(n.name, 120) + "' (" + printable(n.op, 120) + "): " + msg);
}

SequenceElement element_of(const Tensor& t) { return SequenceElement{t.dtype, t.shape, t.has_shape}; }

/// Marks `o` a sequence of `elems` (nullopt: length unknown) with element type `dtype`.
bool set_sequence(Tensor& o, DType dtype, std::optional<std::vector<SequenceElement>> elems, const Node& n) {
  if (elems && elems->size() > k_max_sequence_length)
    fail_at(n, "a sequence of " +
                     std::to_string(elems->size()) + " tensors; perfpred follows sequences of up to " +
                     std::to_string(k_max_sequence_length));
  bool ch = !o.is_sequence || (dtype != DType::unknown && o.dtype != dtype) || (elems && o.elements != elems);
  o.is_sequence = true;
  if (dtype != DType::unknown) o.dtype = dtype;
  if (elems) o.elements = std::move(elems);
  return ch;
}

/// A position input (SequenceAt/Insert/Erase) resolved against a sequence of `len` (insert: len + 1 places).
std::optional<size_t> sequence_position(const Graph& g, const Node& n, size_t slot, size_t len, bool insert) {
  const Tensor* p = g.input(n, slot);
  if (!p) return insert ? len : (len > 0 ? std::optional<size_t>(len - 1) : std::nullopt);
  const auto v = scalar_int(p);
  if (!v) return std::nullopt;
  const int64_t places = static_cast<int64_t>(len) + (insert ? 1 : 0);
  const int64_t i = *v < 0 ? *v + static_cast<int64_t>(len) : *v;  // negative: from the back
  if (i < 0 || i >= places)
    fail_at(n, "position " + std::to_string(*v) +
                     " is outside the sequence of " + std::to_string(len) + " tensors");
  return static_cast<size_t>(i);
}

/// One element type standing for all of a sequence's, when they agree (the type an unknown position reads).
std::optional<SequenceElement> common_element(const std::vector<SequenceElement>& elems) {
  if (elems.empty()) return std::nullopt;
  for (const auto& e : elems)
    if (!(e == elems.front())) return std::nullopt;
  return elems.front();
}

bool set_element(Tensor& o, const SequenceElement& e) {
  bool ch = set_dtype(o, e.dtype);
  if (e.has_shape) ch |= set_shape(o, e.shape);
  return ch;
}

bool infer_split_to_sequence(Graph& g, Node& n, Tensor& o) {
  const Tensor* x = g.input(n, 0);
  bool ch = set_sequence(o, x ? x->dtype : DType::unknown, std::nullopt, n);
  if (!shaped(x)) return ch;
  const int64_t r = static_cast<int64_t>(x->shape.size());
  const int64_t axis = norm_axis(n.attr_int("axis", 0), r);
  if (axis < 0 || axis >= r)
    fail_at(n, "attribute 'axis' = " +
                     std::to_string(n.attr_int("axis", 0)) + " is out of range for rank-" + std::to_string(r) + " input");
  const int64_t dim = x->shape[static_cast<size_t>(axis)];
  if (dim < 0) return ch;
  std::vector<int64_t> sizes;
  const Tensor* split = g.input(n, 1);
  bool keep = true;
  if (!split) {  // one slice per index along the axis, squeezed unless keepdims
    if (static_cast<size_t>(dim) > k_max_sequence_length) sizes.assign(k_max_sequence_length + 1, 1);
    else sizes.assign(static_cast<size_t>(dim), 1);
    keep = n.attr_int("keepdims", 1) != 0;
  } else {
    const auto v = ints_of(split);
    if (!v || !split->has_shape) return ch;
    if (v->size() > k_max_sequence_length)  // refused by set_sequence below, before a vector that long is built
      return ch | set_sequence(o, x->dtype, std::vector<SequenceElement>(k_max_sequence_length + 1), n);
    if (split->shape.empty()) {  // a scalar: chunks of that size, the last one shorter
      const int64_t each = v->front();
      if (each <= 0) fail_at(n, "split " + std::to_string(each) + " must be positive");
      const int64_t count = dim / each + (dim % each != 0 ? 1 : 0);
      if (static_cast<size_t>(count) > k_max_sequence_length) sizes.assign(k_max_sequence_length + 1, each);
      else
        for (int64_t at = 0; at < dim; at += each) sizes.push_back(std::min(each, dim - at));
    } else {
      int64_t sum = 0;
      for (int64_t s : *v) {
        if (s < 0) fail_at(n, "split sizes must not be negative");
        if (s > dim - sum) {  // past the axis (checked before the add, which could overflow)
          sum = dim + 1;
          break;
        }
        sum += s;
      }
      if (sum > dim) fail_at(n, "split sizes add up to more than the axis' " + std::to_string(dim));
      if (sum != dim) fail_at(n, "split sizes add up to " + std::to_string(sum) + ", not the axis' " + std::to_string(dim));
      sizes = *v;
    }
  }
  std::vector<SequenceElement> elems;
  elems.reserve(std::min(sizes.size(), k_max_sequence_length + 1));
  for (int64_t s : sizes) {
    SequenceElement e{x->dtype, x->shape, true};
    if (keep) e.shape[static_cast<size_t>(axis)] = s;
    else e.shape.erase(e.shape.begin() + axis);
    elems.push_back(std::move(e));
  }
  return ch | set_sequence(o, x->dtype, std::move(elems), n);
}

bool infer_concat_from_sequence(Graph& g, Node& n, Tensor& o) {
  const Tensor* seq = g.input(n, 0);
  if (!seq || !seq->is_sequence) return false;
  bool ch = set_dtype(o, seq->dtype);
  if (!seq->elements) return ch;
  const auto& elems = *seq->elements;
  if (elems.empty())
    fail_at(n, "the sequence is empty");
  for (const auto& e : elems)
    if (!e.has_shape) return ch;
  const bool new_axis = n.attr_int("new_axis", 0) != 0;
  const int64_t r = static_cast<int64_t>(elems.front().shape.size());
  const int64_t axis = norm_axis(n.attr_int("axis", 0), r + (new_axis ? 1 : 0));
  if (axis < 0 || axis >= r + (new_axis ? 1 : 0))
    fail_at(n, "attribute 'axis' = " +
                     std::to_string(n.attr_int("axis", 0)) + " is out of range for rank-" + std::to_string(r) +
                     " elements" + (new_axis ? " (new_axis)" : ""));
  std::vector<Tensor> parts;
  parts.reserve(elems.size());
  for (const auto& e : elems) {
    Tensor t;
    t.dtype = e.dtype;
    t.has_shape = true;
    t.shape = e.shape;
    if (new_axis) t.shape.insert(t.shape.begin() + axis, 1);
    parts.push_back(std::move(t));
  }
  std::vector<const Tensor*> ins;
  bool differ = false;
  for (const auto& t : parts) {
    ins.push_back(&t);
    if (t.shape.size() != parts.front().shape.size()) {
      differ = true;
      continue;
    }
    for (size_t k = 0; k < t.shape.size(); ++k)
      if (static_cast<int64_t>(k) != axis && t.shape[k] >= 0 && parts.front().shape[k] >= 0 &&
          t.shape[k] != parts.front().shape[k])
        differ = true;
  }
  const auto joined = differ ? std::nullopt : concat_shape(ins, axis);
  if (!joined)
    fail_at(n, "the sequence's tensors differ in rank or in a dim other than the axis");
  return ch | set_shape(o, joined->first);
}

}  // namespace

/// Optional, OptionalHasElement and OptionalGetElement, and Identity of an optional: true when something changed.
/// An optional holds its tensor's type and shape; whether it holds one folds into OptionalHasElement, so the If
/// that TorchScript writes for `if x is not None` takes its branch.
bool infer_optional(Graph& g, Node& n) {
  const std::string& op = n.op;
  Tensor* o = out_tensor(g, n, 0);
  if (!o) return false;
  const Tensor* x = g.input(n, 0);
  if (x && x->is_sequence)
    fail_at(n, "input '" + printable(x->name, 120) + "' is a sequence; perfpred follows optional tensors only");
  const auto copy_tensor = [&](const Tensor& from, bool optional, std::optional<bool> holds) {
    bool ch = set_dtype(*o, from.dtype);
    if (from.has_shape) ch |= set_shape(*o, from.shape);
    if (from.int_values && from.has_shape) ch |= set_int_values(*o, from.shape, *from.int_values);
    ch |= o->is_optional != optional || o->holds_element != holds;
    o->is_optional = optional;
    o->holds_element = holds;
    return ch;
  };
  if (op == "Optional" || op == "Identity") {
    if (x) return copy_tensor(*x, true, op == "Optional" ? std::optional<bool>(true) : x->holds_element);
    // Empty: the element type from the attribute, no bytes.
    bool ch = set_type(*o, dtype_from_onnx(static_cast<int32_t>(n.attr_int("type.elem_type", 0))), Shape{});
    ch |= !o->is_optional || o->holds_element != false;
    o->is_optional = true;
    o->holds_element = false;
    return ch;
  }
  if (op == "OptionalHasElement") {
    bool ch = set_type(*o, DType::boolean, Shape{});
    std::optional<bool> has;
    if (!x) has = false;  // opset 18: no input is an empty optional
    else if (x->is_optional) has = x->holds_element;
    else if (x->has_shape) has = true;  // opset 18: a tensor
    if (has) ch |= set_int_values(*o, Shape{}, {*has ? 1 : 0});
    return ch;
  }
  // OptionalGetElement: the tensor (opset 18 also passes a tensor through).
  if (!x) fail_at(n, "has no input");
  if (x->is_optional && x->holds_element == false) fail_at(n, "the optional '" + printable(x->name, 120) + "' is empty");
  return copy_tensor(*x, false, std::nullopt);
}

/// The sequence ops, and Identity of a sequence: true when something changed.
bool infer_sequence(Graph& g, Node& n) {
  const std::string& op = n.op;
  Tensor* o = out_tensor(g, n, 0);
  if (!o) return false;
  const Tensor* s = g.input(n, 0);
  const bool seq_in = s && s->is_sequence;
  if (op == "SequenceEmpty") {
    const DType d = n.has_attr("dtype") ? dtype_from_onnx(static_cast<int32_t>(n.attr_int("dtype", 1))) : DType::f32;
    return set_sequence(*o, d, std::vector<SequenceElement>{}, n);
  }
  // A sequence holds tensors of one type.
  const auto same_type = [&](DType held, const Tensor& t) {
    if (held != DType::unknown && t.dtype != DType::unknown && held != t.dtype)
      fail_at(n, "tensor '" + printable(t.name, 120) + "' is " + to_string(t.dtype) + " where the sequence holds " +
                     to_string(held));
  };
  if (op == "SequenceConstruct") {
    std::vector<SequenceElement> elems;
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (const Tensor* t = g.input(n, i)) {
        if (!elems.empty()) same_type(elems.front().dtype, *t);
        elems.push_back(element_of(*t));
      }
    const DType d = elems.empty() ? DType::unknown : elems.front().dtype;
    return set_sequence(*o, d, std::move(elems), n);
  }
  if (op == "SplitToSequence") return infer_split_to_sequence(g, n, *o);
  if (op == "ConcatFromSequence") return infer_concat_from_sequence(g, n, *o);
  if (op == "SequenceLength") {
    bool ch = set_type(*o, DType::i64, Shape{});
    if (seq_in && s->elements) ch |= set_int_values(*o, Shape{}, {static_cast<int64_t>(s->elements->size())});
    return ch;
  }
  if (op == "SequenceAt") {
    if (!seq_in) return false;
    bool ch = set_dtype(*o, s->dtype);
    if (!s->elements) return ch;
    if (g.input(n, 1) == nullptr)
      fail_at(n, "has no position input");
    if (s->elements->empty())
      fail_at(n, "the sequence is empty");
    const auto at = sequence_position(g, n, 1, s->elements->size(), false);
    if (at) return ch | set_element(*o, (*s->elements)[*at]);
    if (const auto e = common_element(*s->elements)) ch |= set_element(*o, *e);
    return ch;
  }
  if (op == "SequenceInsert" || op == "SequenceErase") {
    if (!seq_in) return false;
    bool ch = set_sequence(*o, s->dtype, std::nullopt, n);
    if (!s->elements) return ch;
    std::vector<SequenceElement> elems = *s->elements;
    if (op == "SequenceInsert") {
      const Tensor* t = g.input(n, 1);
      if (!t) return ch;
      same_type(s->dtype, *t);
      const auto at = sequence_position(g, n, 2, elems.size(), true);
      if (!at) return ch;
      elems.insert(elems.begin() + static_cast<std::ptrdiff_t>(*at), element_of(*t));
    } else {
      if (elems.empty())
        fail_at(n, "the sequence is empty");
      const auto at = sequence_position(g, n, 1, elems.size(), false);
      if (!at) return ch;
      elems.erase(elems.begin() + static_cast<std::ptrdiff_t>(*at));
    }
    return ch | set_sequence(*o, s->dtype, std::move(elems), n);
  }
  if (op == "Identity" && seq_in) return set_sequence(*o, s->dtype, s->elements, n);
  return false;
}

bool infer_node(Graph& g, Node& n) {
  if (!n.domain.empty() && n.domain != "ai.onnx" && n.domain != "com.microsoft") return false;
  // Before any rule reads an attribute: a bad axis or blocksize would otherwise index out of range.
  validate_node(g, n);
  const std::string& op = n.op;
  const int64_t opset = g.opset;
  Tensor* o = out_tensor(g, n, 0);
  if (!o) return false;
  const Tensor* x = g.input(n, 0);
  if (is_sequence_op(op) || (op == "Identity" && x && x->is_sequence)) return infer_sequence(g, n);
  if (is_optional_op(op) || (op == "Identity" && x && x->is_optional)) return infer_optional(g, n);
  bool ch = false;

  // ---- dtypes -------------------------------------------------------------------------------
  if (op == "Shape" || op == "Size" || op == "ArgMax" || op == "ArgMin" || op == "NonZero") {
    ch |= set_dtype(*o, DType::i64);
  } else if (k_bool_ops.count(op)) {
    ch |= set_dtype(*o, DType::boolean);
  } else if (op == "Cast") {
    ch |= set_dtype(*o, dtype_from_onnx(static_cast<int32_t>(n.attr_int("to", 0))));
  } else if (op == "CastLike") {
    if (auto* t = g.input(n, 1)) ch |= set_dtype(*o, t->dtype);
  } else if (op == "BitCast") {  // the same bits read as `to` (validate_node checks the widths agree)
    ch |= set_dtype(*o, dtype_from_onnx(static_cast<int32_t>(n.attr_int("to", 0))));
  } else if (op == "Where") {
    if (auto* t = g.input(n, 1)) ch |= set_dtype(*o, t->dtype);
  } else if (op == "ConstantOfShape") {
    ch |= set_dtype(*o, dtype_from_onnx(static_cast<int32_t>(n.attr_int("value.dtype", 1))));
  } else if (op == "DequantizeLinear") {
    ch |= set_dtype(*o, DType::f32);
  } else if (op == "QuantizeLinear") {
    const Tensor* zp = g.input(n, 2);
    ch |= set_dtype(*o, zp ? zp->dtype : DType::u8);
  } else if (op == "DynamicQuantizeLinear") {  // y (uint8), then its scale (float) and zero point (uint8)
    ch |= set_dtype(*o, DType::u8);
    if (Tensor* t = out_tensor(g, n, 1)) ch |= set_type(*t, DType::f32, Shape{});
    if (Tensor* t = out_tensor(g, n, 2)) ch |= set_type(*t, DType::u8, Shape{});
    if (shaped(x)) ch |= set_shape(*o, x->shape);
    return ch;
  } else if (op == "Multinomial") {
    ch |= set_dtype(*o, dtype_from_onnx(static_cast<int32_t>(n.attr_int("dtype", 6))));
  } else if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow" || op == "MelWeightMatrix") {
    ch |= set_dtype(*o, dtype_from_onnx(static_cast<int32_t>(n.attr_int("output_datatype", 1))));
  } else if (op == "ConvInteger" || op == "MatMulInteger") {
    ch |= set_dtype(*o, DType::i32);  // the int32 accumulators, unscaled
  } else if (op == "QLinearConv" || op == "QLinearMatMul") {
    const Tensor* zp = g.input(n, 7);  // y_zero_point names the output type
    ch |= set_dtype(*o, zp ? zp->dtype : DType::u8);
  } else if (is_qlinear_contrib(n)) {
    ch |= set_dtype(*o, qlinear_contrib_dtype(g, n));
  } else if (x && op != "Constant") {
    ch |= set_dtype(*o, x->dtype);
  }

  if (is_qlinear_contrib(n)) return ch | infer_qlinear_contrib(g, n, *o);

  // ---- same-shape ops -------------------------------------------------------------------------
  if (k_same_shape_ops.count(op)) {
    if (shaped(x)) ch |= set_shape(*o, x->shape);
    if (x && x->shape_known() && has_values(x) && (op == "Cast" || op == "CastLike" || fold_unary(op, 1.0))) {
      if (auto v = doubles_of(x)) {
        std::vector<double> r;
        bool ok = true;
        for (double a : *v) {
          auto y = fold_unary(op, a);
          if (!y) { ok = false; break; }
          r.push_back(*y);
        }
        if (ok) {
          if (x->int_values && is_integral(o->dtype) && (op == "Identity" || op == "Cast" || op == "CastLike" || op == "Neg" || op == "Abs"))
            ch |= set_int_values(*o, x->shape, op == "Neg" || op == "Abs"
                                                   ? [&] { std::vector<int64_t> iv; for (int64_t a : *x->int_values) iv.push_back(op == "Neg" ? -a : std::llabs(a)); return iv; }()
                                                   : *x->int_values);
          else
            ch |= set_double_values(*o, x->shape, r);
        }
      }
    }
    if (op == "Trilu" && x && x->shape_known() && x->shape.size() >= 2 && has_values(x)) {
      int64_t k = 0;
      if (g.input(n, 1)) {
        auto kv = scalar_int(g.input(n, 1));
        if (!kv) return ch;
        k = *kv;
      }
      bool upper = n.attr_int("upper", 1) != 0;
      auto v = *doubles_of(x);
      int64_t rows = x->shape[x->shape.size() - 2], cols = x->shape.back();
      for (size_t f = 0; f < v.size(); ++f) {
        int64_t c = static_cast<int64_t>(f) % cols, r = (static_cast<int64_t>(f) / cols) % rows;
        bool keep = upper ? (c - r >= k) : (c - r <= k);
        if (!keep) v[f] = 0;
      }
      ch |= set_double_values(*o, x->shape, v);
    }
    // Secondary outputs of a few same-shape ops.
    if (op == "Dropout")
      if (Tensor* m = out_tensor(g, n, 1)) {
        ch |= set_dtype(*m, DType::boolean);
        if (shaped(x)) ch |= set_shape(*m, x->shape);
      }
    // com.microsoft SkipLayerNormalization: mean and inv_std_var [..., 1], then input + skip (+ bias).
    if ((op == "SkipLayerNormalization" || op == "SkipSimplifiedLayerNormalization") && shaped(x) &&
        !x->shape.empty()) {
      Shape s = x->shape;
      s.back() = 1;
      for (size_t i = 1; i < 4; ++i)
        if (Tensor* m = out_tensor(g, n, i)) {
          ch |= set_dtype(*m, i == 3 ? x->dtype : DType::f32);
          ch |= set_shape(*m, i == 3 ? x->shape : s);
        }
    }
    // LayerNormalization's mean and inv_std_dev; SimplifiedLayerNormalization's (RMSNorm) inv_std_var.
    if ((op == "LayerNormalization" || op == "SimplifiedLayerNormalization") && shaped(x)) {
      int64_t r = static_cast<int64_t>(x->shape.size());
      int64_t axis = norm_axis(n.attr_int("axis", -1), r);
      Shape s = x->shape;
      for (int64_t i = axis; i < r; ++i) s[static_cast<size_t>(i)] = 1;
      for (size_t i = 1; i < 3; ++i)
        if (Tensor* m = out_tensor(g, n, i)) {
          ch |= set_dtype(*m, DType::f32);
          ch |= set_shape(*m, s);
        }
    }
    if (op == "BatchNormalization" && shaped(x) && x->shape.size() >= 2)
      for (size_t i = 1; i < n.outputs.size(); ++i)
        if (Tensor* m = out_tensor(g, n, i)) {
          ch |= set_dtype(*m, x->dtype);
          ch |= set_shape(*m, Shape{x->shape[1]});
        }
    return ch;
  }

  // ---- broadcasting elementwise ----------------------------------------------------------------
  if (k_broadcast_ops.count(op)) {
    std::vector<const Tensor*> ins;
    for (size_t i = 0; i < n.inputs.size(); ++i) ins.push_back(g.input(n, i));
    std::vector<Shape> shapes;
    for (auto* t : ins) {
      if (!shaped(t)) return ch;
      shapes.push_back(t->shape);
    }
    auto s = broadcast(shapes);
    if (!s) return ch;
    ch |= set_shape(*o, *s);
    if (!known(*s) || *numel_of(*s) > k_max_fold_elems) return ch;
    for (auto* t : ins)
      if (!has_values(t) || !t->shape_known()) return ch;
    int64_t cnt = *numel_of(*s);
    std::vector<std::vector<int64_t>> idx;
    for (auto* t : ins) idx.push_back(bcast_index(t->shape, *s));
    if (op == "Where") {
      if (ins.size() != 3) return ch;  // validation names the arity; never index past the inputs
      auto c = doubles_of(ins[0]);
      auto a = doubles_of(ins[1]);
      auto b = doubles_of(ins[2]);
      if (ins[1]->int_values && ins[2]->int_values) {
        std::vector<int64_t> r;
        for (int64_t f = 0; f < cnt; ++f)
          r.push_back((*c)[static_cast<size_t>(idx[0][static_cast<size_t>(f)])] != 0
                          ? (*ins[1]->int_values)[static_cast<size_t>(idx[1][static_cast<size_t>(f)])]
                          : (*ins[2]->int_values)[static_cast<size_t>(idx[2][static_cast<size_t>(f)])]);
        return ch | set_int_values(*o, *s, r);
      }
      std::vector<double> r;
      for (int64_t f = 0; f < cnt; ++f)
        r.push_back((*c)[static_cast<size_t>(idx[0][static_cast<size_t>(f)])] != 0
                        ? (*a)[static_cast<size_t>(idx[1][static_cast<size_t>(f)])]
                        : (*b)[static_cast<size_t>(idx[2][static_cast<size_t>(f)])]);
      return ch | set_double_values(*o, *s, r);
    }
    if (ins.size() < 2 || (op == "Mean" && ins.size() != 2)) return ch;
    int64_t fmod = n.attr_int("fmod", 0);
    bool all_int = std::all_of(ins.begin(), ins.end(), [](const Tensor* t) { return t->int_values.has_value(); });
    if (all_int && (is_integral(o->dtype) || o->dtype == DType::unknown)) {
      std::vector<int64_t> r(static_cast<size_t>(cnt));
      for (int64_t f = 0; f < cnt; ++f) {
        int64_t acc = (*ins[0]->int_values)[static_cast<size_t>(idx[0][static_cast<size_t>(f)])];
        for (size_t i = 1; i < ins.size(); ++i) {
          auto y = fold_binary_int(op, acc, (*ins[i]->int_values)[static_cast<size_t>(idx[i][static_cast<size_t>(f)])], fmod);
          if (!y) return ch;
          acc = *y;
        }
        r[static_cast<size_t>(f)] = acc;
      }
      return ch | set_int_values(*o, *s, r);
    }
    std::vector<std::vector<double>> vals;
    for (auto* t : ins) vals.push_back(*doubles_of(t));
    bool integral = is_integral(o->dtype);
    std::vector<double> r(static_cast<size_t>(cnt));
    for (int64_t f = 0; f < cnt; ++f) {
      double acc = vals[0][static_cast<size_t>(idx[0][static_cast<size_t>(f)])];
      for (size_t i = 1; i < ins.size(); ++i) {
        auto y = fold_binary(op, acc, vals[i][static_cast<size_t>(idx[i][static_cast<size_t>(f)])], integral, fmod);
        if (!y) return ch;
        acc = *y;
      }
      r[static_cast<size_t>(f)] = acc;
    }
    return ch | set_double_values(*o, *s, r);
  }

  // ---- shape-producing and shape-consuming ops -------------------------------------------------
  if (op == "Constant") return ch;  // values were set at import

  if (op == "Shape") {
    if (!shaped(x)) return ch;
    int64_t r = static_cast<int64_t>(x->shape.size());
    int64_t start = std::clamp<int64_t>(norm_axis(n.attr_int("start", 0), r), 0, r);
    int64_t end = std::clamp<int64_t>(norm_axis(n.attr_int("end", r), r), 0, r);
    Shape vals;
    for (int64_t i = start; i < end; ++i) vals.push_back(x->shape[static_cast<size_t>(i)]);
    ch |= set_shape(*o, Shape{static_cast<int64_t>(vals.size())});
    if (known(vals)) ch |= set_int_values(*o, Shape{static_cast<int64_t>(vals.size())}, vals);
    return ch;
  }
  if (op == "Size") {
    ch |= set_shape(*o, Shape{});
    if (x && x->shape_known())
      if (auto c = x->numel()) ch |= set_int_values(*o, Shape{}, {*c});
    return ch;
  }
  if (op == "ConstantOfShape") {
    auto sv = ints_of(x);
    if (!sv) {
      if (shaped(x) && x->shape.size() == 1 && x->shape[0] >= 0) ch |= set_shape(*o, Shape(static_cast<size_t>(x->shape[0]), U));
      return ch;
    }
    ch |= set_shape(*o, *sv);
    auto cnt = numel_of(*sv);
    if (cnt && *cnt <= k_max_fold_elems) {
      double v = n.attr_float("value", 0.0);
      ch |= set_double_values(*o, *sv, std::vector<double>(static_cast<size_t>(*cnt), v));
    }
    return ch;
  }
  if (op == "Range") {
    auto a = doubles_of(g.input(n, 0)), b = doubles_of(g.input(n, 1)), d = doubles_of(g.input(n, 2));
    if (!a || !b || !d || a->size() != 1 || b->size() != 1 || d->size() != 1 || (*d)[0] == 0) return ch;
    double len = std::ceil(((*b)[0] - (*a)[0]) / (*d)[0]);
    int64_t cnt = len > 0 ? static_cast<int64_t>(len) : 0;
    ch |= set_shape(*o, Shape{cnt});
    if (cnt <= k_max_fold_elems) {
      std::vector<double> v;
      for (int64_t i = 0; i < cnt; ++i) v.push_back((*a)[0] + static_cast<double>(i) * (*d)[0]);
      ch |= set_double_values(*o, Shape{cnt}, v);
    }
    return ch;
  }
  if (op == "Reshape") {
    if (!shaped(x)) return ch;
    std::optional<std::vector<int64_t>> sv = n.has_attr("shape") ? std::optional(n.attr_ints("shape")) : ints_of(g.input(n, 1));
    if (!sv) {
      const Tensor* st = g.input(n, 1);
      if (st && st->shape_known() && st->shape.size() == 1) ch |= set_shape(*o, Shape(static_cast<size_t>(st->shape[0]), U));
      return ch;
    }
    bool allowzero = n.attr_int("allowzero", 0) != 0;
    Shape s = *sv;
    int neg = -1;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == 0 && !allowzero) s[i] = i < x->shape.size() ? x->shape[i] : U;
      else if (s[i] == -1) {
        if (neg >= 0) return ch;
        neg = static_cast<int>(i);
      } else if (s[i] < -1) return ch;
    }
    if (neg >= 0) {
      s[static_cast<size_t>(neg)] = U;
      auto total = x->numel();
      Shape rest;
      for (size_t i = 0; i < s.size(); ++i)
        if (static_cast<int>(i) != neg) rest.push_back(s[i]);
      auto part = numel_of(rest);
      if (total && part && *part > 0 && *total % *part == 0) s[static_cast<size_t>(neg)] = *total / *part;
    }
    ch |= set_shape(*o, s);
    if (x->int_values && known(s)) ch |= set_int_values(*o, s, *x->int_values);
    else if (x->float_values && known(s)) ch |= set_double_values(*o, s, *x->float_values);
    return ch;
  }
  if (op == "Flatten") {
    if (!shaped(x)) return ch;
    int64_t r = static_cast<int64_t>(x->shape.size());
    int64_t axis = norm_axis(n.attr_int("axis", 1), r);
    auto a = numel_of(Shape(x->shape.begin(), x->shape.begin() + axis));
    auto b = numel_of(Shape(x->shape.begin() + axis, x->shape.end()));
    Shape s{a.value_or(U), b.value_or(U)};
    ch |= set_shape(*o, s);
    if (x->int_values && known(s)) ch |= set_int_values(*o, s, *x->int_values);
    return ch;
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    if (!shaped(x)) return ch;
    std::optional<std::vector<int64_t>> axes = opset < 13 || n.has_attr("axes")
                                                   ? std::optional(n.attr_ints("axes"))
                                                   : (g.input(n, 1) ? ints_of(g.input(n, 1)) : std::optional(std::vector<int64_t>{}));
    if (!axes) return ch;
    Shape s;
    if (op == "Squeeze") {
      int64_t r = static_cast<int64_t>(x->shape.size());
      std::set<int64_t> ax;
      for (int64_t a : *axes) ax.insert(norm_axis(a, r));
      for (int64_t i = 0; i < r; ++i) {
        int64_t d = x->shape[static_cast<size_t>(i)];
        if (axes->empty()) {
          if (d < 0) return ch;
          if (d != 1) s.push_back(d);
        } else if (!ax.count(i)) {
          s.push_back(d);
        }
      }
    } else {
      int64_t r = static_cast<int64_t>(x->shape.size() + axes->size());
      std::set<int64_t> ax;
      for (int64_t a : *axes) ax.insert(norm_axis(a, r));
      size_t k = 0;
      for (int64_t i = 0; i < r; ++i) {
        if (ax.count(i)) s.push_back(1);
        else if (k < x->shape.size()) s.push_back(x->shape[k++]);
        else return ch;
      }
    }
    ch |= set_shape(*o, s);
    if (x->int_values && known(s)) ch |= set_int_values(*o, s, *x->int_values);
    else if (x->float_values && known(s)) ch |= set_double_values(*o, s, *x->float_values);
    return ch;
  }
  if (op == "Transpose") {
    if (!shaped(x)) return ch;
    size_t r = x->shape.size();
    Shape perm = n.attr_ints("perm");
    if (perm.empty())
      for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
    if (perm.size() != r) return ch;
    Shape s;
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(r)) return ch;
      s.push_back(x->shape[static_cast<size_t>(p)]);
    }
    ch |= set_shape(*o, s);
    // Shape arithmetic transposes small tensors too (F.pad's pads: Reshape [n,2] -> reverse -> Transpose).
    if (has_values(x) && x->shape_known() && known(s)) {
      std::vector<int64_t> src(static_cast<size_t>(*numel_of(s)));
      std::vector<int64_t> st(r, 1);
      for (size_t d = r; d-- > 1;) st[d - 1] = st[d] * x->shape[d];
      for (size_t f = 0; f < src.size(); ++f) {
        int64_t rem = static_cast<int64_t>(f), off = 0;
        for (size_t d = r; d-- > 0;) {
          off += (rem % s[d]) * st[static_cast<size_t>(perm[d])];
          rem /= s[d];
        }
        src[f] = off;
      }
      if (x->int_values) {
        std::vector<int64_t> v;
        for (int64_t i : src) v.push_back((*x->int_values)[static_cast<size_t>(i)]);
        ch |= set_int_values(*o, s, v);
      } else {
        std::vector<double> v;
        for (int64_t i : src) v.push_back((*x->float_values)[static_cast<size_t>(i)]);
        ch |= set_double_values(*o, s, v);
      }
    }
    return ch;
  }
  if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul" || op == "FusedMatMul") {
    const Tensor* a = shaped(x);
    const Tensor* b = shaped(g.input(n, op == "QLinearMatMul" ? 3 : 1));
    if (!a || !b || a->shape.empty() || b->shape.empty()) return ch;
    Shape as = a->shape, bs = b->shape;
    bool a1 = as.size() == 1, b1 = bs.size() == 1;
    if (a1) as.insert(as.begin(), 1);
    if (b1) bs.push_back(1);
    // com.microsoft FusedMatMul: transBatchA/B read [M, batch..., K] as [batch..., M, K], then transA / transB
    // swap the last two dims.
    auto batch_first = [](Shape& v) {
      if (v.size() >= 3) std::rotate(v.begin(), v.begin() + 1, v.end() - 1);
    };
    if (op == "FusedMatMul" && n.attr_int("transBatchA", 0)) batch_first(as);
    if (op == "FusedMatMul" && n.attr_int("transBatchB", 0)) batch_first(bs);
    if (op == "FusedMatMul" && n.attr_int("transA", 0)) std::swap(as[as.size() - 1], as[as.size() - 2]);
    if (op == "FusedMatMul" && n.attr_int("transB", 0)) std::swap(bs[bs.size() - 1], bs[bs.size() - 2]);
    auto batch = broadcast({Shape(as.begin(), as.end() - 2), Shape(bs.begin(), bs.end() - 2)});
    if (!batch) return ch;
    Shape s = *batch;
    if (!a1) s.push_back(as[as.size() - 2]);
    if (!b1) s.push_back(bs.back());
    return ch | set_shape(*o, s);
  }
  if (op == "Gemm") {
    const Tensor* a = shaped(x);
    const Tensor* b = shaped(g.input(n, 1));
    if (!a || !b || a->shape.size() != 2 || b->shape.size() != 2) return ch;
    int64_t m = n.attr_int("transA", 0) ? a->shape[1] : a->shape[0];
    int64_t nn = n.attr_int("transB", 0) ? b->shape[0] : b->shape[1];
    return ch | set_shape(*o, Shape{m, nn});
  }
  if (op == "Gather") {
    const Tensor* idx = shaped(g.input(n, 1));
    if (!shaped(x) || !idx) return ch;
    int64_t r = static_cast<int64_t>(x->shape.size());
    int64_t axis = norm_axis(n.attr_int("axis", 0), r);
    if (axis < 0 || axis >= r) return ch;
    Shape s(x->shape.begin(), x->shape.begin() + axis);
    s.insert(s.end(), idx->shape.begin(), idx->shape.end());
    s.insert(s.end(), x->shape.begin() + axis + 1, x->shape.end());
    ch |= set_shape(*o, s);
    if (has_values(x)) ch |= fold_gather_values(*o, *x, *idx, axis, s);
    else if (auto dims = gathered_shape_dims(g, n, *x, *idx)) ch |= set_int_values(*o, s, *dims);
    return ch;
  }
  if (op == "GatherElements") {
    if (const Tensor* idx = shaped(g.input(n, 1))) ch |= set_shape(*o, idx->shape);
    return ch;
  }
  if (op == "GatherND") {
    const Tensor* idx = shaped(g.input(n, 1));
    if (!shaped(x) || !idx || idx->shape.empty() || idx->shape.back() < 0) return ch;
    int64_t b = n.attr_int("batch_dims", 0);
    Shape s(idx->shape.begin(), idx->shape.end() - 1);
    size_t from = static_cast<size_t>(b + idx->shape.back());
    if (from > x->shape.size()) return ch;
    s.insert(s.end(), x->shape.begin() + static_cast<std::ptrdiff_t>(from), x->shape.end());
    return ch | set_shape(*o, s);
  }
  if (op == "Slice") {
    if (!shaped(x)) return ch;
    std::optional<std::vector<int64_t>> starts, ends, axes, steps;
    if (opset < 10) {
      starts = n.attr_ints("starts");
      ends = n.attr_ints("ends");
      axes = n.attr_ints("axes");
    } else {
      starts = ints_of(g.input(n, 1));
      ends = ints_of(g.input(n, 2));
      axes = g.input(n, 3) ? ints_of(g.input(n, 3)) : std::optional(std::vector<int64_t>{});
      steps = g.input(n, 4) ? ints_of(g.input(n, 4)) : std::optional(std::vector<int64_t>{});
    }
    int64_t r = static_cast<int64_t>(x->shape.size());
    if (!starts || !ends || !axes || (opset >= 10 && !steps) || starts->size() != ends->size()) {
      // Rank is still known; only the sliced dims are not.
      if (axes && !axes->empty()) {
        Shape s = x->shape;
        for (int64_t a : *axes) {
          int64_t k = norm_axis(a, r);
          if (k >= 0 && k < r) s[static_cast<size_t>(k)] = U;
        }
        ch |= set_shape(*o, s);
      }
      return ch;
    }
    if (axes->empty())
      for (size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<int64_t>(i));
    if (steps && steps->empty()) steps->assign(starts->size(), 1);
    if (axes->size() != starts->size() || (steps && steps->size() != starts->size())) return ch;
    Shape s = x->shape;
    std::vector<std::vector<int64_t>> coords(static_cast<size_t>(r));
    bool coords_ok = x->shape_known();
    std::vector<bool> sliced(static_cast<size_t>(r), false);
    for (size_t i = 0; i < axes->size(); ++i) {
      int64_t k = norm_axis((*axes)[i], r);
      if (k < 0 || k >= r) return ch;
      int64_t step = steps ? (*steps)[i] : 1;
      auto sa = slice_axis(x->shape[static_cast<size_t>(k)], (*starts)[i], (*ends)[i], step);
      if (!sa) {
        s[static_cast<size_t>(k)] = U;
        coords_ok = false;
        continue;
      }
      s[static_cast<size_t>(k)] = sa->len;
      sliced[static_cast<size_t>(k)] = true;
      // Coordinates only for a tensor whose values are folded (at most k_max_fold_elems): a sliced
      // activation of 2^28 along an axis built a 2 GB index list for nothing (fuzz_onnx_import).
      if (has_values(x))
        for (int64_t j = 0; j < sa->len; ++j) coords[static_cast<size_t>(k)].push_back(sa->start + j * sa->step);
    }
    ch |= set_shape(*o, s);
    if (coords_ok && has_values(x) && known(s)) {
      for (int64_t k = 0; k < r; ++k)
        if (!sliced[static_cast<size_t>(k)])
          for (int64_t j = 0; j < x->shape[static_cast<size_t>(k)]; ++j) coords[static_cast<size_t>(k)].push_back(j);
      if (x->int_values) ch |= set_int_values(*o, s, gather_nd_coords(*x->int_values, x->shape, coords));
      else ch |= set_double_values(*o, s, gather_nd_coords(*x->float_values, x->shape, coords));
    }
    return ch;
  }
  if (op == "Concat") {
    std::vector<const Tensor*> ins;
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (const Tensor* t = g.input(n, i)) ins.push_back(t);
    for (auto* t : ins)
      if (!shaped(t)) return ch;
    const auto joined = concat_shape(ins, n.attr_int("axis", 0));
    if (!joined) return ch;
    const auto& [s, axis] = *joined;
    ch |= set_shape(*o, s);
    bool vals = known(s) && std::all_of(ins.begin(), ins.end(), [](const Tensor* t) { return has_values(t) && t->shape_known(); });
    if (vals) {
      int64_t outer = *checked_product(Shape(s.begin(), s.begin() + axis));
      bool all_int = std::all_of(ins.begin(), ins.end(), [](const Tensor* t) { return t->int_values.has_value(); });
      std::vector<double> dv;
      std::vector<int64_t> iv;
      for (int64_t a = 0; a < outer; ++a)
        for (auto* t : ins) {
          int64_t chunk = *checked_product(Shape(t->shape.begin() + axis, t->shape.end()));
          for (int64_t j = 0; j < chunk; ++j) {
            size_t src = static_cast<size_t>(a * chunk + j);
            if (all_int) iv.push_back((*t->int_values)[src]);
            else dv.push_back((*doubles_of(t))[src]);
          }
        }
      ch |= all_int ? set_int_values(*o, s, iv) : set_double_values(*o, s, dv);
    }
    return ch;
  }
  if (op == "Split") {
    if (!shaped(x)) return ch;
    int64_t r = static_cast<int64_t>(x->shape.size());
    int64_t axis = norm_axis(n.attr_int("axis", 0), r);
    if (axis < 0 || axis >= r) return ch;
    int64_t dim = x->shape[static_cast<size_t>(axis)];
    size_t outs = n.outputs.size();
    std::optional<std::vector<int64_t>> split;
    if (n.has_attr("split")) split = n.attr_ints("split");
    else if (opset >= 13 && g.input(n, 1)) split = ints_of(g.input(n, 1));
    else if (dim >= 0 && outs > 0) {
      int64_t k = static_cast<int64_t>(outs);
      int64_t each = (dim + k - 1) / k;  // opset 18 allows an uneven last chunk
      split = std::vector<int64_t>();
      for (int64_t i = 0; i < k; ++i) split->push_back(std::max<int64_t>(0, std::min(each, dim - i * each)));
    }
    for (size_t i = 0; i < outs; ++i) {
      Tensor* t = out_tensor(g, n, i);
      if (!t) continue;
      ch |= set_dtype(*t, x->dtype);
      Shape s = x->shape;
      s[static_cast<size_t>(axis)] = split && i < split->size() ? (*split)[i] : U;
      ch |= set_shape(*t, s);
    }
    return ch;
  }
  if (op == "Expand") {
    auto sv = ints_of(g.input(n, 1));
    if (!shaped(x) || !sv) return ch;
    auto s = broadcast({x->shape, *sv});
    if (!s) return ch;
    ch |= set_shape(*o, *s);
    if (has_values(x) && x->shape_known() && known(*s) && *numel_of(*s) <= k_max_fold_elems) {
      auto idx = bcast_index(x->shape, *s);
      if (x->int_values) {
        std::vector<int64_t> v;
        for (int64_t i : idx) v.push_back((*x->int_values)[static_cast<size_t>(i)]);
        ch |= set_int_values(*o, *s, v);
      } else {
        std::vector<double> v;
        for (int64_t i : idx) v.push_back((*x->float_values)[static_cast<size_t>(i)]);
        ch |= set_double_values(*o, *s, v);
      }
    }
    return ch;
  }
  if (op == "Tile") {
    auto rep = ints_of(g.input(n, 1));
    if (!shaped(x) || !rep || rep->size() != x->shape.size()) return ch;
    Shape s;
    for (size_t i = 0; i < rep->size(); ++i) s.push_back(x->shape[i] < 0 ? U : x->shape[i] * (*rep)[i]);
    return ch | set_shape(*o, s);
  }
  if (op == "Pad") {
    if (!shaped(x)) return ch;
    auto pads = opset < 11 ? std::optional(n.attr_ints("pads")) : ints_of(g.input(n, 1));
    if (!pads) return ch;
    size_t r = x->shape.size();
    Shape axes;
    if (opset >= 18 && g.input(n, 3)) {
      auto av = ints_of(g.input(n, 3));
      if (!av) return ch;
      axes = *av;
    } else {
      for (size_t i = 0; i < r; ++i) axes.push_back(static_cast<int64_t>(i));
    }
    if (pads->size() != 2 * axes.size()) return ch;
    Shape s = x->shape;
    for (size_t i = 0; i < axes.size(); ++i) {
      size_t k = static_cast<size_t>(norm_axis(axes[i], static_cast<int64_t>(r)));
      if (k >= r) return ch;
      if (s[k] >= 0) s[k] += (*pads)[i] + (*pads)[i + axes.size()];
    }
    return ch | set_shape(*o, s);
  }
  if (op == "Attention" && n.domain == "com.microsoft") return ch | infer_ms_attention(g, n);
  if ((op == "MultiHeadAttention" || op == "GroupQueryAttention") && n.domain == "com.microsoft")
    return ch | infer_ms_mha_gqa(g, n);
  if (op == "Attention") return ch | infer_onnx_attention(g, n);  // the default domain's (opset 23)
  if (op == "MatMulNBits" && n.domain == "com.microsoft") {  // A [..., K] x the N x K packed weights
    const Tensor* a = shaped(x);
    const int64_t cols = n.attr_int("N", -1);
    if (!a || a->shape.empty() || cols < 1) return ch;
    Shape s = a->shape;
    s.back() = cols;
    return ch | set_shape(*o, s);
  }
  if (op == "Conv" || op == "ConvTranspose" || op == "ConvInteger" || op == "QLinearConv" || op == "MaxPool" ||
      op == "AveragePool" || op == "LpPool" || op == "FusedConv" || op == "DeformConv") {
    ch |= conv_like(g, n, *o);
    if (op == "MaxPool")
      if (Tensor* m = out_tensor(g, n, 1)) {
        ch |= set_dtype(*m, DType::i64);
        if (o->has_shape) ch |= set_shape(*m, o->shape);
      }
    return ch;
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool") {
    if (!shaped(x) || x->shape.size() < 2) return ch;
    Shape s{x->shape[0], x->shape[1]};
    s.resize(x->shape.size(), 1);
    return ch | set_shape(*o, s);
  }
  if (op.rfind("Reduce", 0) == 0) return ch | infer_reduce(g, n, *o);
  if (op == "ArgMax" || op == "ArgMin") {
    if (!shaped(x)) return ch;
    int64_t r = static_cast<int64_t>(x->shape.size());
    int64_t axis = norm_axis(n.attr_int("axis", 0), r);
    Shape s;
    for (int64_t i = 0; i < r; ++i) {
      if (i != axis) s.push_back(x->shape[static_cast<size_t>(i)]);
      else if (n.attr_int("keepdims", 1)) s.push_back(1);
    }
    return ch | set_shape(*o, s);
  }
  if (op == "TopK") {
    if (!shaped(x)) return ch;
    auto k = n.has_attr("k") ? std::optional<int64_t>(n.attr_int("k", 0)) : scalar_int(g.input(n, 1));
    int64_t r = static_cast<int64_t>(x->shape.size());
    int64_t axis = norm_axis(n.attr_int("axis", -1), r);
    if (axis < 0 || axis >= r) return ch;
    Shape s = x->shape;
    s[static_cast<size_t>(axis)] = k ? *k : U;
    ch |= set_shape(*o, s);
    if (Tensor* ix = out_tensor(g, n, 1)) {
      ch |= set_dtype(*ix, DType::i64);
      ch |= set_shape(*ix, s);
    }
    return ch;
  }
  if (op == "Resize" || op == "Upsample") return ch | infer_resize(g, n, *o);
  if (op == "CenterCropPad" || op == "Col2Im" || op == "AffineGrid" || op == "GridSample" || op == "DFT")
    return ch | infer_signal_and_grid(g, n, *o);
  if (op == "Det" && shaped(x) && x->shape.size() >= 2)  // [..., n, n] -> [...]
    return ch | set_shape(*o, Shape(x->shape.begin(), x->shape.end() - 2));
  if (op == "Multinomial" && shaped(x) && x->shape.size() == 2)  // [batch, classes] -> [batch, sample_size]
    return ch | set_shape(*o, Shape{x->shape[0], n.attr_int("sample_size", 1)});
  if (op == "STFT" || op == "MelWeightMatrix" || op == "HannWindow" || op == "HammingWindow" ||
      op == "BlackmanWindow" || op == "MaxUnpool" || op == "SoftmaxCrossEntropyLoss" ||
      op == "NegativeLogLikelihoodLoss")
    return ch | infer_audio_unpool_loss(g, n, *o);
  if (op == "Einsum") return ch | infer_einsum(g, n, *o);
  if (op == "LSTM" || op == "GRU" || op == "RNN") return ch | infer_rnn(g, n);
  if (op == "DepthToSpace" || op == "SpaceToDepth") {
    if (!shaped(x) || x->shape.size() != 4) return ch;
    int64_t b = n.attr_int("blocksize", 1);
    const Shape& xs = x->shape;
    auto mul = [](int64_t a, int64_t c) { return a < 0 ? U : a * c; };
    auto div = [](int64_t a, int64_t c) { return a < 0 ? U : a / c; };
    Shape s = op == "DepthToSpace" ? Shape{xs[0], div(xs[1], b * b), mul(xs[2], b), mul(xs[3], b)}
                                   : Shape{xs[0], mul(xs[1], b * b), div(xs[2], b), div(xs[3], b)};
    return ch | set_shape(*o, s);
  }
  if (op == "OneHot") {
    const Tensor* d = g.input(n, 1);
    auto depth = scalar_int(d);
    if (!shaped(x) || !depth) return ch;
    Shape s = x->shape;
    int64_t r = static_cast<int64_t>(s.size()) + 1;
    int64_t axis = norm_axis(n.attr_int("axis", -1), r);
    s.insert(s.begin() + axis, *depth);
    if (const Tensor* v = g.input(n, 2)) ch |= set_dtype(*o, v->dtype);
    return ch | set_shape(*o, s);
  }
  if (op == "RoiAlign" || op == "MaxRoiPool") {  // [RoIs, C, out_h, out_w]: one pooled map per region
    const Tensor* rois = shaped(g.input(n, 1));
    if (!shaped(x) || x->shape.size() != 4 || !rois || rois->shape.size() != 2) return ch;
    int64_t oh = n.attr_int("output_height", 1), ow = n.attr_int("output_width", 1);
    if (op == "MaxRoiPool") {
      const auto pooled = n.attr_ints("pooled_shape");
      if (pooled.size() != 2) return ch;
      oh = pooled[0];
      ow = pooled[1];
    }
    ch |= set_dtype(*o, x->dtype);
    return ch | set_shape(*o, Shape{rois->shape[0], x->shape[1], oh, ow});
  }
  if (op == "NonMaxSuppression") {  // [selected, 3] (batch, class, box) triples; how many is data
    ch |= set_dtype(*o, DType::i64);
    // At most every class of every image keeps max_output_boxes_per_class of its N boxes: all N where that input
    // is not a known constant, none where it is absent (the spec's default, 0: no output).
    const Tensor* boxes = shaped(x);
    const Tensor* scores = shaped(g.input(n, 1));
    int64_t upper = U;
    if (boxes && scores && boxes->shape_known() && scores->shape_known() && boxes->shape.size() == 3 &&
        scores->shape.size() == 3) {
      int64_t per_class = g.input(n, 2) ? boxes->shape[1] : 0;
      if (auto m = scalar_int(g.input(n, 2)); m && *m >= 0) per_class = std::min(per_class, *m);
      upper = numel_of(Shape{scores->shape[0], scores->shape[1], per_class}).value_or(U);
    }
    return ch | set_shape(*o, Shape{data_count(g, n, upper).value_or(U), 3});
  }
  if (op == "NonZero") {
    if (!shaped(x)) return ch;
    int64_t r = static_cast<int64_t>(x->shape.size());
    if (has_values(x) && x->shape_known()) {
      auto v = *doubles_of(x);
      int64_t cnt = std::count_if(v.begin(), v.end(), [](double d) { return d != 0; });
      Shape s{r, cnt};
      ch |= set_shape(*o, s);
      std::vector<int64_t> coords(static_cast<size_t>(r * cnt));
      int64_t col = 0;
      for (size_t f = 0; f < v.size(); ++f) {
        if (v[f] == 0) continue;
        int64_t rem = static_cast<int64_t>(f);
        for (int64_t d = r; d-- > 0;) {
          coords[static_cast<size_t>(d * cnt + col)] = rem % x->shape[static_cast<size_t>(d)];
          rem /= x->shape[static_cast<size_t>(d)];
        }
        ++col;
      }
      ch |= set_int_values(*o, s, coords);
    } else {
      const int64_t upper = x->shape_known() ? x->numel().value_or(U) : U;
      ch |= set_shape(*o, Shape{r, data_count(g, n, upper).value_or(U)});
    }
    return ch;
  }
  if (op == "Unique") {  // the distinct elements (or slices along `axis`): as many as --data-count says, at most all
    if (!shaped(x)) return ch;
    const bool flat = !n.has_attr("axis");
    const int64_t r = static_cast<int64_t>(x->shape.size());
    const int64_t axis = flat ? 0 : norm_axis(n.attr_int("axis", 0), r);
    if (!flat && (axis < 0 || axis >= r)) return ch;
    const int64_t all = flat ? (x->shape_known() ? x->numel().value_or(U) : U) : x->shape[static_cast<size_t>(axis)];
    const int64_t kept = data_count(g, n, all).value_or(U);
    Shape y = flat ? Shape{kept} : x->shape;
    if (!flat) y[static_cast<size_t>(axis)] = kept;
    ch |= set_shape(*o, y);
    for (size_t i = 1; i < 4; ++i)  // indices [kept], inverse_indices [all], counts [kept]: int64
      if (Tensor* t = out_tensor(g, n, i)) ch |= set_type(*t, DType::i64, Shape{i == 2 ? all : kept});
    return ch;
  }
  if (op == "Compress") {  // the slices along `axis` (or elements of the flattened input) its condition keeps
    if (!shaped(x)) return ch;
    const Tensor* cond = shaped(g.input(n, 1));
    const bool flat = !n.has_attr("axis");
    const int64_t r = static_cast<int64_t>(x->shape.size());
    const int64_t axis = flat ? 0 : norm_axis(n.attr_int("axis", 0), r);
    if (!flat && (axis < 0 || axis >= r)) return ch;
    int64_t upper = flat ? (x->shape_known() ? x->numel().value_or(U) : U) : x->shape[static_cast<size_t>(axis)];
    if (cond && cond->shape_known() && cond->shape.size() == 1 && upper >= 0) upper = std::min(upper, cond->shape[0]);
    const int64_t kept = data_count(g, n, upper).value_or(U);
    if (flat) return ch | set_shape(*o, Shape{kept});
    Shape s = x->shape;
    s[static_cast<size_t>(axis)] = kept;
    return ch | set_shape(*o, s);
  }
  return ch;
}

int propagate(Graph& g) {
  int passes = 0;
  for (int iter = 0; iter < 8; ++iter) {
    bool any = false;
    for (auto& n : g.nodes) any |= infer_node(g, n);
    if (!any) break;
    ++passes;
  }
  return passes;
}

}  // namespace perfpred::onnx_import::detail

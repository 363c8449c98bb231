// Validation of one node's attributes and input shapes against the ONNX operator specs, run before the
// node's shape rule. Only what is known is checked (an unknown dim never fails), so the check is safe on
// every propagation pass; a graph ONNX itself would reject must not import with a silently wrong shape
// or cost. Messages name the node, its op and the attribute or input; the importer prefixes the file.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "perfpred/util/checked_math.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"
#include "shape_rules.hpp"

namespace perfpred::onnx_import::detail {

namespace {

using Shape = std::vector<int64_t>;

constexpr size_t k_max_name_bytes = 120;  // of a node or tensor name quoted in an error
// The last TensorProto.DataType code (opset 26's INT2); complex64/128 (14, 15) are types perfpred does not size.
constexpr int64_t k_max_onnx_dtype = 26;

std::string dims_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + (s[i] < 0 ? std::string("?") : std::to_string(s[i]));
  return r + "]";
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) r += (i ? "," : "") + std::to_string(v[i]);
  return r + "]";
}

class Check {
 public:
  Check(const Graph& g, const Node& n) : m_g(g), m_n(n) {}

  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError("node '" + printable(m_n.name, k_max_name_bytes) + "' (" + printable(m_n.op, k_max_name_bytes) +
                     "): " + msg);
  }

  /// Input i when present and shaped (rank known), else nullptr.
  const Tensor* shaped(size_t i) const {
    const Tensor* t = m_g.input(m_n, i);
    return t && t->has_shape ? t : nullptr;
  }

  std::string in_desc(size_t i) const {
    const Tensor* t = m_g.input(m_n, i);
    if (!t) return "input " + std::to_string(i);
    return "input '" + printable(t->name, k_max_name_bytes) + "' " + (t->has_shape ? dims_str(t->shape) : std::string("(unshaped)"));
  }

  const std::vector<int64_t>* ints(const std::string& key) const {
    auto it = m_n.attrs.find(key);
    return it == m_n.attrs.end() ? nullptr : std::get_if<std::vector<int64_t>>(&it->second);
  }

  std::optional<int64_t> int_attr(const std::string& key) const {
    auto it = m_n.attrs.find(key);
    if (it == m_n.attrs.end()) return std::nullopt;
    if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
    return std::nullopt;
  }

  /// Folded integer values of input i (a constant shape, axes or split input), else nullopt.
  std::optional<std::vector<int64_t>> const_ints(size_t i) const {
    const Tensor* t = m_g.input(m_n, i);
    if (!t) return std::nullopt;
    if (t->int_values) return *t->int_values;
    return std::nullopt;
  }

  std::optional<std::vector<double>> const_doubles(size_t i) const {
    const Tensor* t = m_g.input(m_n, i);
    if (!t) return std::nullopt;
    if (t->float_values) return *t->float_values;
    if (t->int_values) return std::vector<double>(t->int_values->begin(), t->int_values->end());
    return std::nullopt;
  }

  /// An axis must lie in [-rank, rank - 1] (or [-rank, rank] when `end_inclusive`, as Flatten's).
  /// Returns the normalised axis. `rank_of` describes what the rank belongs to (default: the input).
  int64_t axis(const std::string& what, int64_t a, int64_t rank, size_t input, bool end_inclusive = false,
               const std::string& rank_of = "") const {
    int64_t hi = end_inclusive ? rank : rank - 1;
    if (a < -rank || a > hi)
      fail(what + " = " + std::to_string(a) + " is out of range [" + std::to_string(-rank) + ", " + std::to_string(hi) +
           "] for " + (rank_of.empty() ? "rank-" + std::to_string(rank) + " " + in_desc(input) : rank_of));
    return a < 0 ? a + rank : a;
  }

  /// A list of axes: each in range and none repeated.
  std::vector<int64_t> axes(const std::string& what, const std::vector<int64_t>& v, int64_t rank, size_t input,
                            const std::string& rank_of = "") const {
    std::vector<int64_t> r;
    for (int64_t a : v) {
      int64_t k = axis(what + " " + ints_str(v) + ": axis", a, rank, input, false, rank_of);
      if (std::find(r.begin(), r.end(), k) != r.end())
        fail(what + " " + ints_str(v) + " names axis " + std::to_string(k) + " twice");
      r.push_back(k);
    }
    return r;
  }

  const Graph& m_g;
  const Node& m_n;
};

bool is_conv_or_pool(const std::string& op) {
  return op == "Conv" || op == "ConvTranspose" || op == "ConvInteger" || op == "QLinearConv" || op == "MaxPool" ||
         op == "AveragePool" || op == "LpPool";
}

const std::unordered_set<std::string> k_broadcast_ops = {
    "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And",
    "Or", "Xor", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Max", "Min", "Sum", "Mean", "Where"};

// Every op validate_node has a rule for; the rest (Relu, Identity, ...) return after one lookup, which
// keeps the check cheap on the propagation passes that call it for every node.
const std::unordered_set<std::string> k_checked_ops = [] {
  std::unordered_set<std::string> s(k_broadcast_ops);
  for (const char* op : {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool",
                         "MatMul", "MatMulInteger", "QLinearMatMul", "Gemm", "Concat", "Reshape", "Slice", "Split",
                         "Squeeze", "Unsqueeze", "Transpose", "BatchNormalization", "InstanceNormalization",
                         "DepthToSpace", "SpaceToDepth", "Pad", "Einsum", "ReduceMean", "ReduceSum", "ReduceMax",
                         "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                         "ReduceSumSquare", "Expand", "Range", "Flatten", "Softmax", "LogSoftmax", "Hardmax",
                         "LayerNormalization", "Gather", "GatherElements", "ScatterElements", "ArgMax", "ArgMin",
                         "CumSum", "CumProd", "TopK", "OneHot", "Tile", "Resize", "Upsample", "LSTM", "GRU", "RNN",
                         "STFT", "Cast", "BitCast", "TensorScatter"})
    s.insert(op);
  return s;
}();

// Numpy broadcasting of known dims; returns the first dim index (from the right) where two disagree.
std::optional<std::pair<int64_t, int64_t>> broadcast_conflict(const Shape& a, const Shape& b) {
  size_t r = std::min(a.size(), b.size());
  for (size_t k = 0; k < r; ++k) {
    int64_t x = a[a.size() - 1 - k], y = b[b.size() - 1 - k];
    if (x >= 0 && y >= 0 && x != 1 && y != 1 && x != y) return std::pair{x, y};
  }
  return std::nullopt;
}

void check_conv_pool(const Check& c, const Node& n) {
  const Tensor* x = c.shaped(0);
  if (!x) return;
  const Shape& xs = x->shape;
  const bool is_pool = n.op == "MaxPool" || n.op == "AveragePool" || n.op == "LpPool";
  const bool is_tconv = n.op == "ConvTranspose";
  if (xs.size() < 3) c.fail(c.in_desc(0) + " has rank " + std::to_string(xs.size()) + "; it needs N, C and at least one spatial dim");
  const size_t sp = xs.size() - 2;
  const Tensor* w = is_pool ? nullptr : c.shaped(n.op == "QLinearConv" ? 3 : 1);
  if (w && w->shape.size() != xs.size()) w = nullptr;  // the importer's rank check names this case
  const auto* kernel = c.ints("kernel_shape");
  if (is_pool && !kernel) c.fail("attribute 'kernel_shape' is required");
  auto per_dim = [&](const char* key, size_t want, int64_t min) -> const std::vector<int64_t>* {
    const auto* v = c.ints(key);
    if (!v) return nullptr;
    if (v->size() != want)
      c.fail(std::string("attribute '") + key + "' " + ints_str(*v) + " has " + std::to_string(v->size()) + " values; " +
             c.in_desc(0) + " has " + std::to_string(sp) + " spatial dims, so it needs " + std::to_string(want));
    for (int64_t d : *v)
      if (d < min)
        c.fail(std::string("attribute '") + key + "' " + ints_str(*v) + " has " + (min > 0 ? "a value < 1" : "a negative value") +
               "; " + (min > 0 ? "every value must be >= 1" : "padding must be >= 0"));
    return v;
  };
  per_dim("kernel_shape", sp, 1);
  per_dim("strides", sp, 1);
  const auto* dil = per_dim("dilations", sp, 1);
  const auto* pads = per_dim("pads", 2 * sp, 0);
  if (!is_pool) {
    if (auto g = c.int_attr("group"); g && *g < 1) c.fail("attribute 'group' = " + std::to_string(*g) + " must be >= 1");
  }
  int64_t group = is_pool ? 1 : n.attr_int("group", 1);
  if (w) {
    const Shape& ws = w->shape;
    if (kernel)
      for (size_t i = 0; i < sp; ++i)
        if (ws[2 + i] >= 0 && (*kernel)[i] != ws[2 + i])
          c.fail("attribute 'kernel_shape' " + ints_str(*kernel) + " does not match the weight's spatial dims of " +
                 c.in_desc(n.op == "QLinearConv" ? 3 : 1));
    // Conv: C_in = W[1] * group. ConvTranspose: C_in = W[0].
    int64_t c_in = xs[1];
    if (c_in >= 0) {
      if (is_tconv) {
        if (ws[0] >= 0 && ws[0] != c_in)
          c.fail(c.in_desc(0) + " has " + std::to_string(c_in) + " channels but weight " + c.in_desc(1) + " expects " +
                 std::to_string(ws[0]));
      } else if (ws[1] >= 0) {
        auto want = checked_mul(ws[1], group);
        if (!want || *want != c_in)
          c.fail(c.in_desc(0) + " has " + std::to_string(c_in) + " channels but weight " +
                 c.in_desc(n.op == "QLinearConv" ? 3 : 1) + " x group " + std::to_string(group) + " expects " +
                 (want ? std::to_string(*want) : std::string("an overflowing count")));
      }
    }
    if (ws[0] >= 0 && !is_tconv && ws[0] % group != 0)
      c.fail("group " + std::to_string(group) + " does not divide the weight's " + std::to_string(ws[0]) + " output channels");
  }
  if (is_tconv) return;
  // The (dilated) window must fit into the padded input, else the output is empty.
  std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") return;
  for (size_t i = 0; i < sp; ++i) {
    int64_t in = xs[2 + i];
    int64_t k = kernel ? (*kernel)[i] : (w ? w->shape[2 + i] : -1);
    if (in < 0 || k < 0) continue;
    int64_t d = dil ? (*dil)[i] : 1;
    int64_t pb = pads && auto_pad != "VALID" ? (*pads)[i] : 0, pe = pads && auto_pad != "VALID" ? (*pads)[sp + i] : 0;
    auto eff = checked_add(*checked_mul(d, k - 1), 1);
    auto padded = checked_add(in, pb + pe);
    if (eff && padded && *eff > *padded)
      c.fail("the " + (d > 1 ? "dilated kernel spans " : std::string("kernel spans ")) + std::to_string(*eff) +
             " in spatial dim " + std::to_string(i) + " but " + c.in_desc(0) + " is only " + std::to_string(*padded) +
             " there with padding; the output would be empty");
  }
}

void check_reshape(const Check& c, const Node& n, int64_t opset) {
  const Tensor* x = c.shaped(0);
  std::optional<std::vector<int64_t>> sv;
  if (opset < 5 && c.ints("shape")) sv = *c.ints("shape");
  else sv = c.const_ints(1);
  if (!sv) return;
  const bool allowzero = n.attr_int("allowzero", 0) != 0;
  Shape s = *sv;
  int neg = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] < -1) c.fail("shape " + ints_str(*sv) + " has " + std::to_string(s[i]) + "; only -1 (infer) and sizes >= 0 are allowed");
    if (s[i] == -1) {
      if (neg >= 0) c.fail("shape " + ints_str(*sv) + " has more than one -1");
      neg = static_cast<int>(i);
    } else if (s[i] == 0 && !allowzero) {
      if (x && i >= x->shape.size())
        c.fail("shape " + ints_str(*sv) + " copies dim " + std::to_string(i) + " (0) from " + c.in_desc(0) + ", which has no such dim");
      s[i] = x ? x->shape[i] : -2;
    }
  }
  if (!x || !x->shape_known()) return;
  auto total = x->numel();
  if (!total) return;
  int64_t part = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (static_cast<int>(i) == neg) continue;
    if (s[i] < 0) return;  // copied from an unknown dim
    auto p = checked_mul(part, s[i]);
    if (!p) c.fail("shape " + ints_str(*sv) + " overflows int64 elements");
    part = *p;
  }
  if (neg >= 0) {
    if (part == 0 ? *total != 0 : *total % part != 0)
      c.fail("shape " + ints_str(*sv) + " cannot hold the " + std::to_string(*total) + " elements of " + c.in_desc(0) +
             " (the known dims multiply to " + std::to_string(part) + ")");
  } else if (part != *total) {
    c.fail("shape " + ints_str(*sv) + " has " + std::to_string(part) + " elements but " + c.in_desc(0) + " has " +
           std::to_string(*total));
  }
}

void check_slice(const Check& c, int64_t opset) {
  const Tensor* x = c.shaped(0);
  if (!x) return;
  const int64_t r = static_cast<int64_t>(x->shape.size());
  std::optional<std::vector<int64_t>> starts, ends, axes, steps;
  if (opset < 10) {
    if (c.ints("starts")) starts = *c.ints("starts");
    if (c.ints("ends")) ends = *c.ints("ends");
    if (c.ints("axes")) axes = *c.ints("axes");
  } else {
    starts = c.const_ints(1);
    ends = c.const_ints(2);
    axes = c.const_ints(3);
    steps = c.const_ints(4);
  }
  if (starts && ends && starts->size() != ends->size())
    c.fail("starts " + ints_str(*starts) + " and ends " + ints_str(*ends) + " differ in length");
  if (axes) {
    c.axes("axes", *axes, r, 0);
    if (starts && axes->size() != starts->size())
      c.fail("axes " + ints_str(*axes) + " and starts " + ints_str(*starts) + " differ in length");
  } else if (starts && static_cast<int64_t>(starts->size()) > r) {
    c.fail("starts " + ints_str(*starts) + " has more values than " + c.in_desc(0) + " has dims");
  }
  if (steps) {
    if (starts && steps->size() != starts->size())
      c.fail("steps " + ints_str(*steps) + " and starts " + ints_str(*starts) + " differ in length");
    if (std::find(steps->begin(), steps->end(), 0) != steps->end()) c.fail("steps " + ints_str(*steps) + " has a 0 step");
  }
}

void check_split(const Check& c, const Node& n, int64_t opset) {
  const Tensor* x = c.shaped(0);
  if (!x) return;
  const int64_t r = static_cast<int64_t>(x->shape.size());
  const int64_t ax = c.axis("attribute 'axis'", n.attr_int("axis", 0), r, 0);
  std::optional<std::vector<int64_t>> split;
  if (c.ints("split")) split = *c.ints("split");
  else if (opset >= 13) split = c.const_ints(1);
  if (!split) return;
  const std::string what = opset >= 13 && !c.ints("split") ? "split input " : "attribute 'split' ";
  if (split->size() != n.outputs.size())
    c.fail(what + ints_str(*split) + " has " + std::to_string(split->size()) + " sizes for " +
           std::to_string(n.outputs.size()) + " outputs");
  int64_t sum = 0;
  for (int64_t s : *split) {
    if (s < 0) c.fail(what + ints_str(*split) + " has a negative size");
    sum += s;
  }
  int64_t dim = x->shape[static_cast<size_t>(ax)];
  if (dim >= 0 && sum != dim)
    c.fail(what + ints_str(*split) + " sums to " + std::to_string(sum) + " but axis " + std::to_string(ax) + " of " +
           c.in_desc(0) + " is " + std::to_string(dim));
}

void check_squeeze(const Check& c, const Node& n, int64_t opset) {
  const Tensor* x = c.shaped(0);
  if (!x) return;
  std::optional<std::vector<int64_t>> axes;
  const bool from_attr = opset < 13 || n.has_attr("axes");
  if (from_attr) {
    if (c.ints("axes")) axes = *c.ints("axes");
  } else {
    axes = c.const_ints(1);
  }
  if (!axes) return;
  const std::string what = from_attr ? "attribute 'axes'" : "axes input";
  const int64_t r = static_cast<int64_t>(x->shape.size());
  if (n.op == "Squeeze") {
    for (int64_t k : c.axes(what, *axes, r, 0)) {
      int64_t d = x->shape[static_cast<size_t>(k)];
      if (d >= 0 && d != 1)
        c.fail(what + " " + ints_str(*axes) + " squeezes axis " + std::to_string(k) + " of " + c.in_desc(0) +
               ", which has size " + std::to_string(d) + ", not 1");
    }
  } else {
    const int64_t out_rank = r + static_cast<int64_t>(axes->size());
    c.axes(what, *axes, out_rank, 0, "the rank-" + std::to_string(out_rank) + " output of " + c.in_desc(0));
  }
}

void check_batchnorm(const Check& c, const Node& n, int64_t opset) {
  const Tensor* x = c.shaped(0);
  if (!x) return;
  if (x->shape.size() < 2) c.fail(c.in_desc(0) + " must have rank >= 2 (N, C, ...)");
  const int64_t ch = x->shape[1];
  if (ch < 0) return;
  const bool instance = n.op == "InstanceNormalization";
  if (!instance && opset < 9 && n.attr_int("spatial", 1) == 0) return;  // per-activation statistics
  static const char* const k_bn[] = {"scale", "B", "mean", "var"};
  static const char* const k_in[] = {"scale", "B"};
  const size_t count = instance ? 2 : 4;
  for (size_t i = 0; i < count; ++i) {
    const Tensor* t = c.shaped(i + 1);
    if (!t || !t->shape_known()) continue;
    if (t->shape.size() != 1 || t->shape[0] != ch)
      c.fail(std::string(instance ? k_in[i] : k_bn[i]) + " " + c.in_desc(i + 1) + " must be 1-D of length " +
             std::to_string(ch) + ", the channels of " + c.in_desc(0));
  }
}

void check_depth_to_space(const Check& c, const Node& n) {
  auto b = c.int_attr("blocksize");
  if (!b) c.fail("attribute 'blocksize' is required");
  if (*b < 1) c.fail("attribute 'blocksize' = " + std::to_string(*b) + " must be >= 1");
  const Tensor* x = c.shaped(0);
  if (!x) return;
  const Shape& xs = x->shape;
  if (xs.size() != 4) c.fail(c.in_desc(0) + " must be 4-D [N, C, H, W]");
  if (n.op == "DepthToSpace") {
    auto bb = checked_mul(*b, *b);
    if (xs[1] >= 0 && (!bb || xs[1] % *bb != 0))
      c.fail("channels " + std::to_string(xs[1]) + " of " + c.in_desc(0) + " are not divisible by blocksize^2 = " +
             (bb ? std::to_string(*bb) : std::string("(overflow)")));
  } else {
    for (size_t i = 2; i < 4; ++i)
      if (xs[i] >= 0 && xs[i] % *b != 0)
        c.fail("dim " + std::to_string(i) + " (" + std::to_string(xs[i]) + ") of " + c.in_desc(0) +
               " is not divisible by blocksize " + std::to_string(*b));
  }
}

// B is input 1, or 3 for QLinearMatMul (a, a_scale, a_zero_point, b, ...).
void check_matmul(const Check& c, size_t bslot) {
  const Tensor* a = c.shaped(0);
  const Tensor* b = c.shaped(bslot);
  if (!a || !b) return;
  if (a->shape.empty() || b->shape.empty())
    c.fail("inputs must have rank >= 1 (got " + c.in_desc(0) + ", " + c.in_desc(bslot) + ")");
  int64_t k = a->shape.back();
  int64_t kb = b->shape.size() == 1 ? b->shape[0] : b->shape[b->shape.size() - 2];
  if (k >= 0 && kb >= 0 && k != kb)
    c.fail("inner dimensions differ: " + c.in_desc(0) + " has " + std::to_string(k) + ", " + c.in_desc(bslot) +
           " has " + std::to_string(kb));
  if (a->shape.size() > 2 && b->shape.size() > 2) {
    Shape ba(a->shape.begin(), a->shape.end() - 2), bb(b->shape.begin(), b->shape.end() - 2);
    if (auto bad = broadcast_conflict(ba, bb))
      c.fail("batch dimensions of " + c.in_desc(0) + " and " + c.in_desc(bslot) + " do not broadcast (" +
             std::to_string(bad->first) + " vs " + std::to_string(bad->second) + ")");
  }
}

void check_gemm(const Check& c, const Node& n) {
  const Tensor* a = c.shaped(0);
  const Tensor* b = c.shaped(1);
  if (a && a->shape.size() != 2) c.fail("A " + c.in_desc(0) + " must be 2-D");
  if (b && b->shape.size() != 2) c.fail("B " + c.in_desc(1) + " must be 2-D");
  if (!a || !b) return;
  int64_t k = n.attr_int("transA", 0) ? a->shape[0] : a->shape[1];
  int64_t kb = n.attr_int("transB", 0) ? b->shape[1] : b->shape[0];
  if (k >= 0 && kb >= 0 && k != kb)
    c.fail("inner dimensions differ: A " + c.in_desc(0) + " gives " + std::to_string(k) + ", B " + c.in_desc(1) +
           " gives " + std::to_string(kb) + " (transA " + std::to_string(n.attr_int("transA", 0)) + ", transB " +
           std::to_string(n.attr_int("transB", 0)) + ")");
}

void check_concat(const Check& c, const Node& n) {
  const Tensor* first = nullptr;
  size_t first_i = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (const Tensor* t = c.shaped(i)) {
      first = t;
      first_i = i;
      break;
    }
  if (!first) return;
  const int64_t r = static_cast<int64_t>(first->shape.size());
  const int64_t ax = c.axis("attribute 'axis'", n.attr_int("axis", 0), r, first_i);
  for (size_t i = first_i + 1; i < n.inputs.size(); ++i) {
    const Tensor* t = c.shaped(i);
    if (!t) continue;
    if (static_cast<int64_t>(t->shape.size()) != r)
      c.fail(c.in_desc(i) + " has rank " + std::to_string(t->shape.size()) + " but " + c.in_desc(first_i) + " has rank " +
             std::to_string(r));
    for (int64_t d = 0; d < r; ++d) {
      int64_t p = first->shape[static_cast<size_t>(d)], q = t->shape[static_cast<size_t>(d)];
      if (d != ax && p >= 0 && q >= 0 && p != q)
        c.fail(c.in_desc(i) + " differs from " + c.in_desc(first_i) + " in dim " + std::to_string(d) +
               "; only the concatenation axis " + std::to_string(ax) + " may differ");
    }
  }
}

void check_transpose(const Check& c) {
  const Tensor* x = c.shaped(0);
  const auto* perm = c.ints("perm");
  if (!x || !perm) return;
  const int64_t r = static_cast<int64_t>(x->shape.size());
  if (static_cast<int64_t>(perm->size()) != r)
    c.fail("attribute 'perm' " + ints_str(*perm) + " has " + std::to_string(perm->size()) + " values for rank-" +
           std::to_string(r) + " " + c.in_desc(0));
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (int64_t p : *perm) {
    if (p < 0 || p >= r)
      c.fail("attribute 'perm' " + ints_str(*perm) + " has " + std::to_string(p) + ", out of range [0, " +
             std::to_string(r - 1) + "] for " + c.in_desc(0));
    if (seen[static_cast<size_t>(p)]) c.fail("attribute 'perm' " + ints_str(*perm) + " names axis " + std::to_string(p) + " twice");
    seen[static_cast<size_t>(p)] = true;
  }
}

// One term per input and only letters, ',', '...' and '->' in every equation; then, for equations without
// "..." only (the analysis checks ellipsis broadcasting), one letter per dim, and a letter's known sizes
// agree (1 broadcasts, as the analysis accepts).
void check_einsum(const Check& c, const Node& n) {
  std::string eq;
  for (char ch : n.attr_string("equation", ""))
    if (ch != ' ') eq += ch;
  if (eq.empty()) c.fail("attribute 'equation' is required");
  std::string lhs = eq.substr(0, eq.find("->"));
  const std::vector<std::string> terms = split(lhs, ',');
  if (terms.size() != n.inputs.size())
    c.fail("equation '" + eq + "' has " + std::to_string(terms.size()) + " operands but the node has " +
           std::to_string(n.inputs.size()) + " inputs");
  for (char ch : eq)
    if (!std::isalpha(static_cast<unsigned char>(ch)) && ch != ',' && ch != '-' && ch != '>' && ch != '.')
      c.fail("equation '" + eq + "' has the character '" + std::string(1, ch) +
             "'; only letters, ',', '...' and '->' are allowed");
  if (eq.find('.') != std::string::npos) return;
  int64_t size[128];
  std::fill(std::begin(size), std::end(size), -1);
  for (size_t i = 0; i < terms.size(); ++i) {
    const Tensor* t = c.shaped(i);
    if (!t) continue;
    if (t->shape.size() != terms[i].size())
      c.fail("equation term '" + terms[i] + "' has " + std::to_string(terms[i].size()) + " letters for rank-" +
             std::to_string(t->shape.size()) + " " + c.in_desc(i));
    for (size_t k = 0; k < terms[i].size(); ++k) {
      int64_t d = t->shape[k];
      int64_t& s = size[static_cast<unsigned char>(terms[i][k]) & 127];
      if (d < 0) continue;
      if (s < 0 || s == 1) s = d;
      else if (d != 1 && d != s)
        c.fail("equation '" + eq + "' gives index '" + std::string(1, terms[i][k]) + "' size " + std::to_string(s) +
               " elsewhere but " + std::to_string(d) + " in " + c.in_desc(i));
    }
  }
}

// X [seq, batch, input] ([batch, seq, input] with layout 1), W [dirs, gates * hidden, input], R [dirs, gates * hidden, hidden].
void check_rnn(const Check& c, const Node& n) {
  auto h = c.int_attr("hidden_size");
  if (h && *h < 1) c.fail("attribute 'hidden_size' = " + std::to_string(*h) + " must be >= 1");
  const Tensor* x = c.shaped(0);
  if (x && x->shape.size() != 3) c.fail("X " + c.in_desc(0) + " must be 3-D");
  const int64_t gates = n.op == "LSTM" ? 4 : n.op == "GRU" ? 3 : 1;
  const int64_t dirs = n.attr_string("direction", "forward") == "bidirectional" ? 2 : 1;
  const int64_t input = x ? x->shape[2] : -1;
  auto check = [&](size_t slot, const char* name, int64_t last, const std::string& last_what) {
    const Tensor* t = c.shaped(slot);
    if (!t) return;
    if (t->shape.size() != 3) c.fail(std::string(name) + " " + c.in_desc(slot) + " must be 3-D");
    const Shape& s = t->shape;
    std::string want = "[" + std::to_string(dirs) + ", " + std::to_string(gates) + " gates x hidden_size" +
                       (h ? " " + std::to_string(*h) : std::string()) + ", " + last_what + "]";
    if ((s[0] >= 0 && s[0] != dirs) || (s[1] >= 0 && (s[1] % gates != 0 || (h && s[1] != gates * *h))) ||
        (s[2] >= 0 && last >= 0 && s[2] != last))
      c.fail(std::string(name) + " " + c.in_desc(slot) + " does not match " + want);
  };
  check(1, "W", input, "input size " + (input >= 0 ? std::to_string(input) : std::string("?")));
  check(2, "R", h ? *h : -1, "hidden_size");
}

void check_reduce(const Check& c, const Node& n) {
  const Tensor* x = c.shaped(0);
  if (!x) return;
  std::optional<std::vector<int64_t>> axes;
  std::string what = "attribute 'axes'";
  if (c.ints("axes")) axes = *c.ints("axes");
  else if (c.m_g.input(n, 1)) {
    axes = c.const_ints(1);
    what = "axes input";
  }
  if (axes) c.axes(what, *axes, static_cast<int64_t>(x->shape.size()), 0);
}

void check_pad(const Check& c, int64_t opset) {
  const Tensor* x = c.shaped(0);
  if (!x) return;
  std::optional<std::vector<int64_t>> pads;
  if (opset < 11) {
    if (c.ints("pads")) pads = *c.ints("pads");
  } else {
    pads = c.const_ints(1);
  }
  if (!pads) return;
  const size_t r = x->shape.size();
  std::vector<int64_t> axes;
  if (opset >= 18 && c.m_g.input(c.m_n, 3)) {
    auto av = c.const_ints(3);
    if (!av) return;
    axes = c.axes("axes input", *av, static_cast<int64_t>(r), 0);
  } else {
    for (size_t i = 0; i < r; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (pads->size() != 2 * axes.size())
    c.fail("pads " + ints_str(*pads) + " has " + std::to_string(pads->size()) + " values; " + c.in_desc(0) + " needs " +
           std::to_string(2 * axes.size()));
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t d = x->shape[static_cast<size_t>(axes[i])];
    if (d >= 0 && d + (*pads)[i] + (*pads)[i + axes.size()] < 0)
      c.fail("pads " + ints_str(*pads) + " crop axis " + std::to_string(axes[i]) + " of " + c.in_desc(0) + " below zero");
  }
}

// Sequences, optionals and tensors are different kinds of value: a sequence op's first input must be a sequence
// (where its kind is known), and no other op but Identity and control flow takes one; only the Optional ops take
// an optional.
void check_sequence_kinds(const Check& c, const Node& n) {
  const std::string& op = n.op;
  const bool takes_sequence = is_sequence_op(op) && op != "SequenceEmpty" && op != "SequenceConstruct" &&
                              op != "SplitToSequence";
  if (op == "Identity" || op == "Loop" || op == "If" || op == "Scan" || op == "SequenceMap") return;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Tensor* t = c.m_g.input(n, i);
    if (!t) continue;
    if (i == 0 && takes_sequence) {
      if (t->has_shape && !t->is_sequence)
        c.fail("input '" + printable(t->name, k_max_name_bytes) + "' is a tensor; " + op +
               " takes a sequence (SequenceConstruct, SplitToSequence or SequenceEmpty make one)");
      continue;
    }
    if (t->is_sequence)
      c.fail("input '" + printable(t->name, k_max_name_bytes) + "' is a sequence of tensors; " + op +
             " takes a tensor there (SequenceAt or ConcatFromSequence gives one)");
    if (t->is_optional && !is_optional_op(op))
      c.fail("input '" + printable(t->name, k_max_name_bytes) + "' is an optional value; " + op +
             " takes a tensor there (OptionalGetElement gives one)");
  }
}

/// Numpy broadcasting of every input against the ones before it.
void check_broadcast(const Check& c, const Node& n) {
  size_t first = n.inputs.size();
  Shape acc;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Tensor* t = c.shaped(i);
    if (!t) continue;
    if (first == n.inputs.size()) {
      first = i;
      acc = t->shape;
      continue;
    }
    if (auto bad = broadcast_conflict(acc, t->shape))
      c.fail(c.in_desc(first) + " and " + c.in_desc(i) + " do not broadcast (" + std::to_string(bad->first) + " vs " +
             std::to_string(bad->second) + " in one dim); each pair of dims must match or one be 1");
    // Accumulate the broadcast shape so a third input is checked against both.
    Shape merged(std::max(acc.size(), t->shape.size()), 1);
    for (size_t k = 0; k < merged.size(); ++k) {
      int64_t p = k < acc.size() ? acc[acc.size() - 1 - k] : 1, q = k < t->shape.size() ? t->shape[t->shape.size() - 1 - k] : 1;
      merged[merged.size() - 1 - k] = p == 1 ? q : (q == 1 ? p : (p < 0 ? q : p));
    }
    acc = std::move(merged);
  }
}

/// Expand, Cast, STFT and Range: checks on the values of their inputs and attributes. True when `n` is one.
bool check_value_inputs(const Check& c, const Node& n, const Tensor* x) {
  if (n.op == "Expand") {
    auto sv = c.const_ints(1);
    if (!x || !sv) return true;
    for (int64_t d : *sv)
      if (d < 0) c.fail("shape input " + ints_str(*sv) + " has a negative dim");
    if (auto bad = broadcast_conflict(x->shape, *sv))
      c.fail(c.in_desc(0) + " does not broadcast to shape " + ints_str(*sv) + " (" + std::to_string(bad->first) + " vs " +
             std::to_string(bad->second) + ")");
    return true;
  }
  if (n.op == "Cast") {
    // TensorProto.DataType runs 1-26 (FLOAT ... INT2); a Cast to anything else has no type perfpred could size.
    // Only the integer 'to' of Cast-6 and later: Cast-1..5 name the type as a string.
    const auto it = n.attrs.find("to");
    const int64_t* to = it != n.attrs.end() ? std::get_if<int64_t>(&it->second) : nullptr;
    if (to && (*to < 1 || *to > k_max_onnx_dtype))
      c.fail("attribute 'to' = " + std::to_string(*to) + " is not an ONNX data type (TensorProto.DataType, 1-" +
             std::to_string(k_max_onnx_dtype) + ")");
    return true;
  }
  if (n.op == "STFT") {
    // ONNX's STFT inference reads the value of frame_step (and frame_length when given) without checking
    // that there is one: an empty initializer or a runtime input crashed it. perfpred needs both as
    // constants to size the output anyway.
    for (size_t slot : {size_t{1}, size_t{3}}) {
      if (slot == 3 && !c.m_g.input(c.m_n, 3)) continue;
      const char* what = slot == 1 ? "frame_step" : "frame_length";
      if (const Tensor* t = c.shaped(slot); t && !t->shape.empty())
        c.fail(c.in_desc(slot) + " must be a scalar (" + what + ")");
      const auto v = c.const_ints(slot);
      if (!v || v->size() != 1)
        c.fail(std::string(what) + " " + c.in_desc(slot) + " must be a constant integer scalar; perfpred sizes the output from it");
    }
    return true;
  }
  if (n.op == "Range") {
    auto d = c.const_doubles(2);
    if (d && d->size() == 1 && (*d)[0] == 0) c.fail("delta " + c.in_desc(2) + " is 0; the range would never end");
    return true;
  }
  return false;
}

/// BitCast (opset 26): `to` must name a type, not a string, of the input's bit width (the shape is kept).
void check_bitcast(const Check& c, const Node& n) {
  const auto to = c.int_attr("to");
  if (!to) c.fail("attribute 'to' is required (an integer TensorProto.DataType)");
  const DType t = *to >= 1 && *to <= k_max_onnx_dtype ? dtype_from_onnx(static_cast<int32_t>(*to)) : DType::unknown;
  if (*to < 1 || *to > k_max_onnx_dtype || *to == 8)
    c.fail("attribute 'to' = " + std::to_string(*to) + " is not a non-string ONNX data type (TensorProto.DataType, 1-" +
           std::to_string(k_max_onnx_dtype) + ", not 8)");
  const Tensor* in = c.m_g.input(n, 0);
  if (!in || in->dtype == DType::unknown || t == DType::unknown) return;
  if (in->dtype == DType::string) c.fail("input " + c.in_desc(0) + " is a string tensor; BitCast takes numeric types");
  if (dtype_bits(in->dtype) != dtype_bits(t))
    c.fail("attribute 'to' = " + std::to_string(*to) + " (" + to_string(t) + ", " + std::to_string(dtype_bits(t)) +
           " bits) has another width than " + c.in_desc(0) + " (" + to_string(in->dtype) + ", " +
           std::to_string(dtype_bits(in->dtype)) + " bits); BitCast keeps the bits, so the widths must match");
}

/// TensorScatter (opset 24, a KV-cache update): `update` matches `past_cache` but along `axis` (not the batch
/// axis 0), where it is no longer; `write_indices`, when given, holds one index per batch row; `mode` is
/// linear or circular.
void check_tensor_scatter(const Check& c, const Node& n) {
  if (const std::string mode = n.attr_string("mode", "linear"); mode != "linear" && mode != "circular")
    c.fail("attribute 'mode' = '" + printable(mode, k_max_name_bytes) + "' must be 'linear' or 'circular'");
  const Tensor* cache = c.shaped(0);
  if (!cache) return;
  const int64_t r = static_cast<int64_t>(cache->shape.size());
  if (r < 2) c.fail("past_cache " + c.in_desc(0) + " must have rank 2 or more (batch, then the sequence axis)");
  const int64_t ax = c.axis("attribute 'axis'", n.attr_int("axis", -2), r, 0);
  if (ax == 0) c.fail("attribute 'axis' names axis 0, the batch axis; the sequence axis is another");
  if (const Tensor* up = c.shaped(1)) {
    if (up->shape.size() != cache->shape.size())
      c.fail("update " + c.in_desc(1) + " must have the rank of past_cache " + c.in_desc(0));
    for (int64_t k = 0; k < r; ++k) {
      const int64_t a = cache->shape[static_cast<size_t>(k)], b = up->shape[static_cast<size_t>(k)];
      if (a < 0 || b < 0) continue;
      if (k == ax ? b > a : b != a)
        c.fail("update " + c.in_desc(1) + " does not fit past_cache " + c.in_desc(0) + " in axis " + std::to_string(k) +
               (k == ax ? " (the sequence axis: the update may not be longer than the cache)" : " (only the sequence axis may differ)"));
    }
  }
  if (const Tensor* wi = c.shaped(2))
    if (wi->shape.size() != 1 || (wi->shape[0] >= 0 && cache->shape[0] >= 0 && wi->shape[0] != cache->shape[0]))
      c.fail("write_indices " + c.in_desc(2) + " must be one index per batch row [" + std::to_string(cache->shape[0]) + "]");
}

/// The ops whose checks are on one axis (or a few values) of input 0, shaped `x`.
void check_input_axis(const Check& c, const Node& n, const Tensor& x, int64_t opset) {
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (n.op == "Flatten") {
    c.axis("attribute 'axis'", n.attr_int("axis", 1), r, 0, true);
  } else if (n.op == "Softmax" || n.op == "LogSoftmax" || n.op == "Hardmax") {
    c.axis("attribute 'axis'", n.attr_int("axis", opset < 13 ? 1 : -1), r, 0);
  } else if (n.op == "LayerNormalization") {
    c.axis("attribute 'axis'", n.attr_int("axis", -1), r, 0);
  } else if (n.op == "Gather") {
    int64_t ax = c.axis("attribute 'axis'", n.attr_int("axis", 0), r, 0);
    int64_t dim = x.shape[static_cast<size_t>(ax)];
    if (auto idx = c.const_ints(1); idx && dim >= 0)
      for (int64_t i : *idx)
        if (i < -dim || i >= dim)
          c.fail("index " + std::to_string(i) + " in " + c.in_desc(1) + " is out of range [" + std::to_string(-dim) + ", " +
                 std::to_string(dim - 1) + "] for axis " + std::to_string(ax) + " of " + c.in_desc(0));
  } else if (n.op == "GatherElements" || n.op == "ScatterElements") {
    c.axis("attribute 'axis'", n.attr_int("axis", 0), r, 0);
    const Tensor* idx = c.shaped(1);
    if (idx && idx->shape.size() != x.shape.size())
      c.fail("indices " + c.in_desc(1) + " must have the rank of " + c.in_desc(0));
  } else if (n.op == "ArgMax" || n.op == "ArgMin") {
    c.axis("attribute 'axis'", n.attr_int("axis", 0), r, 0);
  } else if (n.op == "CumSum" || n.op == "CumProd") {
    if (auto a = c.const_ints(1); a && a->size() == 1) c.axis("axis input", (*a)[0], r, 0);
  } else if (n.op == "TopK") {
    int64_t ax = c.axis("attribute 'axis'", n.attr_int("axis", -1), r, 0);
    std::optional<int64_t> k;
    if (opset < 10) k = c.int_attr("k");
    else if (auto kv = c.const_ints(1); kv && kv->size() == 1) k = (*kv)[0];
    int64_t dim = x.shape[static_cast<size_t>(ax)];
    if (k && *k < 0) c.fail("k = " + std::to_string(*k) + " must be >= 0");
    if (k && dim >= 0 && *k > dim)
      c.fail("k = " + std::to_string(*k) + " exceeds axis " + std::to_string(ax) + " of " + c.in_desc(0) + " (" +
             std::to_string(dim) + ")");
  } else if (n.op == "OneHot") {
    c.axis("attribute 'axis'", n.attr_int("axis", -1), r + 1, 0, false,
           "the rank-" + std::to_string(r + 1) + " output of " + c.in_desc(0));
  } else if (n.op == "Tile") {
    if (auto rep = c.const_ints(1)) {
      if (static_cast<int64_t>(rep->size()) != r)
        c.fail("repeats " + ints_str(*rep) + " has " + std::to_string(rep->size()) + " values for rank-" +
               std::to_string(r) + " " + c.in_desc(0));
      for (int64_t v : *rep)
        if (v < 0) c.fail("repeats " + ints_str(*rep) + " has a negative value");
    }
  } else if (n.op == "Resize" || n.op == "Upsample") {
    if (const auto* axes = c.ints("axes")) c.axes("attribute 'axes'", *axes, r, 0);
    const size_t scales_slot = n.op == "Upsample" || opset < 11 ? 1 : 2;
    if (auto sc = c.const_doubles(scales_slot))
      for (double s : *sc)
        if (!(s > 0) || !std::isfinite(s)) c.fail("scales " + c.in_desc(scales_slot) + " must all be finite and > 0");
    if (n.op == "Resize" && opset >= 11)
      if (auto sz = c.const_ints(3))
        for (int64_t s : *sz)
          if (s < 0) c.fail("sizes " + ints_str(*sz) + " has a negative size");
  } else if (n.op == "LSTM" || n.op == "GRU" || n.op == "RNN") {
    check_rnn(c, n);
  }
}

}  // namespace

void validate_node(const Graph& g, const Node& n) {
  // com.microsoft ops that share a default-domain name get the default shape rules (infer_node), so
  // they get the same checks: a Flatten axis of 2^31 or a blocksize of 0 is as wrong there.
  if (!n.domain.empty() && n.domain != "ai.onnx" && n.domain != "com.microsoft") return;
  const std::string& op = n.op;
  const Check c(g, n);
  check_sequence_kinds(c, n);
  if (!k_checked_ops.count(op)) return;
  const Tensor* x = c.shaped(0);
  const int64_t opset = g.opset;
  if (k_broadcast_ops.count(op)) return check_broadcast(c, n);
  if (is_conv_or_pool(op)) return check_conv_pool(c, n);
  if (op == "MatMul" || op == "MatMulInteger") return check_matmul(c, 1);
  if (op == "QLinearMatMul") return check_matmul(c, 3);
  if (op == "Gemm") return check_gemm(c, n);
  if (op == "Concat") return check_concat(c, n);
  if (op == "Reshape") return check_reshape(c, n, opset);
  if (op == "Slice") return check_slice(c, opset);
  if (op == "Split") return check_split(c, n, opset);
  if (op == "Squeeze" || op == "Unsqueeze") return check_squeeze(c, n, opset);
  if (op == "Transpose") return check_transpose(c);
  if (op == "BatchNormalization" || op == "InstanceNormalization") return check_batchnorm(c, n, opset);
  if (op == "DepthToSpace" || op == "SpaceToDepth") return check_depth_to_space(c, n);
  if (op == "Pad") return check_pad(c, opset);
  if (op == "Einsum") return check_einsum(c, n);
  if (op.rfind("Reduce", 0) == 0) return check_reduce(c, n);  // the Reduce* ops of k_checked_ops
  if (check_value_inputs(c, n, x)) return;
  if (op == "BitCast") return check_bitcast(c, n);
  if (op == "TensorScatter") return check_tensor_scatter(c, n);
  if (x) check_input_axis(c, n, *x, opset);
}

}  // namespace perfpred::onnx_import::detail

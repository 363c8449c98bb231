// cuDNN ops: convolution (forward, backward data, backward filter) through the legacy API with
// cudnnFind* algorithm choice, pooling, batch norm, and LSTM (RNN v8 API). cuDNN 9 keeps these
// calls as deprecated; the warnings are silenced for this file only, and the cuDNN 8 / 9
// differences are guarded by CUDNN_MAJOR here and nowhere else.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#include <algorithm>
#include <sstream>

#include "check.hpp"
#include "context.hpp"

namespace perfpred::cuda {

namespace {

cudnnDataType_t data_type(Precision p) {
  switch (p) {
    case Precision::fp16: return CUDNN_DATA_HALF;
    case Precision::bf16: return CUDNN_DATA_BFLOAT16;
    case Precision::int8: return CUDNN_DATA_INT8;
    default: return CUDNN_DATA_FLOAT;
  }
}

/// Math mode per precision: fp32 must not silently use TF32 (cuDNN 8+ does by default on Ampere+).
cudnnMathType_t math_type(Precision p) {
  switch (p) {
    case Precision::fp32: return CUDNN_FMA_MATH;
    case Precision::tf32: return CUDNN_DEFAULT_MATH;
    default: return CUDNN_TENSOR_OP_MATH;
  }
}

template <typename T, typename Destroy>
std::shared_ptr<void> own(T handle, Destroy destroy) {
  return std::shared_ptr<void>(static_cast<void*>(handle), [destroy](void* h) { destroy(static_cast<T>(h)); });
}

/// int8 tensors are NHWC (cuDNN's INT8_CONFIG); every other precision is NCHW, as frameworks store it.
cudnnTensorFormat_t layout(Precision prec) { return prec == Precision::int8 ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW; }

cudnnTensorDescriptor_t tensor4d(Prepared& p, Precision prec, int n, int c, int h, int w) {
  cudnnTensorDescriptor_t d;
  PERFPRED_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d));
  p.keep.push_back(own(d, cudnnDestroyTensorDescriptor));
  PERFPRED_CUDNN_CHECK(cudnnSetTensor4dDescriptor(d, layout(prec), data_type(prec), n, c, h, w));
  return d;
}

/// A device operand of `count` elements in the precision's storage, filled.
void* operand(Prepared& p, Precision prec, int64_t count, uint32_t seed, cudaStream_t s) {
  return prec == Precision::int8 ? alloc_filled_i8(p, count, seed, s) : alloc_filled(p, elem_type(prec), count, seed, s);
}

int to_int(int64_t v, const char* what) {
  if (v > 0x7fffffff) throw Unsupported(std::string(what) + " exceeds the 32-bit range cuDNN accepts");
  return static_cast<int>(v);
}

const float k_one = 1.0f, k_zero = 0.0f;

template <typename Perf>
const Perf* pick(const Perf* perfs, int count, int64_t limit) {
  for (int i = 0; i < count; ++i)
    if (perfs[i].status == CUDNN_STATUS_SUCCESS && static_cast<int64_t>(perfs[i].memory) <= limit) return &perfs[i];
  return nullptr;
}

/// Let cuDNN time its algorithms for one convolution phase (`find` wraps cudnnFindConvolution*),
/// keep the fastest that fits the workspace limit, and bind `run(algo, workspace, bytes)` as the
/// measured call. Returns the workspace size; the choice goes into `note` as `algo=TAG:N`.
template <typename Perf, typename Find, typename Run>
size_t bind_fastest(Prepared& p, Context& c, cudnnConvolutionDescriptor_t conv, const char* phase, const char* tag,
                    std::ostringstream& note, Find find, Run run) {
  constexpr int k_max_algos = 16;
  Perf perf[k_max_algos];
  int found = 0;
  PERFPRED_CUDNN_CHECK(find(k_max_algos, &found, perf));
  const Perf* best = pick(perf, found, c.workspace_limit_bytes);
  if (!best) throw Unsupported(std::string("no cuDNN ") + phase + " algorithm fits the workspace limit");
  PERFPRED_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, best->mathType));
  const size_t ws_bytes = best->memory;
  void* ws = alloc(p, static_cast<int64_t>(ws_bytes));
  const auto algo = best->algo;
  note << "algo=" << tag << ":" << static_cast<int>(algo);
  p.run = [=] { run(algo, ws, ws_bytes); };
  return ws_bytes;
}

Prepared prepare_conv(Context& c, const PlanEntry& e) {
  Prepared p;
  p.runtime = "cudnn";
  p.runtime_version = c.cudnn_version;
  const Precision prec = e.precision;
  int n = to_int(e.param("batch"), "batch"), ci = to_int(e.param("in_channels"), "in_channels"),
      co = to_int(e.param("out_channels"), "out_channels"), h = to_int(e.param("in_h"), "in_h"),
      w = to_int(e.param("in_w"), "in_w"), r = to_int(e.param("kernel_h"), "kernel"), s = to_int(e.param("stride_h"), "stride"),
      pad = to_int(e.param("pad_h"), "pad"), d = to_int(e.param("dilation_h"), "dilation"), g = to_int(e.param("groups"), "groups");

  const bool int8 = prec == Precision::int8;
  if (int8 && e.phase != "forward") throw Unsupported("int8 convolution is inference only (forward)");
  // cuDNN's int8 convolutions (INT8_CONFIG) take NHWC tensors whose channel counts are multiples of 4.
  if (int8 && (ci % (4 * g) != 0 || co % (4 * g) != 0))
    throw Unsupported("cuDNN int8 convolution needs channels per group that are multiples of 4 (in " + std::to_string(ci / g) +
                      ", out " + std::to_string(co / g) + ")");
  auto x_desc = tensor4d(p, prec, n, ci, h, w);
  cudnnFilterDescriptor_t w_desc;
  PERFPRED_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w_desc));
  p.keep.push_back(own(w_desc, cudnnDestroyFilterDescriptor));
  PERFPRED_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w_desc, data_type(prec), layout(prec), co, ci / g, r, r));
  cudnnConvolutionDescriptor_t conv;
  PERFPRED_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
  p.keep.push_back(own(conv, cudnnDestroyConvolutionDescriptor));
  // Half and bfloat16 convolutions accumulate in FP32, as frameworks configure them; int8 in INT32.
  PERFPRED_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, pad, pad, s, s, d, d, CUDNN_CROSS_CORRELATION,
                                                       int8 ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT));
  PERFPRED_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv, g));
  PERFPRED_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, math_type(prec)));
  int on, oc, oh, ow;
  PERFPRED_CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(conv, x_desc, w_desc, &on, &oc, &oh, &ow));
  if (oh != e.param("out_h") || ow != e.param("out_w"))
    throw Unsupported("cuDNN output " + std::to_string(oh) + "x" + std::to_string(ow) + " differs from the plan's " +
                      std::to_string(e.param("out_h")) + "x" + std::to_string(e.param("out_w")));
  auto y_desc = tensor4d(p, prec, on, oc, oh, ow);

  const int64_t x_n = int64_t(n) * ci * h * w, w_n = int64_t(co) * (ci / g) * r * r, y_n = int64_t(on) * oc * oh * ow;
  void* x = operand(p, prec, x_n, 1, c.stream);
  void* wt = operand(p, prec, w_n, 2, c.stream);
  void* y = operand(p, prec, y_n, 3, c.stream);
  PERFPRED_CUDA_CHECK(cudaStreamSynchronize(c.stream));

  std::ostringstream note;
  size_t ws_bytes = 0;
  if (e.phase == "forward") {
    ws_bytes = bind_fastest<cudnnConvolutionFwdAlgoPerf_t>(
        p, c, conv, "forward", "fwd", note,
        [&](int n, int* found, cudnnConvolutionFwdAlgoPerf_t* perf) {
          return cudnnFindConvolutionForwardAlgorithm(c.cudnn, x_desc, w_desc, conv, y_desc, n, found, perf);
        },
        [=, &c](cudnnConvolutionFwdAlgo_t algo, void* ws, size_t bytes) {
          PERFPRED_CUDNN_CHECK(cudnnConvolutionForward(c.cudnn, &k_one, x_desc, x, w_desc, wt, conv, algo, ws, bytes, &k_zero,
                                                       y_desc, y));
        });
  } else if (e.phase == "backward_data") {
    ws_bytes = bind_fastest<cudnnConvolutionBwdDataAlgoPerf_t>(
        p, c, conv, "backward-data", "bwd_data", note,
        [&](int n, int* found, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
          return cudnnFindConvolutionBackwardDataAlgorithm(c.cudnn, w_desc, y_desc, conv, x_desc, n, found, perf);
        },
        [=, &c](cudnnConvolutionBwdDataAlgo_t algo, void* ws, size_t bytes) {
          PERFPRED_CUDNN_CHECK(cudnnConvolutionBackwardData(c.cudnn, &k_one, w_desc, wt, y_desc, y, conv, algo, ws, bytes,
                                                            &k_zero, x_desc, x));
        });
  } else {
    ws_bytes = bind_fastest<cudnnConvolutionBwdFilterAlgoPerf_t>(
        p, c, conv, "backward-filter", "bwd_filter", note,
        [&](int n, int* found, cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
          return cudnnFindConvolutionBackwardFilterAlgorithm(c.cudnn, x_desc, y_desc, conv, w_desc, n, found, perf);
        },
        [=, &c](cudnnConvolutionBwdFilterAlgo_t algo, void* ws, size_t bytes) {
          PERFPRED_CUDNN_CHECK(cudnnConvolutionBackwardFilter(c.cudnn, &k_one, x_desc, x, y_desc, y, conv, algo, ws, bytes,
                                                              &k_zero, w_desc, wt));
        });
  }
  cudnnMathType_t mt;
  PERFPRED_CUDNN_CHECK(cudnnGetConvolutionMathType(conv, &mt));
  note << "; workspace_bytes=" << ws_bytes << "; math_type=" << static_cast<int>(mt)
       << "; layout=" << (int8 ? "NHWC" : "NCHW");
  p.notes.push_back(note.str());
  return p;
}

Prepared prepare_pool(Context& c, const PlanEntry& e) {
  Prepared p;
  p.runtime = "cudnn";
  p.runtime_version = c.cudnn_version;
  const Precision prec = e.precision;
  const ElemType et = elem_type(prec);
  int n = to_int(e.param("batch"), "batch"), ch = to_int(e.param("channels"), "channels"), h = to_int(e.param("in_h"), "size"),
      k = to_int(e.param("kernel_h"), "kernel"), s = to_int(e.param("stride_h"), "stride"), pad = to_int(e.param("pad_h"), "pad"),
      oh = to_int(e.param("out_h"), "out_h");
  cudnnPoolingDescriptor_t pd;
  PERFPRED_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&pd));
  p.keep.push_back(own(pd, cudnnDestroyPoolingDescriptor));
  auto mode = e.label("mode") == "max" ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  PERFPRED_CUDNN_CHECK(cudnnSetPooling2dDescriptor(pd, mode, CUDNN_NOT_PROPAGATE_NAN, k, k, pad, pad, s, s));
  auto x_desc = tensor4d(p, prec, n, ch, h, h);
  auto y_desc = tensor4d(p, prec, n, ch, oh, oh);
  const int64_t x_n = int64_t(n) * ch * h * h, y_n = int64_t(n) * ch * oh * oh;
  void* x = alloc_filled(p, et, x_n, 1, c.stream);
  void* y = alloc_filled(p, et, y_n, 2, c.stream);
  if (e.phase == "forward") {
    p.run = [=, &c] { PERFPRED_CUDNN_CHECK(cudnnPoolingForward(c.cudnn, pd, &k_one, x_desc, x, &k_zero, y_desc, y)); };
  } else {
    void* dy = alloc_filled(p, et, y_n, 3, c.stream);
    void* dx = alloc(p, x_n * elem_size(et));
    PERFPRED_CUDNN_CHECK(cudnnPoolingForward(c.cudnn, pd, &k_one, x_desc, x, &k_zero, y_desc, y));
    p.run = [=, &c] {
      PERFPRED_CUDNN_CHECK(cudnnPoolingBackward(c.cudnn, pd, &k_one, y_desc, y, y_desc, dy, x_desc, x, &k_zero, x_desc, dx));
    };
  }
  return p;
}

Prepared prepare_batch_norm(Context& c, const PlanEntry& e) {
  Prepared p;
  p.runtime = "cudnn";
  p.runtime_version = c.cudnn_version;
  const Precision prec = e.precision;
  const ElemType et = elem_type(prec);
  int n = to_int(e.param("batch"), "batch"), ch = to_int(e.param("channels"), "channels"), h = to_int(e.param("in_h"), "size");
  auto x_desc = tensor4d(p, prec, n, ch, h, h);
  cudnnTensorDescriptor_t bn_desc;
  PERFPRED_CUDNN_CHECK(cudnnCreateTensorDescriptor(&bn_desc));
  p.keep.push_back(own(bn_desc, cudnnDestroyTensorDescriptor));
  PERFPRED_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(bn_desc, x_desc, CUDNN_BATCHNORM_SPATIAL));
  const int64_t x_n = int64_t(n) * ch * h * h;
  void* x = alloc_filled(p, et, x_n, 1, c.stream);
  void* y = alloc(p, x_n * elem_size(et));
  // Scale, bias and statistics are FP32 for every data type.
  void* scale = alloc_filled(p, ElemType::f32, ch, 2, c.stream);
  void* bias = alloc_filled(p, ElemType::f32, ch, 3, c.stream);
  void* mean = alloc_filled(p, ElemType::f32, ch, 4, c.stream);
  void* var = alloc(p, ch * 4);
  std::vector<float> ones(static_cast<size_t>(ch), 1.0f);
  PERFPRED_CUDA_CHECK(cudaMemcpy(var, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice));
  const double eps = 1e-5;
  if (e.phase == "forward") {
    p.notes.push_back("bn_mode=inference (running statistics)");
    p.run = [=, &c] {
      PERFPRED_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(c.cudnn, CUDNN_BATCHNORM_SPATIAL, &k_one, &k_zero, x_desc,
                                                                   x, x_desc, y, bn_desc, scale, bias, mean, var, eps));
    };
  } else {
    void* dy = alloc_filled(p, et, x_n, 5, c.stream);
    void* dscale = alloc(p, ch * 4);
    void* dbias = alloc(p, ch * 4);
    p.notes.push_back("bn_backward without saved statistics (recomputed)");
    p.run = [=, &c] {
      PERFPRED_CUDNN_CHECK(cudnnBatchNormalizationBackward(c.cudnn, CUDNN_BATCHNORM_SPATIAL, &k_one, &k_zero, &k_one, &k_zero,
                                                           x_desc, x, x_desc, dy, x_desc, y, bn_desc, scale, dscale, dbias,
                                                           eps, nullptr, nullptr));
    };
  }
  return p;
}

Prepared prepare_lstm(Context& c, const PlanEntry& e) {
  Prepared p;
  p.runtime = "cudnn";
  p.runtime_version = c.cudnn_version;
  const Precision prec = e.precision;
  const ElemType et = elem_type(prec);
  int b = to_int(e.param("batch"), "batch"), seq = to_int(e.param("seq_len"), "seq_len"),
      in = to_int(e.param("input_size"), "input_size"), hid = to_int(e.param("hidden"), "hidden"),
      layers = to_int(e.param("layers", 1), "layers");
  const cudnnDataType_t dt = data_type(prec);
  const cudnnDataType_t math_prec = prec == Precision::fp16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  if (prec == Precision::bf16) throw Unsupported("cuDNN LSTM has no bfloat16 path in the legacy RNN API");

  cudnnDropoutDescriptor_t drop;
  PERFPRED_CUDNN_CHECK(cudnnCreateDropoutDescriptor(&drop));
  p.keep.push_back(own(drop, cudnnDestroyDropoutDescriptor));
  size_t states_bytes = 0;
  PERFPRED_CUDNN_CHECK(cudnnDropoutGetStatesSize(c.cudnn, &states_bytes));
  void* states = alloc(p, static_cast<int64_t>(states_bytes));
  PERFPRED_CUDNN_CHECK(cudnnSetDropoutDescriptor(drop, c.cudnn, 0.0f, states, states_bytes, 1234ull));

  cudnnRNNDescriptor_t rnn;
  PERFPRED_CUDNN_CHECK(cudnnCreateRNNDescriptor(&rnn));
  p.keep.push_back(own(rnn, cudnnDestroyRNNDescriptor));
  PERFPRED_CUDNN_CHECK(cudnnSetRNNDescriptor_v8(rnn, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                                CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt, math_prec, math_type(prec), in,
                                                hid, hid, layers, drop, 0));

  std::vector<int> lengths(static_cast<size_t>(b), seq);
  auto data_desc = [&](int vec) {
    cudnnRNNDataDescriptor_t d;
    PERFPRED_CUDNN_CHECK(cudnnCreateRNNDataDescriptor(&d));
    p.keep.push_back(own(d, cudnnDestroyRNNDataDescriptor));
    PERFPRED_CUDNN_CHECK(cudnnSetRNNDataDescriptor(d, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, seq, b, vec,
                                                   lengths.data(), nullptr));
    return d;
  };
  auto x_desc = data_desc(in);
  auto y_desc = data_desc(hid);
  cudnnTensorDescriptor_t h_desc;
  PERFPRED_CUDNN_CHECK(cudnnCreateTensorDescriptor(&h_desc));
  p.keep.push_back(own(h_desc, cudnnDestroyTensorDescriptor));
  int dims[3] = {layers, b, hid}, strides[3] = {b * hid, hid, 1};
  PERFPRED_CUDNN_CHECK(cudnnSetTensorNdDescriptor(h_desc, dt, 3, dims, strides));

  int* dev_lengths = static_cast<int*>(alloc(p, b * 4));
  PERFPRED_CUDA_CHECK(cudaMemcpy(dev_lengths, lengths.data(), lengths.size() * 4, cudaMemcpyHostToDevice));

  size_t weight_bytes = 0, work_bytes = 0, reserve_bytes = 0;
  PERFPRED_CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(c.cudnn, rnn, &weight_bytes));
  const bool training = e.phase != "forward";
  PERFPRED_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(c.cudnn, rnn, training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE,
                                                 x_desc, &work_bytes, &reserve_bytes));
  const int64_t x_n = int64_t(seq) * b * in, y_n = int64_t(seq) * b * hid, h_n = int64_t(layers) * b * hid;
  void* weights = alloc_filled(p, et, static_cast<int64_t>(weight_bytes) / elem_size(et), 1, c.stream);
  void* work = alloc(p, static_cast<int64_t>(work_bytes));
  void* reserve = alloc(p, static_cast<int64_t>(reserve_bytes));
  void* x = alloc_filled(p, et, x_n, 2, c.stream);
  void* y = alloc(p, y_n * elem_size(et));
  void* hx = alloc_filled(p, et, h_n, 3, c.stream);
  void* cx = alloc_filled(p, et, h_n, 4, c.stream);
  void* hy = alloc(p, h_n * elem_size(et));
  void* cy = alloc(p, h_n * elem_size(et));
  p.notes.push_back("weight_bytes=" + std::to_string(weight_bytes) + "; workspace_bytes=" + std::to_string(work_bytes) +
                    "; reserve_bytes=" + std::to_string(reserve_bytes));
  if (!training) {
    p.notes.push_back("rnn_mode=inference");
    p.run = [=, &c] {
      PERFPRED_CUDNN_CHECK(cudnnRNNForward(c.cudnn, rnn, CUDNN_FWD_MODE_INFERENCE, dev_lengths, x_desc, x, y_desc, y, h_desc,
                                           hx, hy, h_desc, cx, cy, weight_bytes, weights, work_bytes, work, reserve_bytes,
                                           reserve));
    };
    return p;
  }
  // Backward needs the reserve space of a training forward pass.
  PERFPRED_CUDNN_CHECK(cudnnRNNForward(c.cudnn, rnn, CUDNN_FWD_MODE_TRAINING, dev_lengths, x_desc, x, y_desc, y, h_desc, hx,
                                       hy, h_desc, cx, cy, weight_bytes, weights, work_bytes, work, reserve_bytes, reserve));
  if (e.phase == "backward_data") {
    void* dy = alloc_filled(p, et, y_n, 5, c.stream);
    void* dx = alloc(p, x_n * elem_size(et));
    void* dhx = alloc(p, h_n * elem_size(et));
    void* dcx = alloc(p, h_n * elem_size(et));
    p.run = [=, &c] {
      PERFPRED_CUDNN_CHECK(cudnnRNNBackwardData_v8(c.cudnn, rnn, dev_lengths, y_desc, y, dy, x_desc, dx, h_desc, hx, nullptr,
                                                   dhx, h_desc, cx, nullptr, dcx, weight_bytes, weights, work_bytes, work,
                                                   reserve_bytes, reserve));
    };
  } else {
    void* dw = alloc(p, static_cast<int64_t>(weight_bytes));
    p.run = [=, &c] {
      PERFPRED_CUDNN_CHECK(cudnnRNNBackwardWeights_v8(c.cudnn, rnn, CUDNN_WGRAD_MODE_ADD, dev_lengths, x_desc, x, h_desc, hx,
                                                      y_desc, y, weight_bytes, dw, work_bytes, work, reserve_bytes, reserve));
    };
  }
  return p;
}

}  // namespace

Prepared prepare_cudnn(Context& c, const PlanEntry& e) {
  if (e.op_kind == "conv") return prepare_conv(c, e);
  if (e.op_kind == "pool") return prepare_pool(c, e);
  if (e.op_kind == "batch_norm") return prepare_batch_norm(c, e);
  if (e.op_kind == "lstm") return prepare_lstm(c, e);
  throw Unsupported("no cuDNN builder for op kind '" + e.op_kind + "'");
}

}  // namespace perfpred::cuda

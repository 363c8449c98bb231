#include "perfpred/learn/data.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <spdlog/spdlog.h>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/hw/power_limit.hpp"
#include "perfpred/learn/efficiency.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::learn {

bool licence_allows_shipping(const std::string& licence) {
  return licence == "MIT" || licence == "Apache-2.0" || licence == "perfpred-measured";
}

std::string DataFile::licence() const {
  if (!has_meta || meta.licence.empty()) return "none stated";
  return meta.licence;
}

std::string DataFile::source_name() const {
  if (has_meta && meta.sources.is_array() && !meta.sources.empty() && meta.sources[0].is_object()) {
    const auto name = meta.sources[0].find("name");  // a name of another type is no name
    if (name != meta.sources[0].end() && name->is_string()) return name->get<std::string>();
  }
  if (!kernels.empty()) return kernels.front().source;
  if (!networks.empty()) return networks.front().source;
  return path.stem().string();
}

DataFile load_data_file(const std::filesystem::path& path) {
  DataFile f;
  f.path = path;
  const auto raw = read_dataset(path);
  f.kind = raw.kind;
  if (f.kind == DatasetKind::kernel)
    f.kernels = kernel_rows(raw);
  else
    f.networks = network_rows(raw);
  const auto side = sidecar_path(path);
  std::error_code ec;
  if (std::filesystem::is_regular_file(side, ec)) {
    f.meta = read_dataset_meta(side);
    f.has_meta = true;
  }
  return f;
}

const GpuSpec& GpuResolver::get(const std::string& gpu_id, const DataFile& file, std::optional<double> power_limit_w) {
  const std::string key = file.path.string() + "\n" + gpu_id + (power_limit_w ? "@" + std::to_string(*power_limit_w) : "");
  auto it = m_cache.find(key);
  if (it != m_cache.end()) return it->second;
  const std::string where = file.path.string() + ": gpu_id '" + gpu_id + "'";
  GpuSpec spec;
  const std::string bare = gpu_id.rfind("spec:", 0) == 0 ? gpu_id.substr(5) : gpu_id;
  const nlohmann::json* desc = nullptr;
  if (file.has_meta && file.meta.devices.is_object()) {
    if (file.meta.devices.contains(gpu_id)) desc = &file.meta.devices[gpu_id];
    else if (file.meta.devices.contains(bare)) desc = &file.meta.devices[bare];
  }
  if (desc) {
    spec = spec_from_json(*desc, file.path.string() + " sidecar devices." + bare);
    if (spec.id.empty()) spec.id = gpu_id;
  } else if (gpu_id.rfind("spec:", 0) == 0) {
    throw InputError(where + " is not described in the sidecar's devices; add its spec there");
  } else {
    spec = GpuCatalog::instance().resolve(gpu_id);
  }
  if (power_limit_w) {
    char w[32];
    std::snprintf(w, sizeof w, "%g", *power_limit_w);
    spec = with_power_limit(spec, *power_limit_w, file.path.string() + ": gpu_id '" + gpu_id + "' at column power_limit_w " + w);
  }
  return m_cache.emplace(key, std::move(spec)).first->second;
}

Runtime row_runtime(const std::string& s, const std::string& where) {
  if (s == "cublas" || s == "cudnn") return Runtime::cudnn;
  if (s.empty()) throw InputError(where + ": runtime is empty; give pytorch, tensorrt, onnxruntime, cudnn or cublas");
  return runtime_from_string(s, where + ": runtime");
}

namespace {

std::vector<std::pair<std::string, double>> parse_attrs(const std::string& text, const std::string& where) {
  std::vector<std::pair<std::string, double>> out;
  if (text.empty()) return out;
  for (const auto& item : split(text, ';')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError(where + ": attrs item '" + item + "' is not key=value");
    const std::string key = trim(item.substr(0, eq));
    const std::string val = trim(item.substr(eq + 1));
    try {
      out.emplace_back(key, parse_double(val, key));
    } catch (const InputError&) {
      // Non-numeric attributes (e.g. a mode string) are not features.
    }
  }
  return out;
}

double attr(const std::vector<std::pair<std::string, double>>& attrs, const std::string& key, double def) {
  for (const auto& [k, v] : attrs)
    if (k == key) return v;
  return def;
}

}  // namespace

PredictOptions kernel_options(const KernelRow& r, const std::string& where) {
  PredictOptions o;
  o.precision = precision_from_string(r.precision.empty() ? "fp32" : r.precision, where + ": precision");
  o.runtime = row_runtime(r.runtime, where);
  o.mode = (r.phase.empty() || r.phase == "forward") ? Mode::inference : Mode::training;
  o.allow_tf32 = source_settings(r.source).tf32_conv;  // the analytical time under the settings it was measured with
  const auto attrs = parse_attrs(r.attrs, where);
  double batch = attr(attrs, "batch", 0);
  if (batch <= 0 && !r.inputs.empty()) {
    const auto first = split(split(r.inputs, ';')[0], 'x');
    if (!first.empty() && !first[0].empty()) {
      try {
        batch = static_cast<double>(parse_int64(first[0], "inputs"));
      } catch (const InputError&) {
        batch = 1;
      }
    }
  }
  o.batch = batch >= 1 ? static_cast<int64_t>(batch) : 1;
  o.detail = false;
  return o;
}

std::optional<double> kernel_label_ms(const KernelRow& r) {
  // Microbenchmark and copy rows time many launches or a copy per row, CUPTI one launch of them. A recurrent
  // op's steps are dependent launches from cuDNN's host loop: the GPU idles between them for as long as the
  // model's per-step floors say, time CUPTI's sum of kernel durations leaves out and the event time keeps.
  const bool event_time = r.op_family == "microbench" || r.op_family == "data_movement" || r.op_family == "rnn";
  const std::string key = "cupti_busy_ms=";
  const auto at = r.notes.find(key);
  if (!event_time && at != std::string::npos) {
    const char* begin = r.notes.c_str() + at + key.size();
    char* end = nullptr;
    const double busy = std::strtod(begin, &end);
    if (end != begin && std::isfinite(busy) && busy > 0) return busy;
  }
  if (r.time_ms && std::isfinite(*r.time_ms) && *r.time_ms > 0) return *r.time_ms;
  return std::nullopt;
}

KernelEstimate row_kernel(const KernelRow& r, const GpuSpec& gpu, const PredictOptions& opts, const std::string& where) {
  KernelEstimate k;
  if (r.op_family.empty()) throw InputError(where + ": op_family is empty");
  k.family = op_family_from_string(r.op_family);
  k.op = r.op;
  k.name = r.id;
  k.phase = r.phase.empty() ? "forward" : r.phase;
  if (!r.flops || !r.bytes) throw InputError(where + ": flops and bytes are required to estimate the kernel");
  k.flops = *r.flops;
  k.bytes = *r.bytes;
  if (r.gemm_m && r.gemm_n && r.gemm_k)
    k.gemm = GemmShape{r.gemm_batch.value_or(1), *r.gemm_m, *r.gemm_n, *r.gemm_k};
  k.attrs = parse_attrs(r.attrs, where);
  estimate_kernel(k, gpu, opts);
  return k;
}

/// The optimizer a training row ran, read from its notes the way tools/eval_analytical.py reads it
/// (the converters write it there: GPUMemNet trains with Adam, Zeus with SGD). Adam-like optimizers keep
/// two states, RMSprop/Adagrad-like one; rows that name none keep the SGD default.
static Optimizer row_optimizer(const NetworkRow& r) {
  const std::string notes = to_lower(r.notes);
  if (notes.find("no optimizer") != std::string::npos) return Optimizer::none;
  static const std::pair<const char*, Optimizer> k_words[] = {
      {"adamw", Optimizer::adam},       {"adam", Optimizer::adam},          {"adadelta", Optimizer::adam},
      {"rmsprop", Optimizer::momentum}, {"adagrad", Optimizer::momentum}, {"momentum", Optimizer::momentum},
      {"sgd", Optimizer::sgd}};
  for (const auto& [word, opt] : k_words)
    if (notes.find(word) != std::string::npos) return opt;
  return Optimizer::sgd;
}

PredictOptions network_options(const NetworkRow& r, const std::string& where) {
  PredictOptions o;
  o.optimizer = row_optimizer(r);
  o.precision = precision_from_string(r.precision.empty() ? "fp32" : r.precision, where + ": precision");
  o.runtime = row_runtime(r.runtime, where);
  o.mode = mode_from_string(r.mode.empty() ? "inference" : r.mode, where + ": mode");
  if (!r.batch || *r.batch < 1) throw InputError(where + ": batch is missing or < 1");
  o.batch = *r.batch;
  o.include_copies = r.includes_h2d.value_or(false);
  // And whether those copies moved pageable memory (an unpinned tensor, a DataLoader without pin_memory).
  if (auto it = r.extra.find("copy_memory"); it != r.extra.end() && !it->second.empty()) {
    if (it->second != "pageable" && it->second != "pinned")
      throw InputError(where + ": copy_memory '" + it->second + "' is not pageable or pinned");
    o.pageable_copies = it->second == "pageable";
  }
  // An extra column: the run replayed a captured CUDA graph (MLPerf's harness configs say so per run).
  if (auto it = r.extra.find("cuda_graphs"); it != r.extra.end()) o.cuda_graphs = it->second == "1";
  // And whether its inference recorded autograd (no torch.no_grad(): HELP's rows, as the host costs were fitted).
  if (auto it = r.extra.find("grad_mode"); it != r.extra.end())
    o.grad_mode = it->second == "1" && o.mode == Mode::inference && o.runtime == Runtime::pytorch;
  // And how the source's PyTorch ran attention (NeuSight's HF models of PyTorch 2.1's era: as written).
  if (auto it = r.extra.find("attention"); it != r.extra.end() && !it->second.empty())
    o.fused_attention = fused_attention_from_string(it->second, where + ": attention");
  // And how many kernels its harness let the host issue ahead of the GPU (HELP's NAS-Bench-201 and FBNet rows: 1).
  if (auto it = r.extra.find("launch_queue"); it != r.extra.end() && !it->second.empty()) {
    char* end = nullptr;
    const long n = std::strtol(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != '\0' || n < 0 || n > 65536)
      throw InputError(where + ": launch_queue '" + it->second + "' is not a count of kernels from 0 to 65536");
    o.launch_queue = static_cast<int>(n);
  }
  // And how its PyTorch updated parameters in training (PyTorch 1.x's per-tensor loops: "loop").
  if (auto it = r.extra.find("param_updates"); it != r.extra.end() && !it->second.empty())
    o.foreach_updates = foreach_updates_from_string(it->second, where + ": param_updates");
  // And how it trained at fp16/bf16 ("half": model.half(), no autocast).
  if (auto it = r.extra.find("mixed_precision"); it != r.extra.end() && !it->second.empty())
    o.autocast = autocast_from_string(it->second, where + ": mixed_precision");
  o.detail = false;
  return o;
}

const GraphCache::Entry* GraphCache::get(const NetworkRow& r, const DataFile& file) {
  if (r.model.empty()) return nullptr;
  const auto model = (file.path.parent_path() / r.model).lexically_normal();
  const int64_t batch = r.batch.value_or(1);
  const std::string key = model.string() + "#" + std::to_string(batch);
  auto it = m_cache.find(key);
  if (it != m_cache.end()) return it->second.get();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(model, ec)) return nullptr;  // not exported (sampling)
  auto e = std::make_unique<Entry>();
  onnx_import::ImportOptions io;
  io.batch = batch;
  e->graph = onnx_import::import_file(model, io);
  e->cost = analyze(e->graph);
  return m_cache.emplace(key, std::move(e)).first->second.get();
}

std::string row_text(const KernelRow& r) { return csv_line(to_fields(r)); }
std::string row_text(const NetworkRow& r) { return csv_line(to_fields(r)); }

bool keep_row(const std::string& id, double fraction) {
  if (fraction >= 1) return true;
  Fnv1a64 h;
  h.update(id);
  return static_cast<double>(h.state % 1000000ULL) < fraction * 1e6;
}

}  // namespace perfpred::learn

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <spdlog/spdlog.h>

#include "perfpred/predict/host_fit.hpp"
#include "perfpred/report/text.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred::cli {

std::map<std::string, std::vector<int64_t>> parse_input_shapes(const std::vector<std::string>& specs) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const auto& s : specs) {
    auto eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw InputError("--input-shape '" + printable(s, 80) + "': expected NAME=D0,D1,... (e.g. input=1,3,224,224)");
    std::string name = s.substr(0, eq);
    const std::string shown = printable(name, 80);  // names and values are quoted on one line
    std::vector<int64_t> dims;
    for (const auto& d : split(s.substr(eq + 1), ',')) {
      int64_t v = parse_int64(d, "--input-shape " + shown);
      if (v <= 0) throw InputError("--input-shape " + shown + ": dimension " + printable(d, 40) + " must be positive");
      dims.push_back(v);
    }
    out[name] = std::move(dims);
  }
  return out;
}

void parse_control_flow(const std::vector<std::string>& branches, const std::vector<std::string>& loop_trips,
                        onnx_import::ImportOptions& io) {
  auto split_eq = [](const std::string& s, const std::string& opt, const std::string& form) {
    auto eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw InputError(opt + " '" + printable(s, 80) + "': expected " + form);
    return std::make_pair(s.substr(0, eq), s.substr(eq + 1));
  };
  for (const auto& b : branches) {
    auto [name, v] = split_eq(b, "--branch", "NAME=then or NAME=else");
    if (v != "then" && v != "else")
      throw InputError("--branch " + printable(name + "=" + v, 80) + ": the branch is 'then' or 'else'");
    io.branches[name] = v;
  }
  for (const auto& t : loop_trips) {
    auto [name, v] = split_eq(t, "--loop-trips", "NAME=N (iterations, >= 0)");
    int64_t n = parse_int64(v, "--loop-trips " + printable(name, 80));
    if (n < 0) throw InputError("--loop-trips " + printable(name + "=" + v, 80) + ": iterations must be >= 0");
    io.loop_trips[name] = n;
  }
}

namespace {
/// Repeated "FLAG NAME=N" (one node) and "FLAG N" (every other such node), N >= 0, into `named` / `all`.
void parse_node_counts(const char* flag, const char* what, const std::vector<std::string>& counts,
                       std::map<std::string, int64_t>& named, int64_t& all) {
  const std::string f = flag;
  for (const auto& s : counts) {
    const auto eq = s.rfind('=');
    if (eq == 0 || (eq != std::string::npos && eq + 1 == s.size()))
      throw InputError(f + " '" + printable(s, 80) + "': expected NAME=N (one node) or N (every " + what + ")");
    const std::string name = eq == std::string::npos ? "" : s.substr(0, eq);
    const std::string label = f + (name.empty() ? std::string() : " " + printable(name, 80));
    const int64_t v = parse_int64(eq == std::string::npos ? s : s.substr(eq + 1), label);
    if (v < 0) throw InputError(f + " " + printable(s, 80) + ": the count must be >= 0");
    if (name.empty()) {
      if (all >= 0 && all != v)
        throw InputError(f + " is given twice for every node (" + std::to_string(all) + " and " + std::to_string(v) +
                         "); give it once");
      all = v;
      continue;
    }
    auto [it, fresh] = named.emplace(name, v);
    if (!fresh && it->second != v)
      throw InputError(f + " " + printable(name, 80) + " is given twice (" + std::to_string(it->second) + " and " +
                       std::to_string(v) + "); give it once");
  }
}
}  // namespace

void parse_data_counts(const std::vector<std::string>& counts, onnx_import::ImportOptions& io) {
  parse_node_counts("--data-count", "data-dependent node", counts, io.data_counts, io.data_count_all);
}

void parse_nms_candidates(const std::vector<std::string>& counts, onnx_import::ImportOptions& io) {
  parse_node_counts("--nms-candidates", "NonMaxSuppression with a score threshold", counts, io.nms_candidates,
                    io.nms_candidates_all);
}

void parse_dims(const std::vector<std::string>& dims, onnx_import::ImportOptions& io) {
  for (const auto& s : dims) {
    auto eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw InputError("--dim '" + printable(s, 80) + "': expected NAME=N (a symbolic input dim, e.g. seq=128)");
    const std::string name = s.substr(0, eq);
    int64_t v = parse_int64(s.substr(eq + 1), "--dim " + printable(name, 80));
    if (v < 1) throw InputError("--dim " + printable(s, 80) + ": the dim must be >= 1");
    auto [it, fresh] = io.dims.emplace(name, v);
    if (!fresh && it->second != v)
      throw InputError("--dim " + printable(name, 80) + " is given twice (" + std::to_string(it->second) + " and " +
                       std::to_string(v) + "); give it once");
  }
}

int64_t model_batch(const Graph& g, int64_t requested) {
  for (int t : g.inputs) {
    const Tensor& in = g.tensors[t];
    if (in.has_shape && in.shape.size() >= 2) return in.shape[0] > 0 ? in.shape[0] : requested;
  }
  return requested;
}

double r6(double v) {
  if (!std::isfinite(v) || v == 0) return 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::strtod(buf, nullptr);
}

nlohmann::json range_json(const PredictionRange& r) {
  nlohmann::json j = {{"low", r6(r.low)},
                      {"high", r6(r.high)},
                      {"regime", r.regime},
                      {"held_out_rows", r.rows},
                      {"nominal_coverage", r6(r.nominal_coverage)},
                      {"held_out_coverage", r6(r.held_out_coverage)}};
  if (r.machines > 0) j["held_out_machines"] = r.machines;
  if (r.capped_at_w > 0) j["capped_at_power_limit_w"] = r6(r.capped_at_w);
  return j;
}

double checked_host_factor(double f) {
  if (!(f >= k_host_factor_min && f <= k_host_factor_max))
    throw InputError("--host-factor " + report::fmt_given(f) +
                     ": must be between 0.1 and 10 (this machine's host CPU time over the reference machine's)");
  return f;
}

double checked_gpu_factor(double g) {
  if (!(g >= k_gpu_factor_min && g <= k_gpu_factor_max))
    throw InputError("--gpu-factor " + report::fmt_given(g) +
                     ": must be between 0.25 and 4 (this machine's GPU kernel time over the model's)");
  return g;
}

int checked_launch_queue(int n) {
  if (n < 0 || n > 65536)
    throw InputError("--launch-queue " + std::to_string(n) +
                     ": must be between 0 (no limit, the default) and 65536 kernels the host may issue ahead of the GPU");
  return n;
}

std::string host_factor_note(double f) {
  return "host costs (dispatch, autograd, enqueue) scaled by " + report::fmt_given(f) + " (--host-factor)";
}

std::string gpu_factor_note(double g) {
  return "kernel times scaled by " + report::fmt_given(g) + " (--gpu-factor: this machine's GPU speed)";
}

std::string machine_factors_text(double host_factor, double gpu_factor) {
  std::string s;
  if (host_factor != 1) s += ", host factor " + report::fmt_given(host_factor);
  if (gpu_factor != 1) s += ", GPU factor " + report::fmt_given(gpu_factor);
  return s;
}

void echo_machine_factors(nlohmann::json& j, double host_factor, double gpu_factor) {
  if (host_factor == 1 && gpu_factor == 1) return;
  if (!j.contains("notes")) j["notes"] = nlohmann::json::array();
  if (host_factor != 1) {
    j["host_factor"] = host_factor;
    j["notes"].push_back(host_factor_note(host_factor));
  }
  if (gpu_factor != 1) {
    j["gpu_factor"] = gpu_factor;
    j["notes"].push_back(gpu_factor_note(gpu_factor));
  }
}

bool checked_allow_tf32(bool no_tf32, Precision p, const std::string& given) {
  if (no_tf32 && p != Precision::fp32)
    throw InputError("--no-tf32 applies to --precision fp32 only (it was " + given + "); drop it, or use --precision fp32");
  return !no_tf32;
}

void echo_allow_tf32(nlohmann::json& j, bool allow_tf32) {
  if (!allow_tf32) j["allow_tf32"] = false;
}

std::string allow_tf32_text(bool allow_tf32) { return allow_tf32 ? std::string() : ", no TF32"; }

void echo_cuda_graphs(nlohmann::json& j, bool cuda_graphs) {
  if (cuda_graphs) j["cuda_graphs"] = true;
}

std::string cuda_graphs_text(bool cuda_graphs) { return cuda_graphs ? ", CUDA graphs" : std::string(); }

void echo_grad_mode(nlohmann::json& j, bool grad_mode) {
  if (grad_mode) j["grad_mode"] = true;
}

std::string grad_mode_text(bool grad_mode) { return grad_mode ? ", grad mode" : std::string(); }

void echo_launch_queue(nlohmann::json& j, int launch_queue) {
  if (launch_queue > 0) j["launch_queue"] = launch_queue;
}

std::string launch_queue_text(int launch_queue) {
  return launch_queue > 0 ? ", launch queue " + std::to_string(launch_queue) : std::string();
}

void echo_channels_last(nlohmann::json& j, bool channels_last) {
  if (channels_last) j["channels_last"] = true;
}

std::string channels_last_text(bool channels_last) { return channels_last ? ", channels_last" : std::string(); }

void echo_attention(nlohmann::json& j, bool fused_attention) {
  if (!fused_attention) j["attention"] = attention_name(false);
}

std::string attention_text(bool fused_attention) {
  return fused_attention ? std::string() : ", attention as written";
}

void echo_param_updates(nlohmann::json& j, bool foreach_updates) {
  if (!foreach_updates) j["param_updates"] = param_updates_name(false);
}

std::string param_updates_text(bool foreach_updates) {
  return foreach_updates ? std::string() : ", per-tensor parameter updates (PyTorch 1.x)";
}

void echo_mixed_precision(nlohmann::json& j, bool autocast) {
  if (!autocast) j["mixed_precision"] = mixed_precision_name(false);
}

std::string mixed_precision_text(bool autocast) { return autocast ? std::string() : ", half model (no autocast)"; }

namespace {
std::vector<std::string>& partial_list() {
  static std::vector<std::string> list;
  return list;
}
}  // namespace

GraphCost analyze_model(const Graph& g, const AnalyzeOptions& o, const std::string& model_path, bool allow_partial) {
  GraphCost c;
  try {
    c = analyze(g, o);
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.rfind(model_path, 0) == 0) throw;
    throw InputError(model_path + ": " + what);
  }
  if (c.complete()) return c;
  if (!allow_partial)
    throw InputError(model_path + ": " + unshaped_summary(g, c) +
                     "; --allow-partial predicts the shaped part only (the JSON then says \"complete\": false)");
  spdlog::warn("{}: partial prediction (--allow-partial): {}", model_path, unshaped_summary(g, c));
  auto& list = partial_list();
  for (int i : c.unshaped_nodes) {
    const Node& n = g.nodes[static_cast<size_t>(i)];
    std::string label = model_path + ": " + n.name + " (" + n.op + ")";
    if (std::find(list.begin(), list.end(), label) == list.end()) list.push_back(label);
  }
  return c;
}

const std::vector<std::string>& partial_nodes() { return partial_list(); }

std::string json_text(const nlohmann::json& j) {
  if (partial_list().empty() || !j.is_object()) return dump_json(j, 2) + "\n";
  nlohmann::json k = j;
  k["complete"] = false;
  k["unshaped_nodes"] = partial_list();
  return dump_json(k, 2) + "\n";
}

void print_json(const nlohmann::json& j) { std::cout << json_text(j); }

void write_text_file(const std::string& path, const std::string& text, const std::string& option) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path() && !std::filesystem::is_directory(p.parent_path(), ec))
    throw InputError(option + " " + path + ": directory " + p.parent_path().string() + " does not exist");
  if (std::filesystem::is_directory(p, ec)) throw InputError(option + " " + path + ": is a directory; give a file name");
  std::filesystem::path tmp = p;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw InputError(option + " " + path + ": cannot write " + tmp.string());
    f << text;
    if (!f.flush()) throw InternalError("writing " + tmp.string() + " failed");
  }
  std::filesystem::rename(tmp, p, ec);
  if (ec) throw InputError(option + " " + path + ": cannot rename " + tmp.string() + " into place (" + ec.message() + ")");
}

}  // namespace perfpred::cli

#include "cmd_inspect.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "common.hpp"
#include "perfpred/analysis/cost.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::cli {

namespace {

nlohmann::json shape_json(const Tensor& t) {
  if (!t.has_shape) return nullptr;
  nlohmann::json s = nlohmann::json::array();
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const int64_t d = t.shape[i];
    if (d >= 0) s.push_back(d);
    else if (i < t.dim_names.size() && !t.dim_names[i].empty()) s.push_back(t.dim_names[i]);  // symbolic, by name
    else s.push_back(nullptr);
  }
  return s;
}

nlohmann::json tensor_json(const Tensor& t) {
  nlohmann::json j = {{"name", t.name}, {"shape", shape_json(t)}, {"dtype", to_string(t.dtype)}};
  if (t.is_sequence) {  // a sequence has no shape: its elements' shapes in order, null where its length is unknown
    nlohmann::json elems = nullptr;
    if (t.elements) {
      elems = nlohmann::json::array();
      for (const auto& e : *t.elements) {
        Tensor as_tensor;
        as_tensor.shape = e.shape;
        as_tensor.has_shape = e.has_shape;
        elems.push_back(shape_json(as_tensor));
      }
    }
    j["sequence"] = std::move(elems);
  }
  if (t.is_optional)  // its tensor's shape above; whether it holds one (null: not known)
    j["optional"] = t.holds_element ? nlohmann::json(*t.holds_element) : nlohmann::json(nullptr);
  return j;
}

std::string human(double v) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (v >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, i == 0 ? "%.0f%s" : "%.2f %s", v, prefixes[i]);
  return buf;
}

std::string bytes_text(double v) {
  const char* prefixes[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (v >= 1024.0 && i < 4) {
    v /= 1024.0;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, i == 0 ? "%.0f %s" : "%.1f %s", v, prefixes[i]);
  return buf;
}

std::string clip(const std::string& s, size_t w) { return s.size() <= w ? s : s.substr(0, w - 1) + "~"; }

void print_table(const Graph& g, const GraphCost& cost) {
  std::printf("model %s  opset %lld  producer %s\n", g.model_name.c_str(), static_cast<long long>(g.opset),
              g.producer.empty() ? "-" : g.producer.c_str());
  for (int i : g.inputs) {
    const Tensor& t = g.tensors[static_cast<size_t>(i)];
    std::printf("input %s %s %s\n", t.name.c_str(), shape_to_string(t).c_str(), to_string(t.dtype).c_str());
  }
  std::printf("\n%-36s %-20s %-22s %12s %12s %12s %12s %9s\n", "name", "op", "output shape", "FLOPs", "params",
              "read", "written", "FLOP/B");
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    const NodeCost& c = cost.nodes[k];
    const Tensor* o = g.output(n, 0);
    std::string shape = o ? shape_to_string(*o) : "-";
    // "+K": the node's other outputs, not counting the optional ones it omits (an empty name).
    const auto others = std::count_if(n.outputs.begin() + (n.outputs.empty() ? 0 : 1), n.outputs.end(),
                                      [](int t) { return t >= 0; });
    if (others > 0) shape += " +" + std::to_string(others);
    std::string op = n.op + (c.estimated ? "*" : "");
    char intensity[32];
    std::snprintf(intensity, sizeof intensity, "%.2f", c.intensity());
    std::printf("%-36s %-20s %-22s %12s %12s %12s %12s %9s\n", clip(n.name, 36).c_str(), clip(op, 20).c_str(),
                clip(shape, 22).c_str(), human(c.flops).c_str(), human(static_cast<double>(c.params)).c_str(),
                bytes_text(static_cast<double>(c.bytes_read)).c_str(),
                bytes_text(static_cast<double>(c.bytes_written)).c_str(), intensity);
    for (const auto& w : n.warnings) std::printf("    warning: %s\n", w.c_str());
    for (const auto& w : c.warnings) std::printf("    warning: %s\n", w.c_str());
  }
  double bytes = static_cast<double>(cost.total_bytes_read) + static_cast<double>(cost.total_bytes_written);
  std::printf("\ntotal: %zu nodes, %s FLOPs (%s MACs), %s params, read %s, written %s, intensity %.2f FLOP/B\n",
              g.nodes.size(), human(cost.total_flops).c_str(), human(cost.total_flops / 2).c_str(),
              human(static_cast<double>(cost.total_params)).c_str(),
              bytes_text(static_cast<double>(cost.total_bytes_read)).c_str(),
              bytes_text(static_cast<double>(cost.total_bytes_written)).c_str(), bytes > 0 ? cost.total_flops / bytes : 0.0);
  bool estimated = false;
  for (const auto& c : cost.nodes) estimated |= c.estimated;
  if (estimated) std::printf("* unknown op: bytes-only estimate (--allow-unknown), FLOPs not counted\n");
  for (const auto& w : g.warnings) std::printf("warning: %s\n", w.c_str());
}

nlohmann::json to_json(const Graph& g, const GraphCost& cost) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["model"] = g.model_name;
  j["opset"] = g.opset;
  j["producer"] = g.producer;
  j["inputs"] = nlohmann::json::array();
  for (int i : g.inputs) j["inputs"].push_back(tensor_json(g.tensors[static_cast<size_t>(i)]));
  j["nodes"] = nlohmann::json::array();
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    const NodeCost& c = cost.nodes[k];
    nlohmann::json jn;
    jn["name"] = n.name;
    jn["op"] = n.op;
    if (!n.domain.empty()) jn["domain"] = n.domain;
    jn["inputs"] = nlohmann::json::array();
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (const Tensor* t = g.input(n, i)) jn["inputs"].push_back(tensor_json(*t));
    jn["outputs"] = nlohmann::json::array();
    for (size_t i = 0; i < n.outputs.size(); ++i)
      if (const Tensor* t = g.output(n, i)) jn["outputs"].push_back(tensor_json(*t));
    jn["flops"] = c.flops;
    jn["params"] = c.params;
    jn["bytes_read"] = c.bytes_read;
    jn["bytes_written"] = c.bytes_written;
    jn["family"] = to_string(c.family);
    if (c.estimated) jn["estimated"] = true;
    std::vector<std::string> warnings = n.warnings;
    warnings.insert(warnings.end(), c.warnings.begin(), c.warnings.end());
    if (!warnings.empty()) jn["warnings"] = warnings;
    j["nodes"].push_back(std::move(jn));
  }
  j["totals"] = {{"flops", cost.total_flops},
                 {"params", cost.total_params},
                 {"bytes_read", cost.total_bytes_read},
                 {"bytes_written", cost.total_bytes_written}};
  j["warnings"] = g.warnings;
  return j;
}

}  // namespace

int run_inspect(const InspectOptions& opts) {
  if (opts.batch <= 0) throw InputError("--batch " + std::to_string(opts.batch) + ": must be a positive integer");
  onnx_import::ImportOptions io;
  io.batch = opts.batch;
  io.input_shapes = parse_input_shapes(opts.input_shapes);
  parse_control_flow(opts.branches, opts.loop_trips, io);
  parse_dims(opts.dims, io);
  parse_data_counts(opts.data_counts, io);
  parse_nms_candidates(opts.nms_candidates, io);
  io.keep_symbolic = true;  // inspect shows a model's symbolic dims by name; predict and the others refuse them
  Graph g = onnx_import::import_file(opts.model, io);
  AnalyzeOptions ao;
  ao.allow_unknown = opts.allow_unknown;
  GraphCost cost = analyze_model(g, ao, opts.model, true);
  if (opts.json)
    print_json(to_json(g, cost));
  else
    print_table(g, cost);
  return 0;
}

}  // namespace perfpred::cli

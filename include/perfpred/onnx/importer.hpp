#pragma once
/// ONNX import: the only module that includes ONNX/protobuf headers. Produces a fully shaped Graph.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "perfpred/core/graph.hpp"

namespace perfpred::onnx_import {

/// How to resolve a model's free (symbolic or missing) dimensions.
struct ImportOptions {
  int64_t batch = 1;  ///< value for the leading symbolic dim of every runtime input
  std::map<std::string, std::vector<int64_t>> input_shapes;  ///< exact shapes by input name (override batch)
  /// Symbolic dims by name (--dim seq=128): every input dim with that dim_param, in every input not
  /// given by input_shapes; wins over batch. An input_shapes entry that gives such a dim another value,
  /// or a name no input has, is an InputError.
  std::map<std::string, int64_t> dims;
  /// Leave symbolic input dims that neither dims nor batch set unknown, named (Tensor::dim_names),
  /// instead of refusing them: inspect shows what it can, as ONNX Runtime's symbolic inference does.
  bool keep_symbolic = false;
  /// If nodes by name -> "then" or "else": the branch to take whatever the condition (--branch).
  std::map<std::string, std::string> branches;
  /// Loop/Scan nodes by name -> iterations to unroll, for trip counts not known at import (--loop-trips).
  std::map<std::string, int64_t> loop_trips;
  /// Elements a data-dependent op outputs (NonZero, NonMaxSuppression, Compress), by node name (--data-count
  /// NAME=N), and for every such node without a name here when data_count_all >= 0 (--data-count N); each capped
  /// at the op's upper bound (the input's elements, the boxes NMS may keep). A name no such node has is an
  /// InputError. Without either the count stays unknown: --allow-partial costs the shaped part only.
  std::map<std::string, int64_t> data_counts;
  int64_t data_count_all = -1;
  /// Boxes per image and class over a NonMaxSuppression's score threshold, by node name (--nms-candidates
  /// NAME=K), and for every such node without a name here when nms_candidates_all >= 0 (--nms-candidates K):
  /// the candidates its overlap tests pair (Graph::nms_candidates). A name that is no NonMaxSuppression with a
  /// score_threshold input is an InputError.
  std::map<std::string, int64_t> nms_candidates;
  int64_t nms_candidates_all = -1;
  /// Messages name the overrides as a file's keys ("branches.NAME", "loop_trips.NAME", "dims.NAME": a
  /// budget file) instead of the options ("--branch NAME=then", "--loop-trips NAME=N", "--dim NAME=N").
  bool overrides_are_keys = false;
  /// Most nodes one Loop or Scan may unroll to (its trip count times its body); more is an InputError naming
  /// the node. The fuzz targets lower it: they test the logic on small graphs, not the import's scale.
  int64_t max_unrolled_nodes = 500000;
};

/// Load an .onnx file (never opening external-data files), resolve dims, expand control flow (an If
/// becomes the nodes of its branch: the one its folded condition picks, else the more expensive one,
/// noted in Graph::warnings; a Loop or Scan is unrolled by its trip count), run ONNX shape inference with
/// data propagation, fold shape subgraphs, and return the Graph. Throws InputError naming the file,
/// node or field on bad input.
Graph import_file(const std::filesystem::path& path, const ImportOptions& opts = {});

/// Same, from an in-memory serialized ModelProto; `label` names it in messages.
Graph import_bytes(const std::string& bytes, const std::string& label, const ImportOptions& opts = {});

/// Same, from ONNX textual syntax (the onnx parser's `<ir_version:8, opset_import:["":13]> agraph (...) => (...) {...}`);
/// used by tests to write small models inline.
Graph import_text(const std::string& text, const ImportOptions& opts = {});

}  // namespace perfpred::onnx_import

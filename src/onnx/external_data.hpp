#pragma once
// External data (ONNX's data_location = EXTERNAL): the values of the small constants shapes are folded from
// (Reshape targets, Slice bounds, Pad amounts, Clip bounds) read from the files a model names beside it.
// Weights, whose values no prediction needs, are never opened. Only the importer includes this.
#include <filesystem>
#include <map>
#include <string>

#include <onnx/onnx_pb.h>

#include "perfpred/core/dtype.hpp"

namespace perfpred::onnx_import::detail {

/// Whether the importer keeps a constant's values: integers up to k_max_fold_elems elements (shape
/// arithmetic), floats up to k_max_float_values (bounds, scales). Larger tensors keep dims and type only.
bool keeps_values(DType dt, int64_t numel);

/// For every tensor of `model` (initializers and Constant values, in subgraphs too) stored in external data
/// whose values the importer keeps (keeps_values), read its bytes into raw_data from the file its `location`
/// names under `model_dir`. A location that is absolute or climbs out of `model_dir` ("..") is never opened.
/// Returns the tensors left unread, name -> why ("rs.data: no such file beside the model"); their shapes
/// still import, and anything folded from their values stays unknown.
std::map<std::string, std::string> load_small_external_data(onnx::ModelProto& model, const std::filesystem::path& model_dir);

}  // namespace perfpred::onnx_import::detail

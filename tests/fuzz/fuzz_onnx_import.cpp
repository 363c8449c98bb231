// ONNX bytes -> Graph: the importer (our wire reader, protobuf, limits, schema checks, ONNX's shape
// inference and perfpred's shape rules) on any bytes.
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "perfpred/onnx/importer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  perfpred::onnx_import::ImportOptions io;
  io.max_unrolled_nodes = fuzz::k_max_unrolled_nodes;
  fuzz::expect_clean([&] { perfpred::onnx_import::import_bytes(bytes, "fuzz.onnx", io); });
  return 0;
}

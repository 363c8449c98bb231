// ONNX bytes -> Graph: the importer (our wire reader, protobuf, limits, schema checks, ONNX's shape
// inference and perfpred's shape rules) on any bytes. Inputs that name an external-data location are also
// imported from a file (import_file), beside a data file "data.bin", so the external-data reader runs on them.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "perfpred/onnx/importer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  perfpred::onnx_import::ImportOptions io;
  io.max_unrolled_nodes = fuzz::k_max_unrolled_nodes;
  fuzz::expect_clean([&] { perfpred::onnx_import::import_bytes(bytes, "fuzz.onnx", io); });
  if (bytes.find("location") != std::string::npos) {
    static const bool data_written = [] {
      std::vector<int64_t> v(32);  // external_data.onnx's seed reads [-1, 24] at 0, [0] at 16, [8] at 24
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
      v[0] = -1;
      v[1] = 24;
      v[2] = 0;
      v[3] = 8;
      fuzz::scratch_file(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(int64_t), "", "data.bin");
      return true;
    }();
    (void)data_written;
    const auto path = fuzz::scratch_file(data, size, ".onnx");
    fuzz::expect_clean([&] { perfpred::onnx_import::import_file(path, io); });
  }
  return 0;
}

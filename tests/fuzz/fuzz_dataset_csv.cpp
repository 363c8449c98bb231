// Dataset CSVs and their JSON sidecars: the input is the CSV, then optionally the line "#META#" and the
// sidecar. Read as a raw dataset, then as kernel and as network rows, and each network row's run settings as train
// and eval read them (learn::network_options: mode, batch, precision and the extra columns).
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "perfpred/dataset/dataset.hpp"
#include "perfpred/learn/data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const std::string sep = "\n#META#\n";
  const size_t cut = in.find(sep);
  const std::string csv = in.substr(0, cut);
  const auto path = fuzz::scratch_file(reinterpret_cast<const uint8_t*>(csv.data()), csv.size(), ".csv");
  const auto meta = perfpred::sidecar_path(path);
  std::error_code ec;
  std::filesystem::remove(meta, ec);
  if (cut != std::string::npos) {
    const std::string side = in.substr(cut + sep.size());
    std::ofstream(meta, std::ios::binary) << side;
  }
  fuzz::expect_clean([&] { (void)perfpred::read_dataset(path); });
  fuzz::expect_clean([&] { (void)perfpred::read_kernel_rows(path); });
  fuzz::expect_clean([&] {
    for (const auto& r : perfpred::read_network_rows(path)) (void)perfpred::learn::network_options(r, "fuzz");
  });
  return 0;
}

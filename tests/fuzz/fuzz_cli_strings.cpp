// Option strings: `--vary FIELD=START:STOP:STEP` (parsed, sized against --max-points, and when small
// enough every point applied to a base GPU) and `--input-shape NAME=D0,D1,...`. The first byte picks one.
#include <cstdint>
#include <string>

#include "common.hpp"
#include "fuzz_common.hpp"
#include "perfpred/advise/sweep.hpp"
#include "perfpred/hw/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const perfpred::GpuSpec base = perfpred::resolve_gpu("a100-sxm4-40gb");
  const std::string s(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] & 1) {
    fuzz::expect_clean([&] { (void)perfpred::cli::parse_input_shapes({s}); });
    return 0;
  }
  fuzz::expect_clean([&] {
    const perfpred::advise::SweepAxis a = perfpred::advise::parse_sweep_axis(s);
    if (perfpred::advise::sweep_grid_size({a}, 1000000) > 64) return;
    for (double v : a.values()) (void)perfpred::advise::apply_sweep_point(base, {a.field}, {v});
  });
  return 0;
}

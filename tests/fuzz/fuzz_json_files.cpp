// The JSON files a user writes by hand: the first byte picks a GPU spec file, a budget file, a
// profiling plan or a price file; the rest is the file, read through the same loader the CLI uses.
#include <cstdint>

#include "fuzz_common.hpp"
#include "perfpred/advise/budget.hpp"
#include "perfpred/advise/select.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/profile/plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto path = fuzz::scratch_file(data + 1, size - 1, ".json");
  switch (data[0] % 4) {
    case 0: fuzz::expect_clean([&] { (void)perfpred::load_spec_file(path); }); break;
    case 1: fuzz::expect_clean([&] { (void)perfpred::advise::parse_budget_file(path); }); break;
    case 2: fuzz::expect_clean([&] { (void)perfpred::load_plan(path.string()); }); break;
    default: fuzz::expect_clean([&] { (void)perfpred::advise::load_prices(path); }); break;
  }
  return 0;
}

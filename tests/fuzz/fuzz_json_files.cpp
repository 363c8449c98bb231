// The JSON files a user writes by hand: the first byte picks a GPU spec file, a budget file, a
// profiling plan, a price file or a latency range table (models/latency-intervals.json, which
// PERFPRED_MODEL_DIR may point anywhere); the rest is the file, read through the same loader the CLI uses.
#include <cstdint>

#include "fuzz_common.hpp"
#include "perfpred/advise/budget.hpp"
#include "perfpred/advise/select.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/predict/interval.hpp"
#include "perfpred/profile/plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto path = fuzz::scratch_file(data + 1, size - 1, ".json");
  switch (data[0] % 5) {
    case 0: fuzz::expect_clean([&] { (void)perfpred::load_spec_file(path); }); break;
    case 1: fuzz::expect_clean([&] { (void)perfpred::advise::parse_budget_file(path); }); break;
    case 2: fuzz::expect_clean([&] { (void)perfpred::load_plan(path.string()); }); break;
    case 3: fuzz::expect_clean([&] { (void)perfpred::advise::load_prices(path); }); break;
    default: fuzz::expect_clean([&] { (void)perfpred::load_interval_table(path); }); break;
  }
  return 0;
}

// A GPU under a power limit below its TDP: the "@<W>w" id suffix, its range, and the spec it gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/hw/power_limit.hpp"
#include "perfpred/hw/sustained_clock.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {
namespace {

namespace fs = std::filesystem;
const fs::path k_gpus = fs::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PowerLimit, ParsesWattSuffixes) {
  EXPECT_EQ(parse_power_limit_suffix("150w"), 150.0);
  EXPECT_EQ(parse_power_limit_suffix("137.5W"), 137.5);
  EXPECT_FALSE(parse_power_limit_suffix("maxn"));
  EXPECT_FALSE(parse_power_limit_suffix("w"));
  EXPECT_FALSE(parse_power_limit_suffix(".w"));
  EXPECT_FALSE(parse_power_limit_suffix("150"));
  EXPECT_FALSE(parse_power_limit_suffix("-150w"));
  EXPECT_FALSE(parse_power_limit_suffix("1e3w"));
  EXPECT_FALSE(parse_power_limit_suffix("1.5.0w"));
}

TEST(PowerLimit, CatalogIdWithALimit) {
  const GpuSpec v100 = GpuCatalog::resolve_in(k_gpus, "v100-pcie-32gb");
  const GpuSpec s = GpuCatalog::resolve_in(k_gpus, "v100-pcie-32gb@150w");
  EXPECT_EQ(s.id, "v100-pcie-32gb@150w");
  EXPECT_EQ(s.parent_id, "v100-pcie-32gb");
  EXPECT_EQ(s.power_limit_w, 150.0);
  EXPECT_EQ(s.tdp_w, v100.tdp_w);  // the board's TDP is kept; the limit is what it may draw
  EXPECT_EQ(board_power_limit_w(s), 150.0);
  EXPECT_EQ(board_power_limit_w(v100), v100.tdp_w);
  EXPECT_EQ(full_load_power_w(s), 150.0);
  EXPECT_LT(sustained_clock_scale(s), sustained_clock_scale(v100));
  // The TDP itself changes nothing.
  const GpuSpec top = GpuCatalog::resolve_in(k_gpus, "v100-pcie-32gb@250w");
  EXPECT_EQ(top.power_limit_w, 0.0);
  EXPECT_EQ(sustained_clock_scale(top), sustained_clock_scale(v100));
}

TEST(PowerLimit, RangeIsAboveIdleUpToTheTdp) {
  std::string e = error_of([] { GpuCatalog::resolve_in(k_gpus, "v100-pcie-32gb@300w"); });
  EXPECT_NE(e.find("(22.5, 250] W"), std::string::npos) << e;
  EXPECT_NE(e.find("v100-pcie-32gb@300w"), std::string::npos) << e;
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "v100-pcie-32gb@20w"); });
  EXPECT_NE(e.find("(22.5, 250] W"), std::string::npos) << e;
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "v100-pcie-32gb@0w"); });
  EXPECT_NE(e.find("outside"), std::string::npos) << e;
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "v100-pcie-32gb@fast"); });
  EXPECT_NE(e.find("v100-pcie-32gb@<W>w with W in (22.5, 250] W"), std::string::npos) << e;
  // Jetsons have power modes, not limits; MIG slices take none.
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "jetson-nano@7w"); });
  EXPECT_NE(e.find("jetson-nano@5w"), std::string::npos) << e;
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "a100-sxm4-40gb:3g.20gb@200w"); });
  EXPECT_NE(e.find("MIG profile"), std::string::npos) << e;
  const GpuSpec nano = GpuCatalog::resolve_in(k_gpus, "jetson-nano");
  e = error_of([&] { with_power_limit(nano, 5, "jetson-nano@5w"); });
  EXPECT_NE(e.find("power modes, not power limits"), std::string::npos) << e;
  const GpuSpec limited = GpuCatalog::resolve_in(k_gpus, "a40@200w");
  e = error_of([&] { with_power_limit(limited, 150, "a40@200w@150w"); });
  EXPECT_NE(e.find("whole GPU"), std::string::npos) << e;
}

TEST(PowerLimit, SpecFileWithALimit) {
  const fs::path dir = fs::temp_directory_path() / "perfpred_test_power_limit";
  fs::create_directories(dir);
  const fs::path spec = dir / "my-gpu.json";
  std::ofstream(spec) << R"({"schema_version": 1, "base": "a40", "id": "my-gpu", "tdp_w": 250})";
  const GpuSpec s = resolve_gpu(spec.string() + "@200w");
  EXPECT_EQ(s.id, "my-gpu@200w");
  EXPECT_EQ(s.power_limit_w, 200.0);
  EXPECT_EQ(s.tdp_w, 250.0);
  const std::string e = error_of([&] { resolve_gpu(spec.string() + "@251w"); });
  EXPECT_NE(e.find("at most its TDP"), std::string::npos) << e;
  // A spec file cannot set the derived field itself.
  std::ofstream(spec) << R"({"schema_version": 1, "base": "a40", "id": "my-gpu", "power_limit_w": 200})";
  EXPECT_NE(error_of([&] { resolve_gpu(spec.string()); }).find("FILE.json@<W>w"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace perfpred

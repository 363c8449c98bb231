#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
namespace fs = std::filesystem;

namespace {

const fs::path k_gpus = fs::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus";

const GpuCatalog& catalog() {
  static const GpuCatalog c(k_gpus);
  return c;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// A scratch copy of one catalog file, edited, in a directory of its own.
class BrokenCatalog : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("perfpred_hw_test_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ifstream in(k_gpus / "t4.json");
    doc = nlohmann::json::parse(in);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string load_error() {
    std::ofstream(dir / "t4.json") << doc.dump(2);
    return error_of([&] { GpuCatalog c(dir); });
  }
  fs::path dir;
  nlohmann::json doc;
};

}  // namespace

TEST(GpuCatalog, LoadsEveryRequiredId) {
  const char* required[] = {
      "gtx-1080", "gtx-1080ti", "titan-x-pascal", "titan-xp", "titan-v", "rtx-2080ti", "titan-rtx", "p4",
      "p100-pcie-16gb", "v100-sxm2-16gb", "v100-pcie-32gb", "t4", "rtx-3090", "a10", "a30", "a40",
      "a100-pcie-40gb", "a100-sxm4-40gb", "a100-pcie-80gb", "a100-sxm4-80gb", "l4", "l40s", "rtx-4090",
      "h100-pcie-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", "jetson-nano", "jetson-tx2", "jetson-xavier-nx",
      "jetson-agx-xavier", "jetson-orin-nano-8gb", "jetson-orin-nx-16gb", "jetson-agx-orin-64gb"};
  for (const char* id : required) {
    GpuSpec s = catalog().resolve(id);
    EXPECT_EQ(s.id, id);
    EXPECT_GT(s.fp32_tflops, 0) << id;
    EXPECT_GT(s.mem_bandwidth_gbps, 0) << id;
    EXPECT_GT(s.idle_power_w, 0) << id;
    EXPECT_LT(s.idle_power_w, s.tdp_w) << id;
    EXPECT_FALSE(s.sources.empty()) << id;
    if (s.unified_memory) EXPECT_EQ(s.host_link_gbps, 0) << id;
    else EXPECT_GT(s.host_link_gbps, 0) << id;
  }
  EXPECT_GE(catalog().devices().size(), 33u);
  EXPECT_TRUE(std::is_sorted(catalog().devices().begin(), catalog().devices().end(),
                             [](const GpuSpec& a, const GpuSpec& b) { return a.id < b.id; }));
}

TEST(GpuCatalog, PublishedFiguresArrive) {
  GpuSpec a = catalog().resolve("a100-sxm4-40gb");
  EXPECT_EQ(a.sm_count, 108);
  EXPECT_DOUBLE_EQ(a.tensor_fp16_tflops, 312);
  EXPECT_DOUBLE_EQ(a.mem_bandwidth_gbps, 1555);
  EXPECT_EQ(a.compute_capability, "8.0");
  EXPECT_EQ(a.pcie_gen, 4);
  GpuSpec n = catalog().resolve("jetson-nano");
  EXPECT_TRUE(n.unified_memory);
  EXPECT_EQ(n.power_mode, "maxn");  // the bare id is the maximum mode
}

TEST(GpuCatalog, EveryMigProfileIsSmallerThanItsGpu) {
  struct Expect {
    const char* id;
    size_t profiles;
  };
  for (Expect e : {Expect{"a100-pcie-40gb", 7}, Expect{"a100-sxm4-40gb", 7}, Expect{"a100-pcie-80gb", 7},
                   Expect{"a100-sxm4-80gb", 7}, Expect{"a30", 5}, Expect{"h100-pcie-80gb", 7},
                   Expect{"h100-sxm5-80gb", 7}, Expect{"h200-sxm-141gb", 7}}) {
    GpuSpec parent = catalog().resolve(e.id);
    auto slices = catalog().mig_slices(e.id);
    EXPECT_EQ(slices.size(), e.profiles) << e.id;
    for (const auto& sl : slices) {
      GpuSpec r = catalog().resolve(sl.id);  // every derived id resolves by name
      EXPECT_EQ(r.id, sl.id);
      EXPECT_EQ(r.parent_id, e.id);
      EXPECT_FALSE(r.mig_profile.empty());
      EXPECT_LE(r.sm_count, parent.sm_count) << r.id;
      EXPECT_LT(r.memory_gb, parent.memory_gb) << r.id;
      EXPECT_LE(r.mem_bandwidth_gbps, parent.mem_bandwidth_gbps) << r.id;
      EXPECT_LE(r.l2_cache_mb, parent.l2_cache_mb) << r.id;
      EXPECT_LE(r.peak_flops(Precision::fp16), parent.peak_flops(Precision::fp16)) << r.id;
      EXPECT_GT(r.sm_fraction, 0);
      EXPECT_LE(r.sm_fraction, 1.0) << r.id;
      // Only the full-GPU profiles (7g, A30 4g) of A30/H100/H200 keep every SM; all others have fewer.
      const std::string full = std::string(e.id) == "a30" ? "4g." : "7g.";
      if (r.mig_profile.rfind(full, 0) != 0) {
        EXPECT_LT(r.sm_count, parent.sm_count) << r.id;
      } else if (std::string(e.id).rfind("a100", 0) == 0) {
        EXPECT_EQ(r.sm_count, 98) << r.id;
      }
      // Power is the instance's share of the board: never above the whole GPU's, never above idle + dynamic.
      EXPECT_LE(r.tdp_w, parent.tdp_w * (1 + 1e-12)) << r.id;
      EXPECT_LE(r.idle_power_w, parent.idle_power_w * (1 + 1e-12)) << r.id;
      EXPECT_LT(r.idle_power_w, r.tdp_w) << r.id;
    }
    // The full-GPU profile (A100 7g: 98 of 108 SMs, all MIG mode hands out) draws the whole board's power.
    const auto& full = slices.back();
    EXPECT_NEAR(full.tdp_w, parent.tdp_w, 1e-9) << full.id;
    EXPECT_NEAR(full.idle_power_w, parent.idle_power_w, 1e-9) << full.id;
  }
  GpuSpec s = catalog().resolve("a100-sxm4-40gb:3g.20gb");
  EXPECT_EQ(s.sm_count, 42);
  EXPECT_NEAR(s.mem_bandwidth_gbps, 1555.0 / 2, 1e-6);
  EXPECT_NEAR(s.l2_cache_mb, 20, 1e-9);
  EXPECT_DOUBLE_EQ(s.memory_gb, 19.5);
  EXPECT_DOUBLE_EQ(s.memory_bytes(), 19.5 * 1073741824.0);
  EXPECT_NEAR(s.fp32_tflops, 19.5 * 42 / 108, 1e-9);
  GpuSpec h = catalog().resolve("h100-sxm5-80gb:1g.10gb");
  EXPECT_EQ(h.sm_count, 16);
  EXPECT_NEAR(h.mem_bandwidth_gbps, 3350.0 / 8, 1e-6);
}

TEST(GpuCatalog, MigSlicePowerIsItsShareOfTheBoard) {
  // 1g on A100: a seventh of idle and of the dynamic range, so seven busy 1g instances sum to the board.
  GpuSpec a = catalog().resolve("a100-sxm4-40gb"), one = catalog().resolve("a100-sxm4-40gb:1g.5gb");
  EXPECT_NEAR(one.idle_power_w, a.idle_power_w / 7, 1e-9);
  EXPECT_NEAR(one.tdp_w, a.tdp_w / 7, 1e-9);
  EXPECT_NEAR(catalog().resolve("a100-sxm4-40gb:3g.20gb").tdp_w, a.tdp_w * 3 / 7, 1e-9);
  // H100 SXM 1g.20gb has 26 SMs against 1g.10gb's 16: same idle share, more dynamic power.
  GpuSpec h = catalog().resolve("h100-sxm5-80gb"), h10 = catalog().resolve("h100-sxm5-80gb:1g.10gb"),
          h20 = catalog().resolve("h100-sxm5-80gb:1g.20gb");
  EXPECT_NEAR(h10.idle_power_w, h.idle_power_w / 7, 1e-9);
  EXPECT_NEAR(h20.idle_power_w, h.idle_power_w / 7, 1e-9);
  EXPECT_NEAR(h20.tdp_w - h20.idle_power_w, (h.tdp_w - h.idle_power_w) * 26 / 132, 1e-9);
  EXPECT_GT(h20.tdp_w, h10.tdp_w);
  // A30 has 4 compute slices.
  EXPECT_NEAR(catalog().resolve("a30:1g.6gb").tdp_w, catalog().resolve("a30").tdp_w / 4, 1e-9);
}

TEST(GpuCatalog, PowerModesScaleDown) {
  GpuSpec full = catalog().resolve("jetson-nano");
  GpuSpec low = catalog().resolve("jetson-nano@5w");
  EXPECT_LT(low.peak_flops(Precision::fp32), full.peak_flops(Precision::fp32));
  EXPECT_DOUBLE_EQ(low.tdp_w, 5);
  EXPECT_DOUBLE_EQ(low.boost_clock_mhz, 640);
  EXPECT_EQ(low.parent_id, "jetson-nano");
  GpuSpec orin = catalog().resolve("jetson-agx-orin-64gb@30w");
  EXPECT_EQ(orin.sm_count, 8);
  EXPECT_NEAR(orin.fp32_tflops, 5.3 * (612.0 / 1300) * 0.5, 1e-9);
  for (const char* id : {"jetson-nano", "jetson-tx2", "jetson-xavier-nx", "jetson-agx-xavier",
                         "jetson-orin-nano-8gb", "jetson-orin-nx-16gb", "jetson-agx-orin-64gb"}) {
    auto modes = catalog().power_modes(id);
    ASSERT_GE(modes.size(), 2u) << id;
    GpuSpec bare = catalog().resolve(id);
    EXPECT_EQ(bare.power_mode, modes[0].power_mode) << id;
    for (const auto& m : modes) {
      EXPECT_LE(m.fp32_tflops, bare.fp32_tflops + 1e-12) << m.id;
      EXPECT_LE(m.tdp_w, bare.tdp_w) << m.id;
      EXPECT_LT(m.idle_power_w, m.tdp_w) << m.id;
    }
  }
  EXPECT_TRUE(catalog().power_modes("a100-sxm4-40gb").empty());
  EXPECT_TRUE(catalog().mig_slices("t4").empty());
}

TEST(GpuCatalog, UnknownIdsListCloseOnes) {
  std::string e = error_of([] { catalog().resolve("a100-sxm-40gb"); });
  EXPECT_NE(e.find("a100-sxm4-40gb"), std::string::npos) << e;
  EXPECT_NE(e.find("perfpred devices"), std::string::npos) << e;
  e = error_of([] { catalog().resolve("a100-sxm4-40gb:3g.40gb"); });
  EXPECT_NE(e.find("a100-sxm4-40gb:3g.20gb"), std::string::npos) << e;
  e = error_of([] { catalog().resolve("t4:1g.5gb"); });
  EXPECT_NE(e.find("no MIG profiles"), std::string::npos) << e;
  e = error_of([] { catalog().resolve("jetson-nano@7w"); });
  EXPECT_NE(e.find("jetson-nano@5w"), std::string::npos) << e;
  // Case and blanks do not matter.
  EXPECT_EQ(catalog().resolve(" T4 ").id, "t4");
}

TEST(GpuCatalog, AllIdsResolve) {
  auto ids = catalog().all_ids();
  EXPECT_GT(ids.size(), catalog().devices().size() + 50);
  for (const auto& id : ids) EXPECT_EQ(catalog().resolve(id).id, id);
}

TEST(GpuCatalog, ResolveInReadsOneFileAndAgreesWithTheWholeCatalog) {
  for (const auto& id : catalog().all_ids()) {
    GpuSpec one = GpuCatalog::resolve_in(k_gpus, id);
    GpuSpec all = catalog().resolve(id);
    EXPECT_EQ(one.id, all.id);
    EXPECT_EQ(to_json(one), to_json(all)) << id;
  }
  EXPECT_EQ(GpuCatalog::resolve_in(k_gpus, " T4 ").id, "t4");
  // Unknown ids, MIG profiles and power modes keep the whole catalog's close-id lists.
  std::string e = error_of([] { GpuCatalog::resolve_in(k_gpus, "a100-sxm-40gb"); });
  EXPECT_NE(e.find("a100-sxm4-40gb"), std::string::npos) << e;
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "a100-sxm4-40gb:3g.40gb"); });
  EXPECT_NE(e.find("a100-sxm4-40gb:3g.20gb"), std::string::npos) << e;
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "t4:1g.5gb"); });
  EXPECT_NE(e.find("no MIG profiles"), std::string::npos) << e;
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "jetson-nano@7w"); });
  EXPECT_NE(e.find("jetson-nano@5w"), std::string::npos) << e;
  // Path-like ids never name a file outside the directory.
  e = error_of([] { GpuCatalog::resolve_in(k_gpus, "../gpus/t4"); });
  EXPECT_NE(e.find("unknown GPU"), std::string::npos) << e;
}

TEST_F(BrokenCatalog, ResolveInParsesOnlyTheAskedFile) {
  std::ofstream(dir / "t4.json") << doc.dump(2);
  std::ofstream(dir / "zz-broken.json") << "{ not json";
  EXPECT_EQ(GpuCatalog::resolve_in(dir, "t4").id, "t4");  // the broken file is never read
  // An unknown id falls back to the whole directory, whose broken file is then reported.
  std::string e = error_of([&] { GpuCatalog::resolve_in(dir, "t5"); });
  EXPECT_NE(e.find("zz-broken.json"), std::string::npos) << e;
  // A malformed asked-for file is reported as the directory load would.
  doc.erase("mem_bandwidth_gbps");
  std::ofstream(dir / "t4.json") << doc.dump(2);
  e = error_of([&] { GpuCatalog::resolve_in(dir, "t4"); });
  EXPECT_NE(e.find("'mem_bandwidth_gbps'"), std::string::npos) << e;
}

TEST(GpuSpecPeaks, PrecisionPaths) {
  GpuSpec a100 = catalog().resolve("a100-sxm4-40gb");
  EXPECT_DOUBLE_EQ(a100.peak_flops(Precision::fp32), 19.5e12);
  EXPECT_DOUBLE_EQ(a100.peak_flops(Precision::tf32), 156e12);
  EXPECT_DOUBLE_EQ(a100.peak_flops(Precision::fp16), 312e12);
  EXPECT_DOUBLE_EQ(a100.peak_flops(Precision::bf16), 312e12);
  EXPECT_DOUBLE_EQ(a100.peak_flops(Precision::int8), 624e12);
  EXPECT_TRUE(a100.uses_tensor_cores(Precision::fp16));
  EXPECT_FALSE(a100.uses_tensor_cores(Precision::fp32));
  EXPECT_DOUBLE_EQ(a100.vector_flops(Precision::fp16), 78e12);

  // Consumer Pascal: packed FP16 at 1/64 -> runtimes compute in FP32.
  GpuSpec p = catalog().resolve("gtx-1080ti");
  EXPECT_FALSE(p.uses_tensor_cores(Precision::fp16));
  EXPECT_DOUBLE_EQ(p.peak_flops(Precision::fp16), p.fp32_tflops * 1e12);
  EXPECT_DOUBLE_EQ(p.peak_flops(Precision::bf16), p.fp32_tflops * 1e12);  // no BF16 before sm_80
  EXPECT_DOUBLE_EQ(p.peak_flops(Precision::tf32), p.fp32_tflops * 1e12);
  EXPECT_DOUBLE_EQ(p.peak_flops(Precision::int8), 45.4e12);  // dp4a
  // GP100: packed FP16 at 2x.
  GpuSpec p100 = catalog().resolve("p100-pcie-16gb");
  EXPECT_DOUBLE_EQ(p100.peak_flops(Precision::fp16), 18.7e12);
  EXPECT_DOUBLE_EQ(p100.peak_flops(Precision::int8), 9.3e12);  // no dp4a on sm_60
  // Volta: FP16 tensor cores, no TF32/BF16/INT8 tensor path.
  GpuSpec v = catalog().resolve("v100-sxm2-16gb");
  EXPECT_DOUBLE_EQ(v.peak_flops(Precision::fp16), 125e12);
  EXPECT_FALSE(v.uses_tensor_cores(Precision::tf32));
  EXPECT_FALSE(v.uses_tensor_cores(Precision::int8));
  EXPECT_DOUBLE_EQ(v.peak_flops(Precision::int8), 62.7e12);
  // Maxwell Jetson: no tensor cores, no dp4a.
  GpuSpec n = catalog().resolve("jetson-nano");
  EXPECT_DOUBLE_EQ(n.peak_flops(Precision::fp16), 0.472e12);
  EXPECT_DOUBLE_EQ(n.peak_flops(Precision::int8), 0.236e12);
}

TEST_F(BrokenCatalog, MissingField) {
  doc.erase("mem_bandwidth_gbps");
  std::string e = load_error();
  EXPECT_NE(e.find("t4.json"), std::string::npos) << e;
  EXPECT_NE(e.find("'mem_bandwidth_gbps'"), std::string::npos) << e;
}

TEST_F(BrokenCatalog, ZeroNegativeNullAndText) {
  doc["sm_count"] = 0;
  EXPECT_NE(load_error().find("'sm_count'"), std::string::npos);
  SetUp();
  doc["tdp_w"] = -70;
  EXPECT_NE(load_error().find("'tdp_w'"), std::string::npos);
  SetUp();
  doc["fp32_tflops"] = nullptr;
  EXPECT_NE(load_error().find("'fp32_tflops'"), std::string::npos);
  SetUp();
  doc["l2_cache_mb"] = "NaN";
  EXPECT_NE(load_error().find("'l2_cache_mb'"), std::string::npos);
  SetUp();
  doc["memory_gb"] = std::nan("");
  EXPECT_NE(load_error().find("'memory_gb'"), std::string::npos);
}

TEST_F(BrokenCatalog, UnknownKeyAndWrongId) {
  doc["mem_bandwith_gbps"] = 1;
  std::string e = load_error();
  EXPECT_NE(e.find("unknown field 'mem_bandwith_gbps'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'mem_bandwidth_gbps'"), std::string::npos) << e;
  SetUp();
  doc["id"] = "t5";
  EXPECT_NE(load_error().find("'id'"), std::string::npos);
}

TEST_F(BrokenCatalog, BadMigProfile) {
  std::ifstream in(k_gpus / "a30.json");
  doc = nlohmann::json::parse(in);
  doc["mig_profiles"][0]["sm_count"] = 500;
  std::ofstream(dir / "a30.json") << doc.dump(2);
  std::string e = error_of([&] { GpuCatalog c(dir); });
  EXPECT_NE(e.find("mig_profiles[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("'sm_count'"), std::string::npos) << e;
}

TEST_F(BrokenCatalog, BadMigComputeSlices) {
  std::ifstream in(k_gpus / "a30.json");
  doc = nlohmann::json::parse(in);
  doc["mig_profiles"][0]["compute_slices"] = 9;  // of 4
  std::ofstream(dir / "a30.json") << doc.dump(2);
  std::string e = error_of([&] { GpuCatalog c(dir); });
  EXPECT_NE(e.find("mig_profiles[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("'compute_slices'"), std::string::npos) << e;
}

TEST(GpuCatalog, ToJsonRoundTripsThroughSpecFiles) {
  GpuSpec t4 = catalog().resolve("t4");
  nlohmann::json j = to_json(t4);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["sm_count"], 40);
  EXPECT_FALSE(j.contains("parent_id"));
  nlohmann::json mig = to_json(catalog().resolve("a30:2g.12gb"));
  EXPECT_EQ(mig["parent_id"], "a30");
  EXPECT_EQ(mig["mig_profile"], "2g.12gb");
}

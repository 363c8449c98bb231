#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <string>

#include <nlohmann/json.hpp>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
namespace fs = std::filesystem;

namespace {

std::string error_of(const nlohmann::json& j) {
  try {
    spec_from_json(j, "my-gpu.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

nlohmann::json minimal() {
  return {{"sm_count", 100}, {"boost_clock_mhz", 1800}, {"fp32_lanes_per_sm", 128},
          {"mem_bandwidth_gbps", 2000}, {"memory_gb", 48}};
}

bool mentions(const std::vector<std::string>& list, const std::string& word) {
  for (const auto& s : list)
    if (s.find(word) != std::string::npos) return true;
  return false;
}

class SpecEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    // resolve_gpu and "base" use the shipped catalog.
    setenv("PERFPRED_DATA_DIR", (fs::path(PERFPRED_SOURCE_ROOT) / "data").c_str(), 1);
  }
};

}  // namespace

TEST(SpecFile, MinimalSpecDerivesAPlausibleDevice) {
  GpuSpec s = spec_from_json(minimal(), "dir/my-gpu.json");
  EXPECT_EQ(s.id, "spec:my-gpu");
  EXPECT_EQ(s.segment, "hypothetical");
  EXPECT_NEAR(s.fp32_tflops, 2.0 * 128 * 100 * 1800 / 1e6, 1e-9);  // 46.08
  EXPECT_EQ(s.architecture, "Ampere");
  EXPECT_GT(s.l2_cache_mb, 1);
  EXPECT_GT(s.shared_mem_per_sm_kb, 0);
  EXPECT_GT(s.tdp_w, 100);
  EXPECT_LT(s.tdp_w, 1500);
  EXPECT_GT(s.idle_power_w, 0);
  EXPECT_LT(s.idle_power_w, s.tdp_w);
  EXPECT_GT(s.host_link_gbps, 20);
  EXPECT_EQ(s.tensor_cores, 0);  // only on request
  EXPECT_FALSE(s.uses_tensor_cores(Precision::fp16));
  // Every derived field is listed.
  for (const char* f : {"fp16_tflops", "bf16_tflops", "fp64_tflops", "int8_tops", "l2_cache_mb",
                        "shared_mem_per_sm_kb", "registers_per_sm", "max_threads_per_sm", "tdp_w", "idle_power_w",
                        "host_link_gbps", "memory_type", "tensor_cores", "architecture"})
    EXPECT_TRUE(mentions(s.assumptions, f)) << f;
}

TEST(SpecFile, TensorCoresAndArchitecture) {
  auto j = minimal();
  j["tensor_cores"] = true;
  GpuSpec s = spec_from_json(j, "t.json");
  EXPECT_EQ(s.tensor_cores, 400);
  EXPECT_NEAR(s.tensor_fp16_tflops, 400 * 512.0 * 1800 / 1e6, 1e-6);
  EXPECT_TRUE(s.uses_tensor_cores(Precision::fp16));
  EXPECT_GT(s.peak_flops(Precision::fp16), s.peak_flops(Precision::fp32));

  auto h = minimal();
  h["architecture"] = "Hopper";
  GpuSpec hs = spec_from_json(h, "h.json");
  EXPECT_EQ(hs.compute_capability, "9.0");
  EXPECT_GT(hs.tensor_fp16_tflops, 0);
  EXPECT_DOUBLE_EQ(hs.shared_mem_per_sm_kb, 228);

  auto p = minimal();
  p["compute_capability"] = "6.1";
  GpuSpec ps = spec_from_json(p, "p.json");
  EXPECT_EQ(ps.architecture, "Pascal");
  EXPECT_EQ(ps.tensor_cores, 0);
  EXPECT_DOUBLE_EQ(ps.peak_flops(Precision::bf16), ps.fp32_tflops * 1e12);

  auto f = minimal();
  f.erase("fp32_lanes_per_sm");
  f["fp32_tflops"] = 46.08;
  EXPECT_EQ(spec_from_json(f, "f.json").fp32_lanes_per_sm, 128);

  auto u = minimal();
  u["unified_memory"] = true;
  GpuSpec us = spec_from_json(u, "u.json");
  EXPECT_EQ(us.host_link_gbps, 0);
  EXPECT_EQ(us.pcie_gen, 0);
}

TEST(SpecFile, EachErrorNamesTheField) {
  for (const char* k : {"sm_count", "boost_clock_mhz", "mem_bandwidth_gbps", "memory_gb"}) {
    auto j = minimal();
    j.erase(k);
    std::string e = error_of(j);
    EXPECT_NE(e.find("missing required field '" + std::string(k) + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("my-gpu.json"), std::string::npos) << e;
  }
  auto j = minimal();
  j.erase("fp32_lanes_per_sm");
  EXPECT_NE(error_of(j).find("'fp32_lanes_per_sm' (or 'fp32_tflops')"), std::string::npos);

  struct Bad {
    const char* key;
    nlohmann::json value;
  };
  for (const Bad& b : {Bad{"sm_count", 0}, Bad{"sm_count", -4}, Bad{"memory_gb", "NaN"}, Bad{"memory_gb", nullptr},
                       Bad{"mem_bandwidth_gbps", "fast"}, Bad{"boost_clock_mhz", 0.0}, Bad{"tdp_w", -1},
                       Bad{"sm_count", 10.5}, Bad{"memory_gb", std::nan("")}, Bad{"unified_memory", 1},
                       Bad{"tensor_fp16_tflops", -3}}) {
    auto k = minimal();
    k[b.key] = b.value;
    std::string e = error_of(k);
    EXPECT_NE(e.find("'" + std::string(b.key) + "'"), std::string::npos) << b.key << " = " << b.value << ": " << e;
  }
  auto u = minimal();
  u["mem_bandwith_gbps"] = 100;
  std::string e = error_of(u);
  EXPECT_NE(e.find("unknown field 'mem_bandwith_gbps'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'mem_bandwidth_gbps'"), std::string::npos) << e;
  auto d = minimal();
  d["parent_id"] = "a100-sxm4-40gb";
  EXPECT_NE(error_of(d).find("'parent_id'"), std::string::npos);
  auto a = minimal();
  a["architecture"] = "Blackwell";
  EXPECT_NE(error_of(a).find("'architecture'"), std::string::npos);
  auto c = minimal();
  c["compute_capability"] = "10.0";
  EXPECT_NE(error_of(c).find("'compute_capability'"), std::string::npos);
  EXPECT_NE(error_of(nlohmann::json::array()).find("object"), std::string::npos);
  auto idle = minimal();
  idle["tdp_w"] = 100;
  idle["idle_power_w"] = 200;
  EXPECT_NE(error_of(idle).find("'idle_power_w'"), std::string::npos);
}

TEST_F(SpecEnv, BasePlusOverride) {
  nlohmann::json j = {{"base", "a100-sxm4-40gb"}, {"memory_gb", 80}, {"mem_bandwidth_gbps", 2039}};
  GpuSpec s = spec_from_json(j, "bigger.json");
  GpuSpec b = GpuCatalog::instance().resolve("a100-sxm4-40gb");
  EXPECT_EQ(s.id, "spec:bigger");
  EXPECT_DOUBLE_EQ(s.memory_gb, 80);
  EXPECT_DOUBLE_EQ(s.mem_bandwidth_gbps, 2039);
  EXPECT_EQ(s.sm_count, b.sm_count);
  EXPECT_DOUBLE_EQ(s.tensor_fp16_tflops, b.tensor_fp16_tflops);
  EXPECT_TRUE(mentions(s.assumptions, "based on catalog device a100-sxm4-40gb"));

  // "A higher clock with fewer cores": rates follow SMs x clock.
  nlohmann::json k = {{"base", "a100-sxm4-40gb"}, {"sm_count", 54}, {"boost_clock_mhz", 2115}};
  GpuSpec t = spec_from_json(k, "k.json");
  EXPECT_NEAR(t.fp32_tflops, 19.5 * 54 / 108 * 2115 / 1410, 1e-9);
  EXPECT_EQ(t.tensor_cores, 216);
  EXPECT_NEAR(t.tensor_fp16_tflops, 312.0 * 0.5 * 1.5, 1e-9);
  EXPECT_TRUE(mentions(t.assumptions, "tdp_w and idle_power_w: kept"));

  nlohmann::json bad = {{"base", "a100-sxm4-4gb"}};
  std::string e = error_of(bad);
  EXPECT_NE(e.find("'base'"), std::string::npos) << e;
  EXPECT_NE(e.find("a100-sxm4-40gb"), std::string::npos) << e;
  nlohmann::json badval = {{"base", "t4"}, {"memory_gb", -1}};
  EXPECT_NE(error_of(badval).find("'memory_gb'"), std::string::npos);
}

TEST_F(SpecEnv, ResolveGpuPicksFileOrId) {
  EXPECT_EQ(resolve_gpu("t4").id, "t4");
  EXPECT_EQ(resolve_gpu("jetson-nano@5w").id, "jetson-nano@5w");
  fs::path p = fs::path(PERFPRED_SOURCE_ROOT) / "data" / "examples" / "hypothetical-gpu.json";
  GpuSpec s = resolve_gpu(p.string());
  EXPECT_EQ(s.id, "spec:hypothetical-gpu");
  EXPECT_GT(s.peak_flops(Precision::fp16), 0);
  try {
    resolve_gpu("no-such-dir/missing.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos);
  }
}

TEST_F(SpecEnv, SpecFileIdMustNotImpersonateACatalogDevice) {
  const fs::path dir = fs::temp_directory_path() / ("perfpred_spec_id_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto load = [&](const nlohmann::json& j) -> std::string {
    const fs::path p = dir / "mine.json";
    std::ofstream(p) << j.dump();
    try {
      return load_spec_file(p).id;
    } catch (const InputError& e) {
      return std::string("error: ") + e.what();
    }
  };
  for (const char* id : {"t4", "T4", " a100-sxm4-40gb ", "a100-sxm4-40gb:1g.5gb", "jetson-nano@5w", "t4:1g.5gb",
                         "jetson-nano@9w"}) {
    const std::string e = load({{"base", "a100-sxm4-40gb"}, {"id", id}});
    EXPECT_EQ(e.rfind("error: ", 0), 0u) << id << ": " << e;
    EXPECT_NE(e.find("mine.json"), std::string::npos) << e;
    EXPECT_NE(e.find("field 'id'"), std::string::npos) << e;
    EXPECT_NE(e.find("choose another id"), std::string::npos) << e;
  }
  EXPECT_NE(load({{"base", "t4"}, {"id", "a100-sxm4-40gb:1g.5gb"}}).find("MIG slice"), std::string::npos);
  // Ids that name no catalog device are fine, and a spec without "id" is "spec:<stem>".
  EXPECT_EQ(load({{"base", "a100-sxm4-40gb"}, {"id", "t4-custom"}}), "t4-custom");
  EXPECT_EQ(load({{"base", "a100-sxm4-40gb"}, {"id", "my:gpu"}}), "my:gpu");
  EXPECT_EQ(load({{"base", "a100-sxm4-40gb"}}), "spec:mine");
  EXPECT_EQ(load(minimal()), "spec:mine");
  EXPECT_EQ(resolve_gpu((dir / "mine.json").string()).id, "spec:mine");
  // A document that is not a spec file (a profiled device's sidecar entry) may carry its catalog id.
  EXPECT_EQ(spec_from_json({{"base", "t4"}, {"id", "t4"}}, "sidecar devices.t4").id, "t4");
  fs::remove_all(dir);
}

TEST(GenCatalog, RegeneratedFilesMatchTheCommittedOnes) {
  const fs::path ref = fs::path(PERFPRED_SHARED_DIR) / "reference" / "gpu-specs.json";
  if (!fs::exists(ref)) GTEST_SKIP() << "../shared/reference is absent";
  const std::string cmd = "/usr/bin/python3 " + (fs::path(PERFPRED_SOURCE_ROOT) / "tools" / "gen_catalog.py").string() +
                          " --check --reference " + ref.string() + " >/dev/null";
  int rc = std::system(cmd.c_str());
  ASSERT_NE(rc, -1);
  EXPECT_EQ(WEXITSTATUS(rc), 0) << "run tools/gen_catalog.py: data/gpus differs from the generator's output";
}

TEST(SpecFile, TdpHeuristicNearPublishedBoards) {
  struct Board {
    const char* arch;
    const char* cc;
    int sms, lanes;
    double clock, bw, tdp;
  };
  // Published: V100 SXM2 300 W, RTX 3090 350 W, RTX 4090 450 W, H100 SXM 700 W, GTX 1080 Ti 250 W.
  for (const Board& b : {Board{"Volta", "7.0", 80, 64, 1530, 900, 300}, Board{"Ampere", "8.6", 82, 128, 1695, 936, 350},
                         Board{"Ada Lovelace", "8.9", 128, 128, 2520, 1008, 450},
                         Board{"Hopper", "9.0", 132, 128, 1980, 3350, 700},
                         Board{"Pascal", "6.1", 28, 128, 1582, 484, 250}}) {
    nlohmann::json j = {{"compute_capability", b.cc}, {"sm_count", b.sms}, {"fp32_lanes_per_sm", b.lanes},
                        {"boost_clock_mhz", b.clock}, {"mem_bandwidth_gbps", b.bw}, {"memory_gb", 16}};
    GpuSpec s = spec_from_json(j, "b.json");
    EXPECT_NEAR(s.tdp_w, b.tdp, 0.11 * b.tdp) << b.arch;
  }
}

// Fuzz finding: fp32_tflops = 5e-324 made `report` build a plot axis of 300 decades (2.1 GB, 18 s).
// Spec numbers stay within [1e-6, 1e9]; the error names the field.
TEST(SpecFile, ValuesOutsideAnyDeviceAreRefused) {
  auto tiny = minimal();
  tiny["fp32_tflops"] = 5e-324;
  EXPECT_NE(error_of(tiny).find("field 'fp32_tflops' is 4.94066e-324, below"), std::string::npos) << error_of(tiny);
  auto huge = minimal();
  huge["memory_gb"] = 1e17;
  EXPECT_NE(error_of(huge).find("field 'memory_gb' is 1e+17, over the limit"), std::string::npos) << error_of(huge);
  auto zero = minimal();
  zero["fp64_tflops"] = 0;  // a missing path stays allowed
  EXPECT_EQ(error_of(zero), "(no error)");
}

// DRAM ECC: the catalog sets it on datacenter boards only; a spec file keeps its base's, says when it left a GDDR
// board's off, and takes it from the file.
TEST_F(SpecEnv, DramEccComesFromTheCatalogTheBaseOrTheFile) {
  EXPECT_TRUE(resolve_gpu("t4").dram_ecc);
  EXPECT_TRUE(resolve_gpu("a100-sxm4-40gb").dram_ecc);
  EXPECT_FALSE(resolve_gpu("rtx-2080ti").dram_ecc);
  EXPECT_FALSE(resolve_gpu("jetson-agx-orin-64gb").dram_ecc);
  EXPECT_TRUE(resolve_gpu("a100-sxm4-40gb:1g.5gb").dram_ecc);  // a MIG slice is its board's
  EXPECT_TRUE(spec_from_json({{"base", "t4"}, {"sm_count", 20}}, "t.json").dram_ecc);
  EXPECT_FALSE(spec_from_json({{"base", "t4"}, {"dram_ecc", false}}, "t.json").dram_ecc);

  nlohmann::json gddr = minimal();
  gddr["memory_type"] = "GDDR6";
  const GpuSpec off = spec_from_json(gddr, "g.json");
  EXPECT_FALSE(off.dram_ecc);
  EXPECT_TRUE(mentions(off.assumptions, "dram_ecc"));
  gddr["dram_ecc"] = true;
  const GpuSpec on = spec_from_json(gddr, "g.json");
  EXPECT_TRUE(on.dram_ecc);
  EXPECT_FALSE(mentions(on.assumptions, "dram_ecc"));
  EXPECT_NE(error_of({{"base", "t4"}, {"dram_ecc", "yes"}}).find("'dram_ecc'"), std::string::npos);
}

// The NVML MIG reader against a fake libnvidia-ml (tests/unit/profile/fake_nvml/): an A100-40GB
// with MIG enabled (3g.20gb and 4g.20gb instances), MIG disabled, a driver naming MIG devices like
// their GPU, and a driver from before MIG. No GPU is needed; nothing here has run on a real one.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/profile/nvml_mig.hpp"

using namespace perfpred;
using namespace perfpred::mig;

namespace {

const GpuCatalog& catalog() {
  static GpuCatalog c(std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data/gpus");
  return c;
}

constexpr const char* k_uuid_3g = "MIG-4f1a2b3c-0d9e-5a6b-8c7d-112233445566";
constexpr const char* k_uuid_4g = "MIG-9e8d7c6b-5a4f-5e3d-9c2b-aabbccddeeff";
constexpr const char* k_pci = "0000:07:00.0";  // as CUDA writes it

/// Sets FAKE_NVML_SCENARIO for one test.
struct Scenario {
  explicit Scenario(const char* s) { ::setenv("FAKE_NVML_SCENARIO", s, 1); }
  ~Scenario() { ::unsetenv("FAKE_NVML_SCENARIO"); }
};

bool mentions(const std::vector<std::string>& v, const std::string& what) {
  for (const auto& s : v)
    if (s.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(NvmlMig, LibraryPathOverride) {
  ::unsetenv(k_nvml_library_env);
  EXPECT_EQ(nvml_library_path(), "libnvidia-ml.so.1");
  ::setenv(k_nvml_library_env, "/opt/fake/libnvidia-ml.so.1", 1);
  EXPECT_EQ(nvml_library_path(), "/opt/fake/libnvidia-ml.so.1");
  EXPECT_EQ(nvml_library_path("/explicit.so"), "/explicit.so");
  ::unsetenv(k_nvml_library_env);
}

TEST(NvmlMig, FirstVisibleMigUuid) {
  EXPECT_EQ(first_visible_mig_uuid("0,1"), "");
  EXPECT_EQ(first_visible_mig_uuid(std::string(" ") + k_uuid_3g + "," + k_uuid_4g), k_uuid_3g);
  EXPECT_EQ(first_visible_mig_uuid(""), "");
}

TEST(NvmlMig, ProfileFromAttributesAsNvidiaToolsName) {
  constexpr uint64_t a100_40 = 42949672960ull, h100_80 = 85520809984ull;
  EXPECT_EQ(profile_from_attributes(3, 3, 19968, a100_40), "3g.20gb");
  EXPECT_EQ(profile_from_attributes(1, 1, 4864, a100_40), "1g.5gb");
  EXPECT_EQ(profile_from_attributes(2, 2, 9856, a100_40), "2g.10gb");
  EXPECT_EQ(profile_from_attributes(7, 7, 40192, a100_40), "7g.40gb");
  EXPECT_EQ(profile_from_attributes(3, 1, 19968, a100_40), "1c.3g.20gb");
  EXPECT_EQ(profile_from_attributes(3, 3, 40192, h100_80), "3g.40gb");
  EXPECT_EQ(profile_from_attributes(1, 1, 9984, h100_80), "1g.10gb");
  EXPECT_EQ(profile_from_attributes(0, 0, 19968, a100_40), "");
}

TEST(NvmlMig, MigEnabledReadsEveryInstanceAndUnloads) {
  Scenario s("a100-mig");
  // Held open here so the fake stays resident and its nvmlInit count survives the reader's dlclose.
  void* h = ::dlopen(PERFPRED_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr);
  auto open_inits = reinterpret_cast<int (*)()>(::dlsym(h, "fake_nvml_open_inits"));
  ASSERT_NE(open_inits, nullptr);
  ASSERT_EQ(open_inits(), 0);
  auto r = read_nvml_mig(PERFPRED_FAKE_NVML, k_pci);
  ASSERT_TRUE(r.loaded) << r.why;
  EXPECT_EQ(r.answers["selected_by"], "pci-bus-id");
  EXPECT_EQ(r.answers["name"], "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(r.answers["memory_bytes"], 42949672960ll);
  EXPECT_EQ(r.answers["mig_mode"], true);
  ASSERT_EQ(r.answers["mig_devices"].size(), 2u);  // slots 1, 3..6 are empty
  const auto& d = r.answers["mig_devices"][0];
  EXPECT_EQ(d["uuid"], k_uuid_3g);
  EXPECT_EQ(d["profile_name"], "3g.20gb");
  EXPECT_EQ(d["sm_count"], 42);
  EXPECT_EQ(d["memory_mb"], 19968);
  EXPECT_EQ(d["gpu_instance_id"], 1);
  EXPECT_EQ(d["compute_instance_id"], 0);
  EXPECT_EQ(d["gpu_instance_slice_count"], 3);
  EXPECT_EQ(r.answers["mig_devices"][1]["profile_name"], "4g.20gb");
  ASSERT_TRUE(r.whole_gpu_power_w);
  EXPECT_DOUBLE_EQ(*r.whole_gpu_power_w, 187.5);
  EXPECT_TRUE(r.unknown.empty()) << r.unknown.front();
  // nvmlShutdown was called for the nvmlInit: the fake counts them.
  EXPECT_EQ(open_inits(), 0);
  ::dlclose(h);
}

TEST(NvmlMig, SliceFromMigUuidKeysTheCatalogSliceAndKeepsPowerInMetadata) {
  Scenario s("a100-mig");
  auto r = read_nvml_mig(PERFPRED_FAKE_NVML, k_pci, k_uuid_3g);
  ASSERT_TRUE(r.loaded) << r.why;
  EXPECT_EQ(r.answers["selected_by"], "mig-uuid");
  // CUDA inside the instance: its name, SMs and memory are the instance's.
  CudaView cuda{"NVIDIA A100-SXM4-40GB MIG 3g.20gb", 42, 20937965568, k_uuid_3g};
  auto m = describe_mig(&r, cuda, &catalog());
  ASSERT_TRUE(m.instance.in_mig);
  EXPECT_EQ(m.instance.catalog_id, "a100-sxm4-40gb:3g.20gb");
  EXPECT_EQ(m.instance.profile, "3g.20gb");
  EXPECT_EQ(m.instance.sm_count, 42);
  EXPECT_EQ(m.instance.memory_bytes, 20937965568);
  EXPECT_EQ(m.instance.uuid, k_uuid_3g);
  const auto& j = m.metadata;
  EXPECT_EQ(j["catalog_id"], "a100-sxm4-40gb:3g.20gb");
  EXPECT_EQ(j["profile"], "3g.20gb");
  EXPECT_EQ(j["sm_count"], 42);
  // The whole GPU's power is metadata under its caveat, never the slice's figure.
  EXPECT_EQ(j["whole_gpu_nvml"]["power_w"], 187.5);
  EXPECT_NE(j["whole_gpu_nvml"]["caveat"].get<std::string>().find("whole GPU"), std::string::npos);
  EXPECT_FALSE(j.contains("power_w"));
  EXPECT_FALSE(j.contains("energy_mj"));
  EXPECT_EQ(j["nvml"]["answers"]["mig_mode"], true);
  EXPECT_EQ(j["nvml"]["library"], PERFPRED_FAKE_NVML);
}

TEST(NvmlMig, UuidAloneGivesProfileSmsAndMemoryFromNvml) {
  Scenario s("a100-mig");
  auto r = read_nvml_mig(PERFPRED_FAKE_NVML, "", k_uuid_4g);
  ASSERT_TRUE(r.loaded);
  auto m = describe_mig(&r, CudaView{"", 0, 0, k_uuid_4g}, &catalog());
  ASSERT_TRUE(m.instance.in_mig);
  EXPECT_EQ(m.instance.profile, "4g.20gb");
  EXPECT_EQ(m.instance.sm_count, 56);
  EXPECT_EQ(m.instance.memory_bytes, int64_t{19968} * 1024 * 1024);
  EXPECT_EQ(m.instance.catalog_id, "a100-sxm4-40gb:4g.20gb");
}

TEST(NvmlMig, ProfileFromAttributesWhenTheDriverNamesMigDevicesLikeTheGpu) {
  Scenario s("a100-mig-plain");
  auto r = read_nvml_mig(PERFPRED_FAKE_NVML, k_pci, k_uuid_3g);
  ASSERT_TRUE(r.loaded);
  EXPECT_EQ(r.answers["mig_devices"][0]["name"], "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(r.answers["mig_devices"][0]["profile_name"], "3g.20gb");
  auto m = describe_mig(&r, CudaView{"NVIDIA A100-SXM4-40GB", 42, 20937965568, k_uuid_3g}, &catalog());
  ASSERT_TRUE(m.instance.in_mig);
  EXPECT_EQ(m.instance.catalog_id, "a100-sxm4-40gb:3g.20gb");
}

TEST(NvmlMig, MigDisabledIsNotASlice) {
  Scenario s("a100-no-mig");
  auto r = read_nvml_mig(PERFPRED_FAKE_NVML, k_pci);
  ASSERT_TRUE(r.loaded);
  EXPECT_EQ(r.answers["mig_mode"], false);
  EXPECT_TRUE(r.answers["mig_devices"].empty());
  auto m = describe_mig(&r, CudaView{"NVIDIA A100-SXM4-40GB", 108, 42505273344, "0"}, &catalog());
  EXPECT_FALSE(m.instance.in_mig);
  EXPECT_EQ(m.instance.catalog_id, "");
  EXPECT_EQ(m.metadata["in_mig"], false);
  EXPECT_FALSE(m.metadata.contains("whole_gpu_nvml"));
  EXPECT_EQ(m.metadata["nvml"]["answers"]["mig_mode"], false);
}

TEST(NvmlMig, DriverWithoutMigSymbolsIsUnknownNotAFailure) {
  auto r = read_nvml_mig(PERFPRED_FAKE_NVML_NOMIG, k_pci, k_uuid_3g);
  ASSERT_TRUE(r.loaded) << r.why;
  EXPECT_TRUE(r.answers["mig_mode"].is_null());
  EXPECT_EQ(r.answers["selected_by"], "pci-bus-id");
  EXPECT_TRUE(mentions(r.unknown, "nvmlDeviceGetMigMode")) << nlohmann::json(r.unknown).dump();
  EXPECT_TRUE(mentions(r.unknown, "nvmlDeviceGetHandleByUUID"));
  EXPECT_TRUE(r.answers["mig_devices"].empty());
  // CUDA's device name still identifies the slice.
  auto m = describe_mig(&r, CudaView{"NVIDIA A100-SXM4-40GB MIG 3g.20gb", 42, 20937965568, k_uuid_3g}, &catalog());
  ASSERT_TRUE(m.instance.in_mig);
  EXPECT_EQ(m.instance.catalog_id, "a100-sxm4-40gb:3g.20gb");
  EXPECT_EQ(m.instance.sm_count, 42);
  EXPECT_FALSE(m.metadata["nvml"]["unknown"].empty());
  EXPECT_EQ(m.metadata["whole_gpu_nvml"]["power_w"], 187.5);
}

TEST(NvmlMig, MissingLibraryIsRecordedAndCudaStillDecides) {
  auto r = read_nvml_mig("/nonexistent/libnvidia-ml.so.1", k_pci);
  EXPECT_FALSE(r.loaded);
  EXPECT_NE(r.why.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
  auto m = describe_mig(&r, CudaView{"NVIDIA A100-SXM4-40GB MIG 3g.20gb", 42, 20937965568, ""}, &catalog());
  ASSERT_TRUE(m.instance.in_mig);
  EXPECT_EQ(m.instance.how, "cuda-device-name");
  EXPECT_EQ(m.instance.catalog_id, "a100-sxm4-40gb:3g.20gb");
  EXPECT_EQ(m.metadata["nvml"]["loaded"], false);
  EXPECT_FALSE(m.metadata["whole_gpu_nvml"].contains("power_w"));
}

TEST(NvmlMig, UnknownPciBusIdFallsBackToIndexZero) {
  Scenario s("a100-mig");
  auto r = read_nvml_mig(PERFPRED_FAKE_NVML, "0000:99:00.0");
  ASSERT_TRUE(r.loaded);
  EXPECT_EQ(r.answers["selected_by"], "index-0");
  EXPECT_TRUE(mentions(r.unknown, "0000:99:00.0"));
}

TEST(NvmlMig, RefusedWholeGpuMemoryComesFromTheAttributes) {
  Scenario s("a100-mig-unprivileged");
  auto r = read_nvml_mig(PERFPRED_FAKE_NVML, k_pci);
  ASSERT_TRUE(r.loaded);
  EXPECT_TRUE(mentions(r.unknown, "nvmlDeviceGetMemoryInfo"));
  EXPECT_EQ(r.answers["memory_bytes"], 42949672960ll);
  EXPECT_EQ(r.answers["memory_from"], "nvmlDeviceGetAttributes_v2");
  ASSERT_EQ(r.answers["mig_devices"].size(), 2u);
  EXPECT_EQ(r.answers["mig_devices"][0]["profile_name"], "3g.20gb");
  auto m = describe_mig(&r, CudaView{"", 0, 0, k_uuid_3g}, &catalog());
  EXPECT_EQ(m.instance.catalog_id, "a100-sxm4-40gb:3g.20gb");
  EXPECT_EQ(m.instance.sm_count, 42);
}

// MIG detection on recorded NVML answers (tests/data/mig/*.json, the fake NVML) and CUDA's view.
#include <gtest/gtest.h>

#include <fstream>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/profile/mig.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::mig;

namespace {

nlohmann::json answers(const std::string& name) {
  std::ifstream in(std::string(PERFPRED_SOURCE_ROOT) + "/tests/data/mig/" + name);
  return nlohmann::json::parse(in);
}

const GpuCatalog& catalog() {
  static GpuCatalog c(std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data/gpus");
  return c;
}

}  // namespace

TEST(Mig, CudaVisibleDevicesUuidPicksTheInstance) {
  RecordedMigQuery nvml(answers("a100-40gb-two-instances.json"));
  CudaView cuda{"NVIDIA A100-SXM4-40GB MIG 4g.20gb", 56, 20937965568, "MIG-9e8d7c6b-5a4f-5e3d-9c2b-aabbccddeeff"};
  auto m = detect_mig(&nvml, cuda);
  ASSERT_TRUE(m.in_mig);
  EXPECT_EQ(m.how, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(m.profile, "4g.20gb");
  EXPECT_EQ(m.sm_count, 56);
  EXPECT_EQ(m.memory_bytes, 20937965568);  // CUDA's figure wins over the profile table's
  EXPECT_EQ(catalog_slice_id(m, catalog(), nvml.parent_memory_bytes()), "a100-sxm4-40gb:4g.20gb");
}

TEST(Mig, UuidOnlyWithoutCudaNameStillGivesProfileFromNvml) {
  RecordedMigQuery nvml(answers("a100-40gb-two-instances.json"));
  CudaView cuda{"", 0, 0, "MIG-4f1a2b3c-0d9e-5a6b-8c7d-112233445566"};
  auto m = detect_mig(&nvml, cuda);
  ASSERT_TRUE(m.in_mig);
  EXPECT_EQ(m.profile, "3g.20gb");
  EXPECT_EQ(m.sm_count, 42);
  EXPECT_EQ(m.memory_bytes, int64_t{19968} * 1024 * 1024);
  EXPECT_EQ(m.parent_name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(catalog_slice_id(m, catalog(), nvml.parent_memory_bytes()), "a100-sxm4-40gb:3g.20gb");
}

TEST(Mig, SingleVisibleInstanceThroughNvml) {
  RecordedMigQuery nvml(answers("a100-80gb-one-instance.json"));
  CudaView cuda{"NVIDIA A100-SXM4-80GB MIG 1g.10gb", 14, 10334765056, ""};
  auto m = detect_mig(&nvml, cuda);
  ASSERT_TRUE(m.in_mig);
  EXPECT_EQ(m.how, "nvml");
  EXPECT_EQ(m.uuid, "MIG-0a1b2c3d-4e5f-5a6b-8c7d-0e1f2a3b4c5d");
  // 1g.10gb exists on the 40 GB A100s too: the parent name and whole-GPU memory pick the 80 GB one.
  EXPECT_EQ(catalog_slice_id(m, catalog(), nvml.parent_memory_bytes()), "a100-sxm4-80gb:1g.10gb");
}

TEST(Mig, CudaNameAloneWithoutNvml) {
  CudaView cuda{"NVIDIA A100-PCIE-40GB MIG 2g.10gb", 28, 10334765056, ""};
  auto m = detect_mig(nullptr, cuda);
  ASSERT_TRUE(m.in_mig);
  EXPECT_EQ(m.how, "cuda-device-name");
  EXPECT_EQ(m.parent_name, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(catalog_slice_id(m, catalog()), "a100-pcie-40gb:2g.10gb");
}

TEST(Mig, ComputeInstanceIsNotKeyedAsTheGpuInstance) {
  CudaView cuda{"NVIDIA A100-SXM4-40GB MIG 1c.3g.20gb", 14, 20937965568, ""};
  auto m = detect_mig(nullptr, cuda);
  ASSERT_TRUE(m.in_mig);
  EXPECT_EQ(m.gpu_instance_profile, "3g.20gb");
  EXPECT_EQ(catalog_slice_id(m, catalog()), "");
  EXPECT_FALSE(m.notes.empty());
}

TEST(Mig, NotMig) {
  RecordedMigQuery nvml(answers("a100-40gb-no-mig.json"));
  CudaView cuda{"NVIDIA A100-SXM4-40GB", 108, 42505273344, "0"};
  auto m = detect_mig(&nvml, cuda);
  EXPECT_FALSE(m.in_mig);
  EXPECT_EQ(catalog_slice_id(m, catalog()), "");
  EXPECT_EQ(mig_metadata(m), nlohmann::json({{"in_mig", false}}));
}

TEST(Mig, UnknownParentIsRecordedBySpec) {
  CudaView cuda{"NVIDIA Future-GPU MIG 3g.20gb", 40, 20937965568, ""};
  auto m = detect_mig(nullptr, cuda);
  ASSERT_TRUE(m.in_mig);
  EXPECT_EQ(catalog_slice_id(m, catalog()), "");
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes.back().find("Future-GPU"), std::string::npos);
}

TEST(Mig, WholeGpuPowerStaysInMetadataWithCaveat) {
  RecordedMigQuery nvml(answers("a100-40gb-two-instances.json"));
  auto m = detect_mig(&nvml, {"NVIDIA A100-SXM4-40GB MIG 3g.20gb", 42, 0, "MIG-4f1a2b3c-0d9e-5a6b-8c7d-112233445566"});
  catalog_slice_id(m, catalog(), nvml.parent_memory_bytes());
  auto j = mig_metadata(m, 187.5, 1234.0);
  EXPECT_EQ(j["catalog_id"], "a100-sxm4-40gb:3g.20gb");
  EXPECT_EQ(j["whole_gpu_nvml"]["power_w"], 187.5);
  EXPECT_NE(j["whole_gpu_nvml"]["caveat"].get<std::string>().find("whole GPU"), std::string::npos);
  EXPECT_FALSE(j.contains("power_w"));
}

TEST(Mig, MalformedAnswersNameTheField) {
  nlohmann::json bad = {{"mig_mode", true}, {"mig_devices", {{{"uuid", "MIG-x"}, {"sm_count", 14}, {"memory_mb", 1}}}}};
  try {
    RecordedMigQuery q(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mig_devices[0]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("profile_name"), std::string::npos) << e.what();
  }
}

#include <gtest/gtest.h>

#include "advise_test_util.hpp"
#include "perfpred/advise/mig.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::advise;

namespace {

GpuSpec slice_named(const std::string& profile, double parent_gb) {
  GpuSpec s;
  s.id = "x:" + profile;
  s.mig_profile = profile;
  s.memory_gb = parent_gb / 8;
  return s;
}

GpuSpec parent(double gb) {
  GpuSpec p;
  p.id = "x";
  p.memory_gb = gb;
  return p;
}

}  // namespace

TEST(MigGeometry, A100ProfilesFromNames) {
  auto g = [](const std::string& prof) { return mig_geometry(slice_named(prof, 40), parent(40), 7); };
  EXPECT_EQ(g("1g.5gb").memory_slices, 1);
  EXPECT_EQ(g("1g.5gb").max_instances, 7);  // 8 memory slots, but 7 compute slices
  EXPECT_EQ(g("1g.10gb").memory_slices, 2);
  EXPECT_EQ(g("1g.10gb").max_instances, 4);
  EXPECT_EQ(g("2g.10gb").max_instances, 3);
  EXPECT_EQ(g("3g.20gb").memory_slices, 4);
  EXPECT_EQ(g("3g.20gb").max_instances, 2);
  EXPECT_EQ(g("4g.20gb").max_instances, 1);
  EXPECT_EQ(g("7g.40gb").memory_slices, 8);
  EXPECT_EQ(g("7g.40gb").max_instances, 1);
  EXPECT_TRUE(g("1g.5gb+me").media_extensions);
  EXPECT_EQ(g("1g.5gb+me").max_instances, 1);
}

TEST(MigGeometry, A30AndH200) {
  auto a30 = [](const std::string& prof) { return mig_geometry(slice_named(prof, 24), parent(24), 4); };
  EXPECT_EQ(a30("1g.6gb").max_instances, 4);
  EXPECT_EQ(a30("2g.12gb").max_instances, 2);
  EXPECT_EQ(a30("4g.24gb").max_instances, 1);
  auto h200 = [](const std::string& prof) { return mig_geometry(slice_named(prof, 141), parent(141), 7); };
  EXPECT_EQ(h200("1g.18gb").memory_slices, 1);
  EXPECT_EQ(h200("1g.35gb").memory_slices, 2);
  EXPECT_EQ(h200("3g.71gb").memory_slices, 4);
  EXPECT_EQ(h200("7g.141gb").memory_slices, 8);
  EXPECT_THROW(mig_geometry(slice_named("big", 40), parent(40), 7), InputError);
}

TEST(LargestBatch, FindsTheBoundary) {
  for (int64_t edge : {1, 2, 3, 37, 64, 65, 1000}) {
    int calls = 0;
    auto r = largest_batch([&](int64_t b) { ++calls; return b <= edge; }, 65536);
    ASSERT_TRUE(r) << edge;
    EXPECT_EQ(*r, edge);
    EXPECT_LT(calls, 40);
  }
  EXPECT_FALSE(largest_batch([](int64_t) { return false; }, 100));
  EXPECT_EQ(*largest_batch([](int64_t) { return true; }, 100), 100);
  EXPECT_EQ(*largest_batch([](int64_t b) { return b <= 99; }, 100), 99);
}

class MigAdvise : public ::testing::Test {
 protected:
  ModelAtBatch model = test::text_model(test::cnn_text(64, 64));
  PredictOptions opts;
};

TEST_F(MigAdvise, EveryProfileIncluding4gAndLargeMemory) {
  auto adv = advise_mig(model, "a100-sxm4-40gb", opts, {});
  std::vector<std::string> names;
  for (const auto& p : adv.profiles) names.push_back(p.slice.mig_profile);
  EXPECT_NE(std::find(names.begin(), names.end(), "4g.20gb"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "7g.40gb"), names.end());
  // Smallest first.
  for (size_t i = 1; i < adv.profiles.size(); ++i)
    EXPECT_LE(adv.profiles[i - 1].geometry.compute_slices, adv.profiles[i].geometry.compute_slices);
  // A tiny model fits everywhere: the smallest profile is recommended.
  ASSERT_TRUE(adv.recommended);
  EXPECT_EQ(*adv.recommended, 0u);
  EXPECT_EQ(adv.profiles[0].slice.mig_profile, "1g.5gb");
  EXPECT_NE(adv.explanation.find("1g.5gb"), std::string::npos);
  // Above 40 GB: the H200's large profiles are predicted, not "undefined".
  auto h = advise_mig(model, "h200-sxm-141gb", opts, {});
  bool big = false;
  for (const auto& p : h.profiles) big |= p.usable_memory_bytes > 40e9 && p.prediction.latency_ms > 0;
  EXPECT_TRUE(big);
}

TEST_F(MigAdvise, SloPicksTheSmallestProfileThatMeetsIt) {
  auto free = advise_mig(model, "a100-sxm4-40gb", opts, {});
  // Latency must fall as profiles grow for this test to mean something.
  const auto& small = free.profiles.front();
  const auto& large = free.profiles.back();
  ASSERT_GT(small.prediction.latency_ms, large.prediction.latency_ms);
  MigOptions mo;
  mo.slo_ms = (small.prediction.latency_ms + large.prediction.latency_ms) / 2;
  auto adv = advise_mig(model, "a100-sxm4-40gb", opts, mo);
  ASSERT_TRUE(adv.recommended);
  const auto& rec = adv.profiles[*adv.recommended];
  EXPECT_LE(rec.prediction.latency_ms, *mo.slo_ms);
  EXPECT_GT(*adv.recommended, 0u);  // the very smallest profile is too slow
  for (size_t i = 0; i < *adv.recommended; ++i) EXPECT_FALSE(adv.profiles[i].eligible()) << adv.profiles[i].slice.mig_profile;
  EXPECT_NE(adv.explanation.find("SLO"), std::string::npos);
}

TEST_F(MigAdvise, NothingMeetsAnImpossibleSlo) {
  MigOptions mo;
  mo.slo_ms = 1e-6;
  auto adv = advise_mig(model, "a100-sxm4-40gb", opts, mo);
  EXPECT_FALSE(adv.recommended);
  EXPECT_NE(adv.explanation.find("No MIG profile"), std::string::npos);
  for (const auto& p : adv.profiles) EXPECT_FALSE(p.meets_slo);
}

TEST_F(MigAdvise, MemoryHeadroomRejectsTightFits) {
  auto base = advise_mig(model, "a100-sxm4-40gb", opts, {});
  const auto& one = base.profiles.front();
  EXPECT_NEAR(one.memory_limit_bytes, one.usable_memory_bytes * 0.9, 1);
  // Headroom so large that the smallest slice's limit is half the model's peak.
  MigOptions mo;
  mo.memory_headroom = 1 - one.prediction.peak_memory_bytes / (2 * one.usable_memory_bytes);
  auto adv = advise_mig(model, "a100-sxm4-40gb", opts, mo);
  EXPECT_FALSE(adv.profiles.front().fits_memory);
  EXPECT_NE(adv.profiles.front().reason.find("headroom"), std::string::npos) << adv.profiles.front().reason;
  ASSERT_TRUE(adv.recommended);
  EXPECT_GT(*adv.recommended, 0u);
  EXPECT_TRUE(adv.profiles[*adv.recommended].fits_memory);
}

TEST_F(MigAdvise, MaxBatchIsTheBoundary) {
  MigOptions mo;
  mo.max_batch = true;
  mo.max_batch_limit = 4096;
  auto free = advise_mig(model, "a30", opts, {});
  mo.slo_ms = free.profiles.front().prediction.latency_ms * 8;
  auto adv = advise_mig(model, "a30", opts, mo);
  for (const auto& p : adv.profiles) {
    ASSERT_TRUE(p.max_batch) << p.slice.mig_profile;
    ASSERT_TRUE(p.max_batch_prediction);
    EXPECT_LE(p.max_batch_prediction->latency_ms, *mo.slo_ms);
    EXPECT_LE(p.max_batch_prediction->peak_memory_bytes, p.memory_limit_bytes);
    if (*p.max_batch < mo.max_batch_limit) {
      PredictOptions o2 = opts;
      o2.batch = *p.max_batch + 1;
      auto m = model(o2.batch);
      Prediction next = predict(m->graph, m->cost, p.slice, o2);
      EXPECT_TRUE(next.latency_ms > *mo.slo_ms || next.peak_memory_bytes > p.memory_limit_bytes) << p.slice.mig_profile;
    }
  }
  // Bigger slices sustain at least the batch of smaller ones under the same SLO.
  EXPECT_GE(*adv.profiles.back().max_batch, *adv.profiles.front().max_batch);
}

TEST_F(MigAdvise, BadInput) {
  MigOptions mo;
  mo.slo_ms = 0;
  EXPECT_THROW(advise_mig(model, "a100-sxm4-40gb", opts, mo), InputError);
  mo.slo_ms = -3;
  EXPECT_THROW(advise_mig(model, "a100-sxm4-40gb", opts, mo), InputError);
  EXPECT_THROW(advise_mig(model, "no-such-gpu", opts, {}), InputError);
  try {
    advise_mig(model, "t4", opts, {});
    FAIL() << "t4 has no MIG";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a100-sxm4-40gb"), std::string::npos) << e.what();
  }
  MigOptions bad_headroom;
  bad_headroom.memory_headroom = 1.0;
  EXPECT_THROW(advise_mig(model, "a30", opts, bad_headroom), InputError);
}

TEST(MigThroughput, InstancesShareTheHostLinkAtFullLoad) {
  // One instance: 10 ms of work per batch of 32, 4 ms to copy its input in, 1 ms back. Back to back with the
  // copies overlapping the work it runs a batch every 10 ms; seven such instances share one host link, whose
  // 7 x 4 ms per period then sets the pace.
  Prediction p;
  p.latency_ms = 15;
  p.h2d_ms = 4;
  p.d2h_ms = 1;
  EXPECT_DOUBLE_EQ(pipelined_period_ms(p), 10);
  EXPECT_DOUBLE_EQ(instances_throughput(p, 32, 1), 32 * 1e3 / 10);
  EXPECT_DOUBLE_EQ(instances_throughput(p, 32, 2), 2 * 32 * 1e3 / 10);
  EXPECT_DOUBLE_EQ(instances_throughput(p, 32, 7), 32 * 1e3 / 4);  // the link's limit, whatever the instances
  // No copies (unified memory, --no-copies): the latency is the period.
  Prediction q;
  q.latency_ms = 8;
  EXPECT_DOUBLE_EQ(instances_throughput(q, 16, 3), 3 * 16 * 1e3 / 8);
}

TEST_F(MigAdvise, SevenSmallSlicesAtFullLoadDoNotOutrunTheWholeGpusLink) {
  // A copy-heavy model (224 px FP32 input, a small CNN) at batch 64: every instance waits on the host link as
  // much as on its SMs. Counting each instance's copies as if it had the link to itself made seven 1g.5gb
  // slices deliver several times the whole GPU's throughput; sharing the link, they deliver at most what the
  // whole GPU does with its copies overlapped.
  ModelAtBatch heavy = test::text_model(test::cnn_text(16, 224));
  PredictOptions o;
  o.batch = 64;
  auto adv = advise_mig(heavy, "a100-sxm4-40gb", o, {});
  ASSERT_GT(adv.whole_gpu.h2d_ms, 0);
  EXPECT_GT(adv.whole_gpu.pipelined_throughput_samples_per_s, adv.whole_gpu.throughput_samples_per_s);
  for (const auto& r : adv.profiles) {
    EXPECT_LE(r.gpu_throughput_samples_per_s, adv.whole_gpu.pipelined_throughput_samples_per_s * (1 + 1e-9))
        << r.slice.mig_profile;
    EXPECT_DOUBLE_EQ(r.gpu_throughput_samples_per_s,
                     instances_throughput(r.prediction, o.batch, r.geometry.max_instances)) << r.slice.mig_profile;
  }
}

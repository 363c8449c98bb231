// Evaluation of a bundle on dataset rows (pipeline.cpp): what the learned and analytical columns hold.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/learn/data.hpp"
#include "perfpred/learn/efficiency.hpp"
#include "perfpred/learn/model.hpp"
#include "perfpred/learn/pipeline.hpp"
#include "perfpred/learn/train.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::learn;

namespace {

KernelRow relu_row(const std::string& id, const std::string& source, double elements, double time_ms) {
  KernelRow r;
  r.id = id;
  r.source = source;
  r.gpu_id = "t4";
  r.runtime = "pytorch";
  r.precision = "fp32";
  r.op_family = "elementwise";
  r.op = "Relu";
  r.phase = "forward";
  r.inputs = std::to_string(static_cast<int64_t>(elements));
  r.flops = elements;
  r.bytes = 8 * elements;
  r.time_ms = time_ms;
  return r;
}

// An efficiency bundle whose NeuSight Relu floor is 25 us: tiny floored ReLUs, and larger ones to learn from.
Bundle floored_bundle() {
  const GpuSpec t4 = resolve_gpu("t4"), v100 = resolve_gpu("v100-pcie-32gb");
  std::vector<KernelSample> train;
  for (int i = 0; i < 200; ++i) {
    KernelSample s;
    s.gpu = i % 2 ? t4 : v100;
    s.source = "neusight";
    const double elements = i < 60 ? 1000 + i : 1e6 * (1 + i % 40);
    s.kernel = row_kernel(relu_row("r" + std::to_string(i), "neusight", elements, 1), s.gpu, PredictOptions{}, "test");
    s.measured_s = i < 60 ? 25e-6 : 1.3 * kernel_roofline(s.kernel, s.gpu, s.opts).time_s + 25e-6;
    train.push_back(s);
  }
  TrainOptions o;
  o.kernel_target = KernelTarget::efficiency;
  o.rounds = 20;
  o.nthread = 1;
  Bundle b;
  b.name = "floored";
  train_efficiency_models(train, o, b);
  return b;
}

}  // namespace

TEST(LearnPipeline, FlooredSourcesGiveTheAnalyticalTimeTheSameFloor) {
  // NeuSight's timer includes a per-op floor: evaluation adds the bundle's floor to the learned kernel time,
  // and must add the same floor to the analytical one, or the boosters are credited with the floor.
  const Bundle b = floored_bundle();
  const double floor_s = b.timer_floors.at("neusight").at("Relu");
  EXPECT_NEAR(floor_s, 25e-6, 1e-9);
  const auto dir = std::filesystem::temp_directory_path() / "perfpred_test_pipeline";
  std::filesystem::create_directories(dir);
  const auto csv = dir / "relu.csv";
  {
    std::ofstream out(csv);
    out << "#perfpred kernel-dataset schema_version=1\n" << csv_line(kernel_columns());
    out << csv_line(to_fields(relu_row("ns-1", "neusight", 2e5, 0.04)));
    out << csv_line(to_fields(relu_row("other-1", "deepbench", 2e5, 0.04)));
  }
  const LearnedModel m(b);
  EvalRequest req;
  req.data = {csv};
  const EvalResult r = evaluate(m, req);
  ASSERT_EQ(r.records.size(), 2u);
  const GpuSpec t4 = resolve_gpu("t4");
  const KernelEstimate k = row_kernel(relu_row("k", "neusight", 2e5, 0.04), t4, PredictOptions{}, "test");
  for (const auto& rec : r.records) {
    KernelSample s;
    s.kernel = k;
    s.gpu = t4;
    s.source = rec.id == "ns-1" ? "neusight" : "deepbench";
    const double learned_ms = k.time_s * std::exp(m.sample_log_ratios({s})[0]) * 1e3;
    EXPECT_NEAR(rec.learned, learned_ms, 1e-9) << rec.id;
    if (rec.id == "ns-1") {
      EXPECT_DOUBLE_EQ(m.timer_floor_s(s), floor_s);
      EXPECT_NEAR(rec.analytical, with_timer_floor(k.time_s, floor_s) * 1e3, 1e-9);
    } else {
      EXPECT_DOUBLE_EQ(m.timer_floor_s(s), 0.0);  // a source without a floor: the kernel time alone
      EXPECT_NEAR(rec.analytical, k.time_s * 1e3, 1e-12);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(LearnPipeline, HoldoutFamilyMatchesAKernelRowsApplication) {
  // --holdout-family names an op family or, for kernel rows, the application their shape comes from
  // (model_family): training leaves that application's rows out, evaluation keeps only them, and the rows CSV
  // names the application.
  const auto dir = std::filesystem::temp_directory_path() / "perfpred_test_pipeline_app";
  std::filesystem::create_directories(dir);
  const auto csv = dir / "apps.csv";
  {
    std::ofstream out(csv);
    out << "#perfpred kernel-dataset schema_version=1\n" << csv_line(kernel_columns());
    for (int i = 0; i < 80; ++i) {
      KernelRow r = relu_row("r" + std::to_string(i), "deepbench", 1e6 * (1 + i % 40), 0.1 + 0.01 * i);
      r.gpu_id = i % 2 ? "t4" : "v100-pcie-32gb";
      r.model_family = i < 60 ? "vision" : "speech";
      out << csv_line(to_fields(r));
    }
  }
  TrainRequest t;
  t.data = {csv};
  t.options.rounds = 5;
  t.options.nthread = 1;
  t.allow_unlicensed_eval = true;  // no sidecar: no licence
  t.holdout_families = {"speech"};
  const Bundle b = train_bundle(t);
  EXPECT_EQ(b.train_rows, 60u);  // the 20 speech rows are held out
  t.holdout_families = {"no-such-app"};
  EXPECT_THROW(train_bundle(t), InputError);
  const LearnedModel m(b);
  EvalRequest req;
  req.data = {csv};
  req.holdout_families = {"speech"};
  const EvalResult r = evaluate(m, req);
  ASSERT_EQ(r.records.size(), 20u);
  for (const auto& rec : r.records) EXPECT_EQ(rec.model_family, "speech");
  const std::string rows = eval_rows_csv(r);
  EXPECT_NE(rows.find(",learned_share,model_family\n"), std::string::npos);
  EXPECT_NE(rows.find(",speech\n"), std::string::npos);
  EXPECT_TRUE(eval_report(r, b)["by_model_family"].contains("speech"));
  std::filesystem::remove_all(dir);
}

TEST(LearnPipeline, EvaluationReportsTheShareOfKernelTimeTheBoostersCorrected) {
  // The bundle learned ReLUs only: a Sigmoid row (its op unseen) keeps the analytical time and says so with a
  // learned share of 0, so a reader sees where the learned column is the analytical model.
  const Bundle b = floored_bundle();
  const auto dir = std::filesystem::temp_directory_path() / "perfpred_test_pipeline_share";
  std::filesystem::create_directories(dir);
  const auto csv = dir / "ew.csv";
  KernelRow sig = relu_row("sig-1", "neusight", 2e6, 0.4);
  sig.op = "Sigmoid";
  {
    std::ofstream out(csv);
    out << "#perfpred kernel-dataset schema_version=1\n" << csv_line(kernel_columns());
    out << csv_line(to_fields(relu_row("relu-1", "neusight", 2e6, 0.4)));
    out << csv_line(to_fields(sig));
  }
  const LearnedModel m(b);
  EvalRequest req;
  req.data = {csv};
  const EvalResult r = evaluate(m, req);
  ASSERT_EQ(r.records.size(), 2u);
  for (const auto& rec : r.records) {
    if (rec.id == "relu-1") {
      EXPECT_NEAR(rec.learned_share, k_default_kernel_blend, 1e-9);  // the booster's weight, at its blend
    } else {
      EXPECT_DOUBLE_EQ(rec.learned_share, 0.0);
      EXPECT_NEAR(rec.learned, rec.analytical, 1e-9 * rec.analytical);
    }
  }
  const auto j = eval_report(r, b);
  EXPECT_NEAR(j["overall"]["learned_share"].get<double>(), 0.5 * (r.records[0].learned_share + r.records[1].learned_share),
              1e-12);
  EXPECT_NE(eval_text(j).find("share"), std::string::npos);
  EXPECT_NE(eval_rows_csv(r).find("learned_share"), std::string::npos);
  std::filesystem::remove_all(dir);
}

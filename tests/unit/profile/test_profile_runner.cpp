#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <set>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/profile/backend.hpp"
#include "perfpred/profile/progress.hpp"
#include "perfpred/profile/runner.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class TempDir {
 public:
  TempDir() {
    m_path = fs::temp_directory_path() / ("perfpred-profile-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_path);
  }
  ~TempDir() { fs::remove_all(m_path); }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

Plan test_plan() {
  return plan_from_json(json::parse(R"({
    "schema_version": 1, "name": "t", "repeats": 5, "precisions": ["fp32", "fp16"],
    "sweeps": [
      {"op": "conv", "phases": ["forward", "backward_data"], "grid": {"batch": [1, 8], "in_channels": 64, "out_channels": 64, "size": 28, "kernel": 3}},
      {"op": "gemm", "grid": {"m": [128, 4096], "n": 1024, "k": 1024}},
      {"op": "softmax", "grid": {"rows": 64, "cols": 128}}
    ],
    "microbenchmarks": [{"op": "copy", "grid": {"direction": "h2d", "memory": ["pinned", "pageable"], "bytes": 1048576}}]
  })"),
                        "t.json");
}

/// A backend that scripts outcomes by entry index and counts calls.
class ScriptedBackend : public ProfileBackend {
 public:
  int calls = 0;
  int stop_after = -1;    ///< request a stop (as SIGINT would) after this many calls
  int fatal_at = -1;      ///< the call that reports a sticky device error
  int throw_at = -1;      ///< the call that throws
  int oom_at = -1;
  DeviceDescription describe() override {
    DeviceDescription d;
    d.gpu_id = "a100-pcie-40gb";
    d.name = "NVIDIA A100-PCIE-40GB";
    d.spec = {{"sm_count", 108}};
    d.environment = {{"backend", "scripted"}};
    return d;
  }
  Measurement measure(const PlanEntry& e, const MeasureSettings& s) override {
    int i = calls++;
    if (i == throw_at) throw std::runtime_error("backend exploded");
    Measurement m;
    m.runtime = "scripted";
    m.time_ms = 1.0 + e.flops * 1e-12;
    m.repeats = s.repeats;
    if (i == oom_at) {
      m.status = RowStatus::oom;
      m.reason = "out of memory";
    }
    if (i == fatal_at) {
      m.status = RowStatus::failed;
      m.reason = "cudaErrorIllegalAddress";
      m.fatal = true;
    }
    if (stop_after >= 0 && calls == stop_after) request_profile_stop(2);
    return m;
  }
};

std::vector<std::string> ids_of(const fs::path& csv) {
  std::vector<std::string> out;
  for (const auto& r : read_kernel_rows(csv)) out.push_back(r.id);
  return out;
}

void expect_complete_and_unique(const Plan& plan, const fs::path& dir) {
  std::multiset<std::string> got;
  for (const auto& id : ids_of(kernel_dataset_path(dir))) got.insert(id);
  for (const auto& id : ids_of(microbench_dataset_path(dir))) got.insert(id);
  EXPECT_EQ(got.size(), plan.entries.size());
  for (const auto& e : plan.entries) EXPECT_EQ(got.count(e.id), 1u) << e.id;
}

RunOptions options(const fs::path& dir) {
  RunOptions o;
  o.out_dir = dir;
  o.progress = false;
  return o;
}

}  // namespace

TEST(Runner, WritesEveryEntryAndSidecars) {
  TempDir t;
  Plan plan = test_plan();
  ScriptedBackend b;
  RunSummary s = run_profile(plan, b, options(t.path()));
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(s.written, static_cast<int64_t>(plan.entries.size()));
  expect_complete_and_unique(plan, t.path());
  auto rows = read_kernel_rows(kernel_dataset_path(t.path()));
  EXPECT_EQ(rows[0].gpu_id, "a100-pcie-40gb");
  EXPECT_EQ(rows[0].source, "perfpred-profile");
  EXPECT_EQ(rows[0].op_family, "conv");
  EXPECT_EQ(*rows[0].repeats, 5);
  DatasetMeta m = read_dataset_meta(sidecar_path(kernel_dataset_path(t.path())));
  EXPECT_EQ(m.licence, "perfpred-measured");
  EXPECT_TRUE(m.devices.contains("a100-pcie-40gb"));
  EXPECT_EQ(m.plan["name"], "t");
  EXPECT_EQ(m.extra["run_status"], "complete");
  auto micro = read_kernel_rows(microbench_dataset_path(t.path()));
  ASSERT_EQ(micro.size(), 2u);
  EXPECT_EQ(micro[0].precision, "");
  EXPECT_EQ(micro[0].op, "MemcpyH2D");
}

TEST(Runner, StopThenResumeNeitherLosesNorDuplicates) {
  TempDir t;
  Plan plan = test_plan();
  ScriptedBackend b;
  b.stop_after = 4;
  RunSummary s = run_profile(plan, b, options(t.path()));
  EXPECT_TRUE(s.stopped_by_signal);
  EXPECT_EQ(s.signal, 2);
  EXPECT_EQ(s.written, 4);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(read_dataset_meta(sidecar_path(kernel_dataset_path(t.path()))).extra["run_status"], "incomplete");
  // Without --resume an existing directory is refused.
  ScriptedBackend b2;
  EXPECT_THROW(run_profile(plan, b2, options(t.path())), InputError);
  RunOptions o = options(t.path());
  o.resume = true;
  RunSummary r = run_profile(plan, b2, o);
  EXPECT_EQ(r.already_done, 4);
  EXPECT_EQ(r.written, static_cast<int64_t>(plan.entries.size()) - 4);
  EXPECT_EQ(b2.calls, r.written);
  EXPECT_TRUE(r.complete);
  expect_complete_and_unique(plan, t.path());
  // Resuming a complete run measures nothing.
  ScriptedBackend b3;
  RunSummary again = run_profile(plan, b3, o);
  EXPECT_EQ(b3.calls, 0);
  EXPECT_TRUE(again.complete);
}

TEST(Runner, ResumeAfterATornLine) {
  TempDir t;
  Plan plan = test_plan();
  ScriptedBackend b;
  b.stop_after = 3;
  run_profile(plan, b, options(t.path()));
  {
    std::ofstream out(kernel_dataset_path(t.path()), std::ios::app);
    out << "conv|forward|fp16|batch=8;dila";  // a row cut by SIGKILL
  }
  RunOptions o = options(t.path());
  o.resume = true;
  ScriptedBackend b2;
  run_profile(plan, b2, o);
  expect_complete_and_unique(plan, t.path());
}

TEST(Runner, FailuresAreRowsAndFatalErrorsStopCleanly) {
  TempDir t;
  Plan plan = test_plan();
  ScriptedBackend b;
  b.throw_at = 1;
  b.oom_at = 2;
  b.fatal_at = 5;
  RunSummary s = run_profile(plan, b, options(t.path()));
  EXPECT_TRUE(s.stopped_by_fatal_error);
  EXPECT_EQ(s.fatal_reason, "cudaErrorIllegalAddress");
  EXPECT_EQ(s.written, 6);
  auto rows = read_kernel_rows(kernel_dataset_path(t.path()));
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[1].status, RowStatus::failed);
  EXPECT_EQ(rows[1].reason, "backend exploded");
  EXPECT_FALSE(rows[1].time_ms.has_value());
  EXPECT_EQ(rows[2].status, RowStatus::oom);
  EXPECT_EQ(rows[5].status, RowStatus::failed);
  EXPECT_EQ(s.by_status["ok"], 3);
  RunOptions o = options(t.path());
  o.resume = true;
  ScriptedBackend b2;
  EXPECT_TRUE(run_profile(plan, b2, o).complete);
  expect_complete_and_unique(plan, t.path());
}

TEST(Runner, ResumeRefusesAnotherDevice) {
  TempDir t;
  Plan plan = test_plan();
  ScriptedBackend b;
  b.stop_after = 2;
  run_profile(plan, b, options(t.path()));
  RunOptions o = options(t.path());
  o.resume = true;
  o.gpu_id = "h100-sxm5-80gb";
  ScriptedBackend b2;
  EXPECT_THROW(run_profile(plan, b2, o), InputError);
}

TEST(Runner, ShardsAndTimeLimit) {
  TempDir t;
  Plan plan = test_plan();
  std::set<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    RunOptions o = options(t.path() / ("s" + std::to_string(i)));
    o.shard = Shard{i, 2};
    ScriptedBackend b;
    run_profile(plan, b, o);
    for (const auto& id : ids_of(kernel_dataset_path(o.out_dir))) EXPECT_TRUE(ids.insert(id).second);
    if (fs::exists(microbench_dataset_path(o.out_dir))) {
      for (const auto& id : ids_of(microbench_dataset_path(o.out_dir))) EXPECT_TRUE(ids.insert(id).second);
    }
  }
  EXPECT_EQ(ids.size(), plan.entries.size());
  RunOptions o = options(t.path() / "limited");
  o.max_minutes = 1e-9;
  ScriptedBackend b;
  RunSummary s = run_profile(plan, b, o);
  EXPECT_TRUE(s.stopped_by_time_limit);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(b.calls, 0);
}

TEST(Runner, PrecisionFilterAndEmptySelection) {
  TempDir t;
  Plan plan = test_plan();
  RunOptions o = options(t.path());
  o.precisions = {Precision::bf16};
  ScriptedBackend b;
  RunSummary s = run_profile(plan, b, o);  // only the copies (no precision) remain
  EXPECT_EQ(s.planned, 2);
}

TEST(SimulatedBackend, PlausibleDeterministicSyntheticRows) {
  SimulatedBackendOptions so;
  so.gpu = resolve_gpu("a100-sxm4-40gb");
  auto b = make_simulated_backend(so);
  auto d = b->describe();
  EXPECT_TRUE(d.synthetic);
  EXPECT_EQ(d.gpu_id, "a100-sxm4-40gb");
  Plan plan = plan_from_json(json::parse(R"({"schema_version": 1, "name": "t", "precisions": ["fp32", "fp16"],
    "sweeps": [{"op": "gemm", "grid": {"m": [256, 8192], "n": 8192, "k": 8192}},
               {"op": "elementwise", "grid": {"function": "add", "elements": 16777216}},
               {"op": "gemm", "precisions": ["fp32"], "grid": {"batch": 4096, "m": 8192, "n": 8192, "k": 8192}}]})"),
                             "t");
  MeasureSettings s;
  std::map<std::string, Measurement> m;
  for (const auto& e : plan.entries) m[e.id] = b->measure(e, s);
  const auto& small32 = m.at("gemm|forward|fp32|k=8192;m=256;n=8192");
  const auto& big32 = m.at("gemm|forward|fp32|k=8192;m=8192;n=8192");
  const auto& big16 = m.at("gemm|forward|fp16|k=8192;m=8192;n=8192");
  EXPECT_EQ(big32.status, RowStatus::ok);
  EXPECT_GT(big32.time_ms, small32.time_ms);
  EXPECT_GT(big32.time_ms, 4 * big16.time_ms);  // tensor cores
  // fp32 8192^3 on 19.5 TFLOPS: about 56 ms at full speed, so 50..120 ms is plausible.
  EXPECT_GT(big32.time_ms, 50);
  EXPECT_LT(big32.time_ms, 120);
  const auto& add = m.at("elementwise|forward|fp32|elements=16777216;function=add");
  // 16M x 3 x 4 bytes over ~1.3 TB/s effective: about 0.15 ms.
  EXPECT_GT(add.time_ms, 0.1);
  EXPECT_LT(add.time_ms, 0.3);
  ASSERT_TRUE(add.power_w.has_value());
  EXPECT_NEAR(*add.energy_mj, *add.power_w * add.time_ms, 1e-9);
  EXPECT_EQ(m.at("gemm|forward|fp32|batch=4096;k=8192;m=8192;n=8192").status, RowStatus::oom);
  // Same entry, same answer.
  EXPECT_DOUBLE_EQ(b->measure(plan.entries[0], s).time_ms, m.at(plan.entries[0].id).time_ms);
}

TEST(Runner, MatchesCatalogIds) {
  DeviceDescription d;
  d.name = "NVIDIA A100-SXM4-40GB";
  d.spec = {{"sm_count", 108}, {"memory_gb", 42.4}};
  EXPECT_EQ(match_catalog_id(d), "a100-sxm4-40gb");
  d.name = "NVIDIA H200";
  d.spec = {{"sm_count", 132}, {"memory_gb", 150.0}};
  EXPECT_EQ(match_catalog_id(d), "h200-sxm-141gb");
  d.name = "NVIDIA A100-SXM4-40GB MIG 3g.20gb";  // what CUDA reports inside a MIG instance
  d.spec = {{"sm_count", 42}, {"memory_gb", 21.0}};
  EXPECT_EQ(match_catalog_id(d), "a100-sxm4-40gb:3g.20gb");
  d.name = "NVIDIA A100-SXM4-40GB MIG 9g.99gb";
  EXPECT_EQ(match_catalog_id(d), "spec:NVIDIA A100-SXM4-40GB MIG 9g.99gb");
  d.name = "Mystery Accelerator";
  d.spec = {{"sm_count", 7}, {"memory_gb", 3.0}};
  EXPECT_EQ(match_catalog_id(d), "spec:Mystery Accelerator");
}

TEST(Runner, KernelRowFromMeasurement) {
  Plan plan = test_plan();
  Measurement m;
  m.time_ms = 0.5;
  m.time_ms_min = 0.45;
  m.repeats = 7;
  m.kernel_names = {"k1", "k2"};
  m.notes = {"algo=1", "workspace_bytes=0"};
  m.runtime = "cudnn";
  m.runtime_version = "9.1.0";
  DeviceDescription d;
  d.gpu_id = "t4";
  d.synthetic = true;
  KernelRow r = to_kernel_row(plan.entries[0], m, d);
  EXPECT_EQ(r.kernel_names, "k1|k2");
  EXPECT_EQ(r.notes, "algo=1; workspace_bytes=0");
  EXPECT_TRUE(r.synthetic);
  EXPECT_EQ(r.precision, "fp32");
  EXPECT_EQ(*r.gemm_n, 64);
  EXPECT_DOUBLE_EQ(*r.time_ms, 0.5);
  m.status = RowStatus::unsupported;
  r = to_kernel_row(plan.entries[0], m, d);
  EXPECT_FALSE(r.time_ms.has_value());
}

TEST(Progress, DurationAndEta) {
  EXPECT_EQ(Progress::format_duration(5), "5s");
  EXPECT_EQ(Progress::format_duration(125), "2m05s");
  EXPECT_EQ(Progress::format_duration(3720), "1h02m");
  EXPECT_EQ(Progress::format_duration(-1), "?");
  EXPECT_DOUBLE_EQ(Progress::eta_seconds(10, 40, 20), 60);
  EXPECT_LT(Progress::eta_seconds(0, 40, 20), 0);
  std::FILE* f = std::tmpfile();
  Progress p(4, true, false, 0, f);
  p.update(2, "x");
  p.finish();
  std::rewind(f);
  char buf[256] = {0};
  ASSERT_NE(std::fgets(buf, sizeof buf, f), nullptr);
  EXPECT_NE(std::string(buf).find("progress 2/4 (50%)"), std::string::npos) << buf;
  std::fclose(f);
}

// Model sweeps: expansion of zoo models into layer entries, the network rows the runner writes with
// the simulated backend, training steps, and kill + --resume keeping network rows unique.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/profile/backend.hpp"
#include "perfpred/profile/plan.hpp"
#include "perfpred/profile/runner.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path k_root = PERFPRED_SOURCE_ROOT;

class TempDir {
 public:
  TempDir() {
    m_path = fs::temp_directory_path() / ("perfpred-model-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_path);
  }
  ~TempDir() { fs::remove_all(m_path); }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

ModelRun expand(const std::string& zoo_name, int64_t batch, const std::string& mode) {
  ModelExpandOptions o;
  o.model = "models/zoo/" + zoo_name + ".onnx";
  o.model_path = k_root / o.model;
  o.sweep = "test";
  o.batch = batch;
  o.mode = mode;
  return expand_model(o);
}

std::map<std::string, int> count(const ModelRun& r, const std::string& phase) {
  std::map<std::string, int> c;
  for (const auto& e : r.layers)
    if (e.phase == phase) ++c[e.op_kind];
  return c;
}

double note_value(const std::string& notes, const std::string& key) {
  std::smatch m;
  std::regex re(key + "=([0-9.]+)");
  if (!std::regex_search(notes, m, re)) return -1;
  return std::stod(m[1]);
}

}  // namespace

TEST(ModelPlan, Resnet18ForwardLayersMatchTheGraph) {
  ModelRun r = expand("resnet18", 1, "inference");
  auto fw = count(r, "forward");
  EXPECT_EQ(fw["conv"], 20);
  EXPECT_EQ(fw["gemm"], 1);
  EXPECT_EQ(fw["batch_norm"], 20);
  EXPECT_EQ(fw["activation"], 17);
  EXPECT_EQ(fw["elementwise"], 8);
  EXPECT_EQ(fw["pool"], 2);  // max pool, global average pool
  EXPECT_EQ(r.layers.size(), 68u);
  EXPECT_TRUE(r.unsupported.empty()) << r.unsupported.front();
  ASSERT_EQ(r.views.size(), 1u);
  EXPECT_NE(r.views[0].find("(Flatten)"), std::string::npos);
  EXPECT_EQ(r.parameters, 11689512);
  std::set<std::string> ids;
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const auto& e = r.layers[i];
    EXPECT_EQ(e.layer_index, static_cast<int64_t>(i));
    EXPECT_FALSE(e.node.empty());
    EXPECT_EQ(e.model, "models/zoo/resnet18.onnx");
    EXPECT_TRUE(ids.insert(e.id).second) << e.id;
  }
  // The stem: 7x7 stride 2 pad 3 on 224x224, in the conv sweep vocabulary.
  const auto& stem = r.layers[0];
  EXPECT_EQ(stem.op, "Conv");
  EXPECT_EQ(stem.param("kernel_h"), 7);
  EXPECT_EQ(stem.param("stride_h"), 2);
  EXPECT_EQ(stem.param("pad_h"), 3);
  EXPECT_EQ(stem.param("out_h"), 112);
  EXPECT_EQ(stem.param("in_channels"), 3);
}

TEST(ModelPlan, MobilenetV2DepthwiseAndClip) {
  ModelRun r = expand("mobilenet_v2", 8, "inference");
  auto fw = count(r, "forward");
  EXPECT_EQ(fw["conv"], 52);
  EXPECT_EQ(fw["gemm"], 1);
  EXPECT_EQ(fw["activation"], 35);  // Clip (ReLU6) runs as relu
  EXPECT_TRUE(r.unsupported.empty());
  int depthwise = 0;
  for (const auto& e : r.layers)
    if (e.op_kind == "conv" && e.param("groups") > 1) {
      ++depthwise;
      EXPECT_EQ(e.param("groups"), e.param("in_channels"));
      EXPECT_EQ(e.param("batch"), 8);
    }
  EXPECT_EQ(depthwise, 17);
  for (const auto& e : r.layers)
    if (e.op == "Clip") {
      EXPECT_EQ(e.label("function"), "relu");
      ASSERT_FALSE(e.notes.empty());
      EXPECT_NE(e.notes[0].find("executed as relu"), std::string::npos);
    }
}

TEST(ModelPlan, Resnet18TrainingHasBackwardAndSgd) {
  ModelRun inf = expand("resnet18", 4, "inference");
  ModelRun r = expand("resnet18", 4, "training");
  // The forward part is the inference model's, same ids (measured once per plan).
  for (size_t i = 0; i < inf.layers.size(); ++i) EXPECT_EQ(r.layers[i].id, inf.layers[i].id);
  auto bd = count(r, "backward_data"), bw = count(r, "backward_weight"), b = count(r, "backward");
  EXPECT_EQ(bd["conv"], 19);  // the stem's input is the image: no data gradient
  EXPECT_EQ(bw["conv"], 20);
  EXPECT_EQ(bd["gemm"], 1);
  EXPECT_EQ(bw["gemm"], 1);
  EXPECT_EQ(b["batch_norm"], 20);
  EXPECT_EQ(b["activation"], 17);
  EXPECT_EQ(b["pool"], 2);
  EXPECT_EQ(b["elementwise"], 8);  // gradient accumulation at the 8 residual forks
  ASSERT_EQ(r.layers.back().phase, "optimizer");
  EXPECT_EQ(r.layers.back().op, "SGD");
  EXPECT_EQ(r.layers.back().param("elements"), 11689512);
  EXPECT_DOUBLE_EQ(r.layers.back().bytes, 3.0 * 4 * 11689512);  // read param and grad, write param
  EXPECT_TRUE(r.not_measured.empty()) << r.not_measured.front();
  // Backward runs in reverse: the classifier's gradients come first.
  EXPECT_EQ(r.layers[inf.layers.size()].op, "Gemm");
}

TEST(ModelPlan, UnsupportedNodeIsNamedAndTheRowPartial) {
  Graph g = onnx_import::import_text(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 64] x, float[64, 32] w) => (float[2, 1] y) {
      h = MatMul(x, w)
      r = Relu(h)
      y = ReduceMean <axes = [1]> (r)
    }
  )");
  ModelExpandOptions o;
  o.model = "tiny.onnx";
  o.model_path = "/nonexistent/tiny.onnx";
  o.sweep = "t";
  o.batch = 2;
  ModelRun r = expand_graph(g, o);
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_NE(r.unsupported[0].find("(ReduceMean)"), std::string::npos) << r.unsupported[0];
  EXPECT_EQ(r.layers.size(), 2u);

  PlanEntry net;
  net.id = "network|inference|fp32|model=tiny.onnx;batch=2";
  net.kind = EntryKind::network;
  net.network = std::make_shared<ModelRun>(r);
  SequenceMeasurement sm;
  sm.total.status = RowStatus::ok;
  sm.total.time_ms = 0.05;
  sm.layer_sum_ms = 0.03;
  sm.layers_run = 2;
  sm.sequence_timed = true;
  DeviceDescription d;
  d.gpu_id = "t4";
  NetworkRow row = to_network_row(net, sm, d, "/nonexistent/out");
  EXPECT_EQ(row.status, RowStatus::unsupported);
  EXPECT_NE(row.reason.find("partial"), std::string::npos);
  EXPECT_NE(row.notes.find("not executed: " + r.unsupported[0]), std::string::npos) << row.notes;
  ASSERT_TRUE(row.latency_ms);
  EXPECT_DOUBLE_EQ(*row.latency_ms, 0.05);
  EXPECT_EQ(row.model, "../tiny.onnx");
}

TEST(ModelPlan, MissingModelNamesPlanSweepAndPath) {
  try {
    plan_from_json(json::parse(R"({"schema_version": 1, "name": "m",
      "sweeps": [{"name": "zoo", "kind": "model", "models": ["models/zoo/no_such_net.onnx"]}]})"),
                   "m.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("m.json"), std::string::npos) << w;
    EXPECT_NE(w.find("zoo"), std::string::npos) << w;
    EXPECT_NE(w.find("models/zoo/no_such_net.onnx"), std::string::npos) << w;
  }
  EXPECT_THROW(plan_from_json(json::parse(R"({"schema_version": 1, "name": "m",
      "sweeps": [{"kind": "model", "models": ["models/zoo/lenet5.onnx"], "mode": "serving"}]})"),
                              "m.json"),
               InputError);
}

TEST(ModelPlan, PlanSharesForwardLayersBetweenModes) {
  Plan p = plan_from_json(json::parse(R"({"schema_version": 1, "name": "m",
      "sweeps": [{"name": "zoo", "kind": "model", "models": ["models/zoo/lenet5.onnx"], "batch": [1, 4],
                  "precision": ["fp32"], "mode": ["inference", "training"]}]})"),
                          "m.json");
  int networks = 0;
  std::set<std::string> ids, configs;
  auto config = [](const PlanEntry& e) {
    return e.op_kind + "|" + e.phase + "|" + to_string(e.precision) + "|" + e.attrs_text();
  };
  for (const auto& e : p.entries) {
    EXPECT_TRUE(ids.insert(e.id).second) << e.id;
    if (e.kind == EntryKind::network) {
      ++networks;
      ASSERT_TRUE(e.network);
      // Every kernel the network runs is measured alone once (a kernel row of the plan).
      for (const auto& l : e.network->layers) EXPECT_TRUE(configs.count(config(l))) << l.id;
    } else {
      EXPECT_TRUE(configs.insert(config(e)).second) << "kernel measured twice: " << e.id;
    }
  }
  EXPECT_EQ(networks, 4);
}

TEST(ModelPlan, RepeatedLayersAreMeasuredOnceAndNamed) {
  Plan p = plan_from_json(json::parse(R"({"schema_version": 1, "name": "m",
      "sweeps": [{"name": "zoo", "kind": "model", "models": ["models/zoo/resnet18.onnx"], "mode": "inference"}]})"),
                          "m.json");
  ASSERT_EQ(p.entries.back().kind, EntryKind::network);
  const auto& layers = p.entries.back().network->layers;
  EXPECT_EQ(layers.size(), 68u);
  EXPECT_LT(p.entries.size() - 1, layers.size());
  // layer1's four 64->64 3x3 convolutions are one kernel entry naming the other three nodes.
  int named = 0;
  for (const auto& e : p.entries)
    if (e.op_kind == "conv" && e.param("in_channels") == 64 && e.param("out_channels") == 64 && e.param("kernel_h") == 3) {
      ++named;
      ASSERT_FALSE(e.notes.empty());
      EXPECT_EQ(std::count(e.notes.back().begin(), e.notes.back().end(), '('), 3) << e.notes.back();
    }
  EXPECT_EQ(named, 1);
}

namespace {

Plan resnet_plan() {
  return plan_from_json(json::parse(R"({"schema_version": 1, "name": "models", "repeats": 5,
      "sweeps": [{"name": "zoo", "kind": "model", "models": ["models/zoo/resnet18.onnx"], "batch": [1],
                  "precision": ["fp32"], "mode": ["inference", "training"]}]})"),
                        "models.json");
}

/// Stops the run (as SIGINT would) after `stop_after` measurements of any kind.
class StoppingBackend : public ProfileBackend {
 public:
  StoppingBackend(std::unique_ptr<ProfileBackend> inner, int stop_after) : m_inner(std::move(inner)), m_stop_after(stop_after) {}
  DeviceDescription describe() override { return m_inner->describe(); }
  Measurement measure(const PlanEntry& e, const MeasureSettings& s) override {
    tick();
    return m_inner->measure(e, s);
  }
  SequenceMeasurement measure_sequence(const std::vector<PlanEntry>& l, const MeasureSettings& s) override {
    tick();
    ++sequences;
    return m_inner->measure_sequence(l, s);
  }
  int sequences = 0;

 private:
  void tick() {
    if (++m_calls == m_stop_after) request_profile_stop(2);
  }
  std::unique_ptr<ProfileBackend> m_inner;
  int m_stop_after;
  int m_calls = 0;
};

std::unique_ptr<ProfileBackend> simulated() {
  SimulatedBackendOptions so;
  so.gpu = GpuCatalog::instance().resolve("a100-sxm4-40gb");
  return make_simulated_backend(so);
}

}  // namespace

TEST(ModelRunner, SimulatedWritesLabeledKernelRowsAndNetworkRows) {
  TempDir tmp;
  Plan plan = resnet_plan();
  auto backend = simulated();
  RunOptions o;
  o.out_dir = tmp.path() / "out";
  o.progress = false;
  RunSummary s = run_profile(plan, *backend, o);
  ASSERT_TRUE(s.complete);
  EXPECT_EQ(s.written, static_cast<int64_t>(plan.entries.size()));

  auto kernels = read_kernel_rows(kernel_dataset_path(o.out_dir));
  int labeled = 0, sgd = 0, bwd_data = 0, bwd_weight = 0, shared = 0;
  for (const auto& k : kernels) {
    if (k.notes.find("model=models/zoo/resnet18.onnx; node=") != std::string::npos) ++labeled;
    if (k.notes.find("same kernel runs for: ") != std::string::npos) ++shared;
    if (k.phase == "optimizer" && k.op == "SGD") ++sgd;
    bwd_data += k.phase == "backward_data";
    bwd_weight += k.phase == "backward_weight";
  }
  EXPECT_EQ(labeled, static_cast<int>(kernels.size()));
  EXPECT_GT(shared, 0);
  EXPECT_EQ(sgd, 1);
  // Distinct configurations of resnet18's 19 data-gradient and 20 weight-gradient convs (+ the FC).
  EXPECT_GT(bwd_data, 5);
  EXPECT_LT(bwd_data, 20);
  EXPECT_GT(bwd_weight, bwd_data);

  auto nets = read_network_rows(network_dataset_path(o.out_dir));
  ASSERT_EQ(nets.size(), 2u);
  for (const auto& n : nets) {
    EXPECT_EQ(n.status, RowStatus::ok) << n.reason;
    EXPECT_TRUE(n.synthetic);
    EXPECT_EQ(n.batch.value_or(0), 1);
    EXPECT_EQ(n.model_family, "resnet");
    ASSERT_TRUE(n.latency_ms);
    const double layer_sum = note_value(n.notes, "layer_sum_ms");
    ASSERT_GT(layer_sum, 0) << n.notes;
    // Host dispatch and launch gaps: the sequence takes longer than its kernels alone.
    EXPECT_GT(*n.latency_ms, layer_sum);
    // The model path resolves from the CSV's directory, as dataset readers do.
    EXPECT_TRUE(fs::is_regular_file(o.out_dir / n.model)) << n.model;
    EXPECT_NE(n.notes.find("views skipped (no kernel): "), std::string::npos);
  }
  const auto& train = nets[0].mode == "training" ? nets[0] : nets[1];
  const auto& infer = nets[0].mode == "training" ? nets[1] : nets[0];
  EXPECT_EQ(train.mode, "training");
  EXPECT_NE(train.notes.find("optimizer=sgd"), std::string::npos);
  EXPECT_GT(*train.latency_ms, 2 * *infer.latency_ms);
  auto meta = read_dataset_meta(sidecar_path(network_dataset_path(o.out_dir)));
  EXPECT_EQ(meta.kind, DatasetKind::network);
  EXPECT_EQ(meta.licence, "synthetic");
}

TEST(ModelRunner, DefaultSequenceIsTheSumOfLayersAndSaysSo) {
  class SumOnly : public ProfileBackend {
   public:
    DeviceDescription describe() override {
      DeviceDescription d;
      d.gpu_id = "t4";
      return d;
    }
    Measurement measure(const PlanEntry& e, const MeasureSettings&) override {
      Measurement m;
      if (e.op_kind == "pool") {
        m.status = RowStatus::unsupported;
        m.reason = "no pooling here";
        return m;
      }
      m.time_ms = 0.5;
      m.runtime = "cudnn";
      return m;
    }
  } backend;
  ModelRun r = expand("lenet5", 1, "inference");
  SequenceMeasurement sm = backend.measure_sequence(r.layers, MeasureSettings{});
  int pools = 0;
  for (const auto& e : r.layers) pools += e.op_kind == "pool";
  EXPECT_FALSE(sm.sequence_timed);
  EXPECT_EQ(sm.layers_run, static_cast<int64_t>(r.layers.size()) - pools);
  EXPECT_DOUBLE_EQ(sm.total.time_ms, 0.5 * sm.layers_run);
  EXPECT_EQ(sm.failed.size(), static_cast<size_t>(pools));
  EXPECT_EQ(sm.failed_status, RowStatus::unsupported);
  PlanEntry net;
  net.id = "n";
  net.kind = EntryKind::network;
  net.network = std::make_shared<ModelRun>(r);
  NetworkRow row = to_network_row(net, sm, backend.describe(), k_root / "models" / "zoo");
  EXPECT_EQ(row.status, RowStatus::unsupported);
  EXPECT_NE(row.notes.find("sum of layers"), std::string::npos);
  EXPECT_NE(row.notes.find("failed layers: "), std::string::npos);
  EXPECT_EQ(row.model, "lenet5.onnx");
}

TEST(ModelRunner, StopAndResumeKeepsNetworkRowsUnique) {
  TempDir tmp;
  Plan plan = resnet_plan();
  RunOptions o;
  o.out_dir = tmp.path() / "out";
  o.progress = false;
  // Stop right after the inference network row (entries: its 68 layers, then the network).
  size_t first_net = 0;
  while (plan.entries[first_net].kind != EntryKind::network) ++first_net;
  {
    StoppingBackend b(simulated(), static_cast<int>(first_net) + 1);
    RunSummary s = run_profile(plan, b, o);
    EXPECT_FALSE(s.complete);
    EXPECT_EQ(b.sequences, 1);
    EXPECT_EQ(read_network_rows(network_dataset_path(o.out_dir)).size(), 1u);
  }
  o.resume = true;
  {
    StoppingBackend b(simulated(), -1);
    RunSummary s = run_profile(plan, b, o);
    EXPECT_TRUE(s.complete);
    EXPECT_EQ(s.already_done, static_cast<int64_t>(first_net) + 1);
    EXPECT_EQ(b.sequences, 1);  // only the training network is left
  }
  {
    StoppingBackend b(simulated(), -1);
    RunSummary s = run_profile(plan, b, o);  // nothing left: no row written twice
    EXPECT_EQ(s.written, 0);
    EXPECT_EQ(b.sequences, 0);
  }
  auto nets = read_network_rows(network_dataset_path(o.out_dir));
  ASSERT_EQ(nets.size(), 2u);
  EXPECT_NE(nets[0].id, nets[1].id);
  std::set<std::string> ids;
  for (const auto& k : read_kernel_rows(kernel_dataset_path(o.out_dir))) EXPECT_TRUE(ids.insert(k.id).second) << k.id;
}

// Speed of the analytical predictor through the library API.
//   build-*/bench/bench_predict [--benchmark_filter=...]
// NasBench201Sized: one prediction of a NAS-Bench-201-sized network (3 stages x 5 cells x 6
// ReLU-Conv-BN edges, ~300 nodes) on one GPU, totals only (the sweep path); items/s = predictions/s.
// The Zoo cases import a model from models/zoo once and time analyze() + predict() per iteration.
#include <benchmark/benchmark.h>

#include <filesystem>

#include <nlohmann/json.hpp>  // catalog.hpp forward-declares json

#include "net_builder.hpp"
#include "perfpred/analysis/cost.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/predict/predictor.hpp"

namespace {

const perfpred::GpuCatalog& catalog() {
  static perfpred::GpuCatalog cat(std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus");
  return cat;
}

void NasBench201Sized(benchmark::State& state) {
  auto net = perfpred::test::nb201_like(state.range(0));
  const auto gpu = catalog().resolve("gtx-1080ti");
  perfpred::PredictOptions o;
  o.batch = state.range(0);
  o.detail = state.range(1) != 0;
  for (auto _ : state) {
    auto p = perfpred::predict(net.g, net.c, gpu, o);
    benchmark::DoNotOptimize(p.latency_ms);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["nodes"] = static_cast<double>(net.g.nodes.size());
}
BENCHMARK(NasBench201Sized)->Args({1, 0})->Args({1, 1})->Args({256, 0});

void NasBench201SizedTraining(benchmark::State& state) {
  auto net = perfpred::test::nb201_like(64);
  const auto gpu = catalog().resolve("a100-sxm4-40gb");
  perfpred::PredictOptions o;
  o.batch = 64;
  o.mode = perfpred::Mode::training;
  o.optimizer = perfpred::Optimizer::adam;
  o.detail = false;
  for (auto _ : state) benchmark::DoNotOptimize(perfpred::predict(net.g, net.c, gpu, o).latency_ms);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(NasBench201SizedTraining);

void ZooAnalyzeAndPredict(benchmark::State& state, const char* model) {
  const auto path = std::filesystem::path(PERFPRED_SOURCE_ROOT) / "models" / "zoo" / model;
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("model missing: run tools/export_zoo.py");
    return;
  }
  auto g = perfpred::onnx_import::import_file(path);
  const auto gpu = catalog().resolve("a100-sxm4-40gb");
  perfpred::PredictOptions o;
  o.detail = false;
  for (auto _ : state) {
    auto cost = perfpred::analyze(g);
    benchmark::DoNotOptimize(perfpred::predict(g, cost, gpu, o).latency_ms);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(ZooAnalyzeAndPredict, resnet50, "resnet50.onnx");
BENCHMARK_CAPTURE(ZooAnalyzeAndPredict, bert_base_like, "bert_base_like.onnx");

void ZooImport(benchmark::State& state, const char* model) {
  const auto path = std::filesystem::path(PERFPRED_SOURCE_ROOT) / "models" / "zoo" / model;
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("model missing: run tools/export_zoo.py");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(perfpred::onnx_import::import_file(path).nodes.size());
}
BENCHMARK_CAPTURE(ZooImport, resnet50, "resnet50.onnx");

}  // namespace

BENCHMARK_MAIN();

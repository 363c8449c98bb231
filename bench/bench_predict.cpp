// Speed of the analytical predictor through the library API.
//   build-*/bench/bench_predict [--benchmark_filter=...]
// NasBench201Sized: one prediction of a NAS-Bench-201-sized network (3 stages x 5 cells x 6
// ReLU-Conv-BN edges, ~300 nodes) on one GPU, totals only (the sweep path); items/s = predictions/s.
// The Zoo cases import a model from models/zoo once and time analyze() + predict() per iteration.
// CatalogResolveOne / CatalogLoadAll: what `perfpred predict --gpu ID` pays for the GPU (one catalog file)
// against loading all of data/gpus (what it paid before). BundleLoad / BundleLoadAndHostPredict: loading
// perfpred-default.json ($PERFPRED_MODEL_DIR, else models/; JSON + base64), then also its host booster through XGBoost and one
// prediction: the part of a CLI prediction with the default bundle that --analytical does not pay.
#include <benchmark/benchmark.h>

#include <filesystem>

#include <nlohmann/json.hpp>  // catalog.hpp forward-declares json

#include "net_builder.hpp"
#include "perfpred/analysis/cost.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/model.hpp"
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

void CatalogResolveOne(benchmark::State& state) {
  const auto dir = std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus";
  for (auto _ : state) benchmark::DoNotOptimize(perfpred::GpuCatalog::resolve_in(dir, "a100-sxm4-40gb").sm_count);
}
BENCHMARK(CatalogResolveOne)->Unit(benchmark::kMicrosecond);

void CatalogLoadAll(benchmark::State& state) {
  const auto dir = std::filesystem::path(PERFPRED_SOURCE_ROOT) / "data" / "gpus";
  for (auto _ : state) benchmark::DoNotOptimize(perfpred::GpuCatalog(dir).resolve("a100-sxm4-40gb").sm_count);
}
BENCHMARK(CatalogLoadAll)->Unit(benchmark::kMicrosecond);

std::filesystem::path default_bundle(benchmark::State& state) {
  const auto found = perfpred::learn::default_bundle_path();  // $PERFPRED_MODEL_DIR or models/
  if (!found) {
    state.SkipWithError("no perfpred-default.json");
    return {};
  }
  const auto path = *found;
  try {
    perfpred::learn::load_bundle(path);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());  // e.g. a bundle older than this build's feature version
    return {};
  }
  return path;
}

void BundleLoad(benchmark::State& state) {
  const auto path = default_bundle(state);
  if (path.empty()) return;
  for (auto _ : state) benchmark::DoNotOptimize(perfpred::learn::load_bundle(path).host_models.size());
}
BENCHMARK(BundleLoad)->Unit(benchmark::kMillisecond);

void BundleLoadAndHostPredict(benchmark::State& state) {
  const auto path = default_bundle(state);
  if (path.empty()) return;
  const auto gpu = catalog().resolve("a100-sxm4-40gb");
  perfpred::PredictOptions o;
  for (auto _ : state) {
    auto m = perfpred::learn::LearnedModel::load(path);
    benchmark::DoNotOptimize(m->host_overhead_s(1e-3, gpu, o));
  }
}
BENCHMARK(BundleLoadAndHostPredict)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();  // XGBoost threads

BENCHMARK_MAIN();

// What one `perfpred predict MODEL --gpu GPU --json --layers --no-meta` costs in process, without the
// process: PredictCmdOptions -> predict_document_with_model() -> the JSON text, as the CLI and the Python
// module (src/python) both run it. bench/bench_python.py times the same call from Python beside this.
//   build/bench/bench_document [--benchmark_filter=...]   (models from models/zoo)
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cmd_eval.hpp"
#include "cmd_predict.hpp"

namespace {

void PredictDocument(benchmark::State& state, const char* file, bool layers) {
  perfpred::cli::PredictCmdOptions o;
  o.model = (std::filesystem::path(PERFPRED_SOURCE_ROOT) / "models" / "zoo" / file).string();
  o.gpu = "a100-sxm4-40gb";
  o.layers = layers;
  o.no_meta = true;
  for (auto _ : state) {
    std::string text = perfpred::cli::predict_document_with_model(o, {}, false).dump(2) + "\n";
    benchmark::DoNotOptimize(text.data());
  }
}

}  // namespace

BENCHMARK_CAPTURE(PredictDocument, resnet50_layers, "resnet50.onnx", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(PredictDocument, resnet50_totals, "resnet50.onnx", false)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();

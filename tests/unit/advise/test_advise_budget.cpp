#include <gtest/gtest.h>

#include <vector>

#include <fstream>

#include "advise_test_util.hpp"
#include "perfpred/advise/budget.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::advise;
using nlohmann::json;

namespace {

json entry(const std::string& name, json limits) {
  return {{"name", name}, {"model", "models/net.onnx"}, {"gpu", "t4"}, {"batch", 4}, {"limits", limits}};
}

// A vector, not a json: `file_with({one_entry})` must be an array of one under every compiler (a braced
// single element initialising a json is the element itself under clang, an array under gcc).
json file_with(std::vector<json> entries) { return {{"schema_version", 1}, {"entries", json(entries)}}; }

// The message of the InputError parse_budget_json throws, or "" when it does not throw.
std::string error_of(const json& j) {
  try {
    parse_budget_json(j, "ci/budgets.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

ModelLoader text_loader() {
  return [](const BudgetEntry& e) {
    if (e.model_path.filename() != "net.onnx") throw InputError(e.model_path.string() + ": model file not found");
    return test::analysed_text(test::cnn_text(32, 32), e.batch);
  };
}

DeviceResolver catalog_resolver() {
  return [](const std::string& id) { return GpuCatalog::instance().resolve(id); };
}

}  // namespace

TEST(BudgetParse, ValidFile) {
  json j = file_with({entry("a", {{"latency_ms", 30}}),
                      {{"name", "b"},
                       {"model", "/abs/net.onnx"},
                       {"gpu", "a100-sxm4-40gb"},
                       {"precision", "fp16"},
                       {"mode", "training"},
                       {"runtime", "pytorch"},
                       {"optimizer", "adam"},
                       {"input_shapes", {{"input", {2, 3, 32, 32}}}},
                       {"branches", {{"gate", "else"}}},
                       {"loop_trips", {{"steps", 0}, {"scan", 12}}},
                       {"limits", {{"peak_memory_fraction", 0.5}, {"energy_mj", 100}, {"min_throughput_samples_per_s", 10}}}}});
  auto f = parse_budget_json(j, "ci/budgets.json");
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].model_path, std::filesystem::path("ci/models/net.onnx"));  // relative to the file
  EXPECT_EQ(f.entries[0].options.batch, 4);
  EXPECT_EQ(f.entries[0].options.precision, Precision::fp32);
  EXPECT_EQ(f.entries[1].model_path, std::filesystem::path("/abs/net.onnx"));
  EXPECT_EQ(f.entries[1].options.precision, Precision::fp16);
  EXPECT_EQ(f.entries[1].options.mode, Mode::training);
  EXPECT_EQ(f.entries[1].options.optimizer, Optimizer::adam);
  EXPECT_EQ(f.entries[1].input_shapes.at("input"), (std::vector<int64_t>{2, 3, 32, 32}));
  EXPECT_EQ(*f.entries[1].limits.peak_memory_fraction, 0.5);
  EXPECT_TRUE(f.entries[0].branches.empty());
  EXPECT_EQ(f.entries[1].branches, (std::map<std::string, std::string>{{"gate", "else"}}));
  EXPECT_EQ(f.entries[1].loop_trips, (std::map<std::string, int64_t>{{"scan", 12}, {"steps", 0}}));
}

TEST(BudgetParse, AllowTf32) {
  json off = entry("off", {{"latency_ms", 30}});
  off["allow_tf32"] = false;
  json on = entry("on", {{"latency_ms", 30}});
  on["allow_tf32"] = true;
  json half = entry("half", {{"latency_ms", 30}});
  half["precision"] = "fp16";
  half["allow_tf32"] = true;  // true is the default: any precision takes it
  auto f = parse_budget_json(file_with({entry("default", {{"latency_ms", 30}}), off, on, half}), "ci/budgets.json");
  ASSERT_EQ(f.entries.size(), 4u);
  EXPECT_TRUE(f.entries[0].options.allow_tf32);
  EXPECT_FALSE(f.entries[1].options.allow_tf32);
  EXPECT_TRUE(f.entries[2].options.allow_tf32);
  EXPECT_TRUE(f.entries[3].options.allow_tf32);
  // The verdict echoes it where it is off, as predict --json does.
  const json v = budget_verdict_json(check_budgets(f, text_loader(), catalog_resolver()));
  EXPECT_FALSE(v["entries"][0].contains("allow_tf32"));
  EXPECT_EQ(v["entries"][1]["allow_tf32"], false);
  EXPECT_FALSE(v["entries"][2].contains("allow_tf32"));
}

/// A boolean field of a budget entry that turns one PredictOptions flag (false by default) on: absent keeps it off,
/// true sets it (the verdict echoes it only then) and moves the host-bound batch-1 latency the way `faster` says,
/// any non-boolean is exit 2 naming the entry and the field.
void check_boolean_option(const std::string& field, bool PredictOptions::*flag, bool faster) {
  SCOPED_TRACE(field);
  json on = entry("on", {{"latency_ms", 30}});
  on[field] = true;
  auto f = parse_budget_json(file_with({entry("off", {{"latency_ms", 30}}), on}), "ci/budgets.json");
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_FALSE(f.entries[0].options.*flag);
  EXPECT_TRUE(f.entries[1].options.*flag);
  const auto results = check_budgets(f, text_loader(), catalog_resolver());
  const double off_ms = results.results[0].prediction.latency_ms, on_ms = results.results[1].prediction.latency_ms;
  EXPECT_TRUE(faster ? on_ms < off_ms : on_ms > off_ms) << off_ms << " ms off, " << on_ms << " ms on";
  const json v = budget_verdict_json(results);
  EXPECT_FALSE(v["entries"][0].contains(field));
  EXPECT_EQ(v["entries"][1][field], true);
  for (const json& bad : {json("yes"), json(1)}) {
    on[field] = bad;
    try {
      parse_budget_json(file_with({on}), "ci/budgets.json");
      ADD_FAILURE() << "a non-boolean " << field << " was accepted: " << bad.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("entries[0]"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
}

TEST(BudgetParse, LaunchQueue) {
  // An entry whose harness synchronises per layer (--launch-queue 1): read, echoed in the verdict only where it is
  // set, never faster than no limit; anything but an integer from 0 to 65536 is exit 2 naming the entry and field.
  json one = entry("one", {{"latency_ms", 30}});
  one["launch_queue"] = 1;
  json zero = entry("zero", {{"latency_ms", 30}});
  zero["launch_queue"] = 0;
  auto f = parse_budget_json(file_with({entry("default", {{"latency_ms", 30}}), one, zero}), "ci/budgets.json");
  ASSERT_EQ(f.entries.size(), 3u);
  EXPECT_EQ(f.entries[0].options.launch_queue, 0);
  EXPECT_EQ(f.entries[1].options.launch_queue, 1);
  EXPECT_EQ(f.entries[2].options.launch_queue, 0);
  const auto results = check_budgets(f, text_loader(), catalog_resolver());
  EXPECT_GE(results.results[1].prediction.latency_ms, results.results[0].prediction.latency_ms);
  const json v = budget_verdict_json(results);
  EXPECT_FALSE(v["entries"][0].contains("launch_queue"));
  EXPECT_EQ(v["entries"][1]["launch_queue"], 1);
  EXPECT_FALSE(v["entries"][2].contains("launch_queue"));
  for (const json& bad : {json(-1), json(65537), json(1.5), json("1"), json(true)}) {
    one["launch_queue"] = bad;
    try {
      parse_budget_json(file_with({one}), "ci/budgets.json");
      ADD_FAILURE() << "launch_queue " << bad.dump() << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("entries[0]"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("field 'launch_queue'"), std::string::npos) << e.what();
    }
  }
}

TEST(BudgetParse, CudaGraphsAndGradMode) {
  // An entry replayed as a CUDA graph (--cuda-graphs) drops the host cost per kernel: faster at batch 1. One whose
  // service calls the model without torch.no_grad() (--grad-mode) records autograd in every forward op: slower.
  check_boolean_option("cuda_graphs", &PredictOptions::cuda_graphs, true);
  check_boolean_option("grad_mode", &PredictOptions::grad_mode, false);
  // grad_mode describes inference: on a training entry it is exit 2 naming the entry and the field.
  json training = entry("t", {{"latency_ms", 30}});
  training["mode"] = "training";
  training["grad_mode"] = true;
  const std::string msg = error_of(file_with({training}));
  EXPECT_NE(msg.find("entries[0]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("field 'grad_mode'"), std::string::npos) << msg;
  // A combination only the planner refuses (TensorRT training) names the entry too.
  json trt = entry("trt", {{"latency_ms", 30}});
  trt["mode"] = "training";
  trt["runtime"] = "tensorrt";
  try {
    check_budgets(parse_budget_json(file_with({trt}), "ci/budgets.json"), text_loader(), catalog_resolver());
    ADD_FAILURE() << "TensorRT training was predicted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("entries[0]"), std::string::npos) << e.what();
  }
}

/// A string field of a budget entry that turns one PredictOptions flag (true by default) off: absent and
/// `standard` keep it, `other` clears it and is echoed in the verdict (the default is not), any other value or a
/// non-string is exit 2 naming the entry and the field. `settings` are fields every entry gets (mode, precision).
void expect_string_flag(const std::string& field, const std::string& standard, const std::string& other,
                        bool PredictOptions::*flag, const json& settings, const std::vector<json>& bad) {
  SCOPED_TRACE(field);
  auto with = [&](json e, const json& value) {
    for (const auto& [k, v] : settings.items()) e[k] = v;
    if (!value.is_null()) e[field] = value;
    return e;
  };
  const json off = with(entry(other, {{"latency_ms", 30}}), other);
  auto f = parse_budget_json(file_with({with(entry("default", {{"latency_ms", 30}}), nullptr),
                                        with(entry(standard, {{"latency_ms", 30}}), standard), off}),
                             "ci/budgets.json");
  ASSERT_EQ(f.entries.size(), 3u);
  EXPECT_TRUE(f.entries[0].options.*flag);
  EXPECT_TRUE(f.entries[1].options.*flag);
  EXPECT_FALSE(f.entries[2].options.*flag);
  const json v = budget_verdict_json(check_budgets(f, text_loader(), catalog_resolver()));
  EXPECT_FALSE(v["entries"][0].contains(field));
  EXPECT_FALSE(v["entries"][1].contains(field));
  EXPECT_EQ(v["entries"][2][field], other);
  for (const json& value : bad) {
    try {
      parse_budget_json(file_with({with(entry("bad", {{"latency_ms", 30}}), value)}), "ci/budgets.json");
      ADD_FAILURE() << field << " " << value.dump() << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("entries[0]"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
}

TEST(BudgetParse, Attention) {
  // "attention": "math" is --attention math (PyTorch eager attention as the exported nodes); "sdpa" or absent is
  // the fused default.
  expect_string_flag("attention", "sdpa", "math", &PredictOptions::fused_attention, json::object(),
                     {json("flash"), json(true)});
}

TEST(BudgetParse, ParamUpdates) {
  // "param_updates": "loop" is --param-updates loop (a PyTorch 1.x training step); "foreach" or absent the default.
  expect_string_flag("param_updates", "foreach", "loop", &PredictOptions::foreach_updates, {{"mode", "training"}},
                     {json("fused"), json(false)});
}

TEST(BudgetParse, MixedPrecision) {
  // "mixed_precision": "half" is --mixed-precision half (fp16 training of a model.half() model); "amp" or absent
  // the default.
  expect_string_flag("mixed_precision", "amp", "half", &PredictOptions::autocast,
                     {{"mode", "training"}, {"precision", "fp16"}}, {json("O2"), json(1)});
}

TEST(BudgetParse, ErrorsNameTheEntryAndField) {
  struct Case {
    json doc;
    std::vector<std::string> expect;  // substrings of the message
  };
  std::vector<Case> cases = {
      {json::array(), {"ci/budgets.json", "object"}},
      {{{"entries", json::array({entry("a", {{"latency_ms", 1}})})}}, {"schema_version"}},
      {{{"schema_version", 2}, {"entries", json::array({entry("a", {{"latency_ms", 1}})})}}, {"schema_version", "1"}},
      {{{"schema_version", 1}, {"entries", json::array()}}, {"entries", "empty"}},
      {{{"schema_version", 1}, {"entries", json::array()}, {"extra", 1}}, {"extra"}},
      {file_with({entry("a", {{"latency_ms", -5}})}), {"entries[0]", "\"a\"", "limits.latency_ms", "positive"}},
      {file_with({entry("a", {{"latency_ms", 5}}), entry("b", {{"latency_ms", "fast"}})}),
       {"entries[1]", "\"b\"", "limits.latency_ms"}},
      {file_with({entry("a", {{"latency_ms", 5}}), entry("a", {{"latency_ms", 5}})}), {"entries[1]", "name", "earlier"}},
      {file_with({entry("a", {{"latency", 5}})}), {"entries[0]", "limits.latency"}},
      {file_with({entry("a", json::object())}), {"entries[0]", "limits", "empty"}},
      {file_with({entry("a", {{"peak_memory_bytes", 1e9}, {"peak_memory_fraction", 0.5}})}), {"entries[0]", "not both"}},
      {file_with({entry("a", {{"peak_memory_fraction", 1.5}})}), {"entries[0]", "peak_memory_fraction"}},
      {file_with({{{"name", "a"}, {"gpu", "t4"}, {"limits", {{"latency_ms", 1}}}}}), {"entries[0]", "'model'"}},
      {file_with({{{"name", "a"}, {"model", "m.onnx"}, {"limits", {{"latency_ms", 1}}}}}), {"entries[0]", "'gpu'"}},
      {file_with({{{"model", "m.onnx"}, {"gpu", "t4"}, {"limits", {{"latency_ms", 1}}}}}), {"entries[0]", "'name'"}},
      {file_with({{{"name", "a"}, {"model", "m.onnx"}, {"gpu", "t4"}}}), {"entries[0]", "limits"}},
      {file_with({{{"name", "a"}, {"model", "m.onnx"}, {"gpu", "t4"}, {"batch", 0}, {"limits", {{"latency_ms", 1}}}}}),
       {"entries[0]", "batch"}},
      {file_with({{{"name", "a"}, {"model", "m.onnx"}, {"gpu", "t4"}, {"precision", "fp12"}, {"limits", {{"latency_ms", 1}}}}}),
       {"entries[0]", "precision", "fp12"}},
      {file_with({{{"name", "a"}, {"model", "m.onnx"}, {"gpu", "t4"}, {"gpus", "x"}, {"limits", {{"latency_ms", 1}}}}}),
       {"entries[0]", "unknown field 'gpus'"}},
      {file_with({{{"name", "a"}, {"model", "m.onnx"}, {"gpu", "t4"}, {"input_shapes", {{"input", {1, -3}}}},
                   {"limits", {{"latency_ms", 1}}}}}),
       {"entries[0]", "input_shapes.input"}},
  };
  // branches and loop_trips: the entry and the key named, the value shown.
  auto with = [](const char* key, json v) {
    json e = entry("a", {{"latency_ms", 1}});
    e[key] = v;
    return file_with({e});
  };
  cases.push_back({with("branches", {{"gate", "maybe"}}), {"ci/budgets.json", "entries[0]", "branches.gate", "\"maybe\""}});
  cases.push_back({with("branches", {{"gate", true}}), {"entries[0]", "branches.gate", "then"}});
  cases.push_back({with("branches", json::array({"gate"})), {"entries[0]", "branches must be an object"}});
  cases.push_back({with("branches", {{"", "then"}}), {"entries[0]", "empty If name"}});
  cases.push_back({with("loop_trips", {{"steps", -1}}), {"entries[0]", "loop_trips.steps", ">= 0", "-1"}});
  cases.push_back({with("loop_trips", {{"steps", "3"}}), {"entries[0]", "loop_trips.steps", "integer"}});
  cases.push_back({with("loop_trips", {{"steps", 2.5}}), {"entries[0]", "loop_trips.steps", "integer"}});
  cases.push_back({with("loop_trips", 3), {"entries[0]", "loop_trips must be an object"}});
  // allow_tf32: a boolean, false only at fp32 (as --no-tf32).
  cases.push_back({with("allow_tf32", "no"), {"entries[0]", "'allow_tf32'", "true or false", "\"no\""}});
  cases.push_back({with("allow_tf32", 0), {"entries[0]", "'allow_tf32'", "true or false"}});
  {
    json e = entry("a", {{"latency_ms", 1}});
    e["precision"] = "fp16";
    e["allow_tf32"] = false;
    cases.push_back({file_with({e}), {"entries[0]", "'allow_tf32'", "fp32 only", "fp16"}});
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string msg = error_of(cases[i].doc);
    ASSERT_FALSE(msg.empty()) << "case " << i << " did not throw";
    for (const auto& s : cases[i].expect) EXPECT_NE(msg.find(s), std::string::npos) << "case " << i << ": " << msg;
  }
}

TEST(BudgetParse, FileErrors) {
  EXPECT_THROW(parse_budget_file("/nonexistent/budgets.json"), InputError);
  auto tmp = std::filesystem::temp_directory_path() / "perfpred_budget_bad.json";
  {
    std::ofstream(tmp) << "{ not json";
  }
  try {
    parse_budget_file(tmp);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
  std::filesystem::remove(tmp);
}

TEST(BudgetCheck, PassFailAndMargins) {
  // First learn the prediction, then set limits around it.
  auto m = test::analysed_text(test::cnn_text(32, 32), 4);
  PredictOptions o;
  o.batch = 4;
  GpuSpec t4 = GpuCatalog::instance().resolve("t4");
  Prediction p = predict(m->graph, m->cost, t4, o);
  json j = file_with({entry("loose", {{"latency_ms", p.latency_ms * 2}, {"peak_memory_fraction", 0.9}}),
                      entry("tight", {{"latency_ms", p.latency_ms / 2}, {"min_throughput_samples_per_s", p.throughput_samples_per_s * 4}}),
                      entry("energy", {{"energy_mj", p.energy_mj * 1.25}, {"peak_memory_bytes", p.peak_memory_bytes / 2}})});
  auto f = parse_budget_json(j, "budgets.json");
  auto rep = check_budgets(f, text_loader(), catalog_resolver());
  ASSERT_EQ(rep.results.size(), 3u);
  EXPECT_TRUE(rep.results[0].passed());
  EXPECT_NEAR(rep.results[0].checks[0].margin_pct, 50, 1e-9);
  EXPECT_EQ(rep.results[0].checks[1].limit, "peak_memory_fraction");
  EXPECT_NEAR(rep.results[0].checks[1].limit_value, 0.9 * t4.memory_bytes(), 1);
  EXPECT_FALSE(rep.results[1].passed());
  EXPECT_NEAR(rep.results[1].checks[0].margin_pct, -100, 1e-9);
  EXPECT_NEAR(rep.results[1].checks[1].margin_pct, -75, 1e-9);
  // Checks come in a fixed order: latency, throughput, memory, energy.
  EXPECT_EQ(rep.results[2].checks[0].limit, "peak_memory_bytes");
  EXPECT_FALSE(rep.results[2].checks[0].passed);
  EXPECT_NEAR(rep.results[2].checks[0].margin_pct, -100, 1e-9);
  EXPECT_EQ(rep.results[2].checks[1].limit, "energy_mj");
  EXPECT_TRUE(rep.results[2].checks[1].passed);
  EXPECT_NEAR(rep.results[2].checks[1].margin_pct, 20, 1e-9);
  EXPECT_FALSE(rep.passed());
  EXPECT_EQ(rep.failed_entries(), 2u);
  std::string text = budget_text(rep);
  EXPECT_NE(text.find("PASS  loose"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL  tight"), std::string::npos) << text;
  EXPECT_NE(text.find("3 entries, 1 passed, 2 failed"), std::string::npos) << text;
  // Deterministic JSON.
  auto rep2 = check_budgets(f, text_loader(), catalog_resolver());
  EXPECT_EQ(budget_verdict_json(rep).dump(2), budget_verdict_json(rep2).dump(2));
  auto v = budget_verdict_json(rep);
  EXPECT_EQ(v["schema_version"], 1);
  EXPECT_EQ(v["passed"], false);
  EXPECT_EQ(v["summary"]["failed"], 2);
  EXPECT_FALSE(v.contains("meta"));
}

TEST(BudgetCheck, LoadErrorsNameTheEntry) {
  json bad_model = file_with({entry("a", {{"latency_ms", 5}}),
                              {{"name", "b"}, {"model", "missing.onnx"}, {"gpu", "t4"}, {"limits", {{"latency_ms", 5}}}}});
  try {
    check_budgets(parse_budget_json(bad_model, "budgets.json"), text_loader(), catalog_resolver());
    FAIL();
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("entries[1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'model'"), std::string::npos) << msg;
  }
  json bad_gpu = file_with({{{"name", "a"}, {"model", "net.onnx"}, {"gpu", "t5"}, {"limits", {{"latency_ms", 5}}}}});
  try {
    check_budgets(parse_budget_json(bad_gpu, "budgets.json"), text_loader(), catalog_resolver());
    FAIL();
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("entries[0]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'gpu'"), std::string::npos) << msg;
  }
}

namespace {
// The prediction the range tests check: the test CNN on a T4 at batch 4 (as text_loader() loads it).
Prediction ranged_prediction() {
  auto m = test::analysed_text(test::cnn_text(32, 32), 4);
  PredictOptions o;
  o.batch = 4;
  return predict(m->graph, m->cost, GpuCatalog::instance().resolve("t4"), o);
}

// A range table whose one latency regime, "eager", spans 0.7-1.5x.
IntervalTable range_table() {
  IntervalTable t;
  t.nominal_coverage = 0.8;
  t.held_out_coverage = 0.8;
  t.tail_mass = 0.05;
  t.host_share_bins = {0.05, 0.4};
  t.regimes["eager"] = {100, 0.7, 1.5};
  return t;
}
}  // namespace

TEST(BudgetCheck, LatencyRangeHighChecksTheRangesHighEnd) {
  const Prediction p = ranged_prediction();
  IntervalTable t = range_table();
  // The prediction passes a latency limit 1.2x itself, and fails the same limit on the range's high end (1.5x).
  json j = file_with({entry("a", {{"latency_ms", p.latency_ms * 1.2}, {"latency_range_high_ms", p.latency_ms * 1.2}}),
                      entry("b", {{"latency_range_high_ms", p.latency_ms * 2}})});
  const auto f = parse_budget_json(j, "budgets.json");
  const auto rep = check_budgets(f, text_loader(), catalog_resolver(), nullptr, &t);
  ASSERT_EQ(rep.results[0].checks.size(), 2u);
  EXPECT_TRUE(rep.results[0].checks[0].passed);
  EXPECT_EQ(rep.results[0].checks[1].limit, "latency_range_high_ms");
  EXPECT_NEAR(rep.results[0].checks[1].value, p.latency_ms * 1.5, 1e-9);
  EXPECT_FALSE(rep.results[0].checks[1].passed);
  EXPECT_NEAR(rep.results[0].checks[1].margin_pct, -25, 1e-9);
  EXPECT_TRUE(rep.results[1].passed());
  EXPECT_NE(budget_text(rep).find("latency range high"), std::string::npos);
  // No table, or a table without a regime for the prediction: the entry and the limit are named.
  for (const IntervalTable* table : {static_cast<const IntervalTable*>(nullptr), static_cast<const IntervalTable*>(&t)}) {
    IntervalTable empty = t;
    empty.regimes.clear();
    try {
      check_budgets(f, text_loader(), catalog_resolver(), nullptr, table ? &empty : nullptr);
      FAIL();
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("entries[0] (\"a\"): limits.latency_range_high_ms: "), std::string::npos) << msg;
      EXPECT_NE(msg.find(table ? "no regime" : "models/latency-intervals.json"), std::string::npos) << msg;
    }
  }
}

TEST(BudgetCheck, EnergyRangeHighChecksTheEnergyRangesHighEnd) {
  const Prediction p = ranged_prediction();
  IntervalTable t = range_table();
  json j = file_with({entry("a", {{"energy_mj", p.energy_mj * 1.2}, {"energy_range_high_mj", p.energy_mj * 1.2}})});
  const auto f = parse_budget_json(j, "budgets.json");
  // The table has no energy section: the entry and the limit are named.
  try {
    check_budgets(f, text_loader(), catalog_resolver(), nullptr, &t);
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("entries[0] (\"a\"): limits.energy_range_high_mj: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("no energy range"), std::string::npos) << msg;
  }
  MetricRanges energy;
  energy.machines = 5;
  energy.held_out_coverage = 0.81;
  energy.regimes["all"] = {296, 0.8, 1.5};
  t.energy = energy;
  // The prediction passes an energy limit 1.2x itself, and fails it on the energy range's high end (1.5x).
  const auto rep = check_budgets(f, text_loader(), catalog_resolver(), nullptr, &t);
  ASSERT_EQ(rep.results[0].checks.size(), 2u);
  EXPECT_TRUE(rep.results[0].checks[0].passed);
  EXPECT_EQ(rep.results[0].checks[1].limit, "energy_range_high_mj");
  EXPECT_NEAR(rep.results[0].checks[1].value, p.energy_mj * 1.5, 1e-6);
  EXPECT_FALSE(rep.results[0].checks[1].passed);
  EXPECT_NE(budget_text(rep).find("energy range high"), std::string::npos);
}

TEST(BudgetCheck, AveragePowerAndItsRangesHighEnd) {
  const Prediction p = ranged_prediction();
  IntervalTable t = range_table();
  json j = file_with({entry("a", {{"avg_power_w", p.avg_power_w * 1.2}, {"power_range_high_w", p.avg_power_w * 1.2}}),
                      entry("b", {{"avg_power_w", p.avg_power_w * 0.9}})});
  const auto f = parse_budget_json(j, "budgets.json");
  try {  // no power section in the table: the entry and the limit are named
    check_budgets(f, text_loader(), catalog_resolver(), nullptr, &t);
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("entries[0] (\"a\"): limits.power_range_high_w: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("no power range"), std::string::npos) << msg;
  }
  MetricRanges power;
  power.machines = 5;
  power.held_out_coverage = 0.81;
  power.regimes["all"] = {296, 0.9, 1.4};
  t.power = power;
  const auto rep = check_budgets(f, text_loader(), catalog_resolver(), nullptr, &t);
  ASSERT_EQ(rep.results[0].checks.size(), 2u);
  EXPECT_EQ(rep.results[0].checks[0].limit, "avg_power_w");
  EXPECT_TRUE(rep.results[0].checks[0].passed);  // 1.2x the prediction holds the prediction...
  EXPECT_EQ(rep.results[0].checks[1].limit, "power_range_high_w");
  EXPECT_NEAR(rep.results[0].checks[1].value, p.avg_power_w * 1.4, 1e-9);
  EXPECT_FALSE(rep.results[0].checks[1].passed);  // ...but not its range's high end
  EXPECT_FALSE(rep.results[1].passed());          // a limit under the prediction fails
  EXPECT_NE(budget_text(rep).find("average power"), std::string::npos);
  EXPECT_NE(budget_text(rep).find("power range high"), std::string::npos);
}

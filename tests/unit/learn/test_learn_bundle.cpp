#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/model.hpp"
#include "perfpred/learn/train.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::learn;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("perfpred_learn_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

Bundle small_bundle() {
  std::vector<KernelSample> samples;
  for (int i = 0; i < 200; ++i) {
    KernelSample s;
    s.gpu.id = i % 2 ? "gpu-a" : "gpu-b";
    s.gpu.sm_count = i % 2 ? 40 : 80;
    s.kernel.family = OpFamily::gemm;
    s.kernel.op = "MatMul";
    s.kernel.gemm = GemmShape{1, 64 + i, 128, 256};
    s.kernel.flops = 2.0 * (64 + i) * 128 * 256;
    s.kernel.time_s = s.kernel.flops / 1e13;
    s.measured_s = s.kernel.time_s * (1.2 + 0.001 * i);
    samples.push_back(s);
  }
  TrainOptions o;
  o.nthread = 1;  // tests run in parallel: no OpenMP team spinning on a busy machine
  o.rounds = 60;
  o.eta = 0.2;
  Bundle b;
  b.name = "roundtrip";
  train_kernel_models(samples, o, b);
  b.gpus_seen = {"gpu-a", "gpu-b"};
  b.sources = {{"synthetic", "x.csv", "perfpred-measured", 200}};
  b.train_rows = 200;
  b.rows_hash = "fnv1a64:0123";
  b.created_by = "test";
  b.params = to_json(o);
  return b;
}

void write_json(const fs::path& p, const nlohmann::json& j) {
  std::ofstream(p) << j.dump();
}

}  // namespace

TEST(LearnBundle, Base64RoundTrip) {
  for (std::string s : {std::string(""), std::string("f"), std::string("fo"), std::string("foo"),
                        std::string("foob"), std::string("fooba"), std::string("foobar"), std::string("\0\xff\x10", 3)})
    EXPECT_EQ(base64_decode(base64_encode(s), "t"), s);
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_THROW(base64_decode("Zm9", "t"), InputError);
  EXPECT_THROW(base64_decode("Z!9v", "t"), InputError);
  // Padding only at the very end; a bad byte in a long body is found at its offset.
  EXPECT_THROW(base64_decode("Zm8=Zm9v", "t"), InputError);
  EXPECT_THROW(base64_decode("Zm9vYmFy====", "t"), InputError);
  std::string big;
  for (int i = 0; i < 100000; ++i) big += static_cast<char>((i * 131 + 7) & 255);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{2}}) {
    const std::string s = big.substr(0, big.size() - cut);
    EXPECT_EQ(base64_decode(base64_encode(s), "t"), s);
  }
  std::string bad = base64_encode(big);
  bad[4001] = '*';
  try {
    base64_decode(bad, "blob");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("offset 4001"), std::string::npos) << e.what();
  }
}

TEST(LearnBundle, HashIsStable) {
  Fnv1a64 h;
  h.update("a");
  EXPECT_EQ(h.hex(), "af63dc4c8601ec8c");  // FNV-1a 64 of "a"
}

TEST(LearnBundle, SaveLoadRoundTrip) {
  const auto dir = temp_dir();
  const auto path = dir / "b.json";
  const Bundle b = small_bundle();
  save_bundle(b, path);
  const Bundle c = load_bundle(path);
  EXPECT_EQ(c.name, "roundtrip");
  EXPECT_EQ(c.target, Target::latency);
  EXPECT_EQ(c.kernel_models.size(), b.kernel_models.size());
  // Read from a file, a booster is decoded on first use; its bytes are the ones saved.
  EXPECT_TRUE(c.kernel_models.at("gemm").ubj.empty());
  EXPECT_EQ(c.kernel_models.at("gemm").bytes(), b.kernel_models.at("gemm").bytes());
  EXPECT_EQ(c.gpus_seen, b.gpus_seen);
  EXPECT_EQ(c.sources.size(), 1u);
  EXPECT_EQ(c.sources[0].licence, "perfpred-measured");
  EXPECT_EQ(c.rows_hash, "fnv1a64:0123");
  EXPECT_TRUE(c.for_shipping);

  // Same predictions before and after the round trip.
  KernelEstimate k;
  k.family = OpFamily::gemm;
  k.op = "MatMul";
  k.gemm = GemmShape{1, 100, 128, 256};
  k.flops = 2.0 * 100 * 128 * 256;
  k.time_s = k.flops / 1e13;
  GpuSpec g;
  g.id = "gpu-a";
  g.sm_count = 40;
  LearnedModel m1(b), m2(c);
  EXPECT_DOUBLE_EQ(m1.kernel_log_ratios({k}, g, {})[0], m2.kernel_log_ratios({k}, g, {})[0]);
  EXPECT_NEAR(std::exp(m2.kernel_log_ratios({k}, g, {})[0]), 1.3, 0.1);
  EXPECT_TRUE(m2.gpu_seen("gpu-a"));
  EXPECT_TRUE(m2.gpu_seen("gpu-a:1g.5gb"));
  EXPECT_FALSE(m2.gpu_seen("gpu-c"));
  fs::remove_all(dir);
}

TEST(LearnBundle, MismatchesAreInputErrors) {
  const auto dir = temp_dir();
  const auto j = to_json(small_bundle());
  auto expect_error = [&](nlohmann::json doc, const std::string& needle) {
    const auto p = dir / "bad.json";
    write_json(p, doc);
    try {
      load_bundle(p);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    }
  };
  // The document with one field set: a JSON pointer and its new value.
  const auto with = [&](const char* pointer, nlohmann::json value) {
    auto v = j;
    v[nlohmann::json::json_pointer(pointer)] = std::move(value);
    return v;
  };
  expect_error(with("/schema_version", 99), "schema_version 99");
  expect_error(with("/kernel_features/3", "renamed"), "kernel_features");
  auto v = j;
  v["kernel_features"].erase(v["kernel_features"].size() - 1);
  expect_error(v, "kernel_features");
  expect_error(with("/feature_version", 0), "feature_version");
  expect_error(with("/kind", "something"), "kind");
  // Fields of the wrong type name the field, never nlohmann's bare type_error (an internal error before).
  expect_error(with("/name", nlohmann::json::object()), "field 'name' must be a string");
  expect_error(with("/feature_version", 1e30), "field 'feature_version' must be an integer");
  expect_error(with("/for_shipping", "yes"), "field 'for_shipping' must be true or false");
  expect_error(with("/kind", nlohmann::json::array({1})), "kind");
  expect_error(with("/training/sources", nlohmann::json::array({nlohmann::json::array({1, 2})})),
               "training.sources[0]: each source must be an object");
  expect_error(with("/training/rows", -5), "field 'rows' must be a count >= 0");
  // A damaged booster is found when it is first used (a predict whose policy uses no booster never decodes
  // them), with the same error, and never reaches XGBoost (a cut buffer can crash it): the checksum catches it.
  auto expect_error_at_use = [&](nlohmann::json doc, const std::string& needle) {
    const auto p = dir / "bad.json";
    write_json(p, doc);
    const Bundle loaded = load_bundle(p);
    try {
      loaded.kernel_models.at("gemm").bytes();
      ADD_FAILURE() << "no error for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("kernel_models.gemm"), std::string::npos) << e.what();
    }
    // The same document given as JSON (no file to defer to) fails at once, and so does a bundle loaded to
    // predict with (a file the user names); only the shipped bundle predict consults by default defers.
    EXPECT_THROW(bundle_from_json(doc, "doc"), InputError) << needle;
    EXPECT_THROW(LearnedModel::load(p), InputError) << needle;
    EXPECT_NO_THROW(LearnedModel::load(p, LearnedModel::Boosters::on_use)) << needle;
  };
  v = j;
  v["kernel_models"]["gemm"]["booster_ubj_base64"] = "abc";
  expect_error_at_use(v, "base64");
  v = j;
  {
    std::string bytes = "cut";
    v["kernel_models"]["gemm"]["booster_ubj_base64"] = base64_encode(bytes);
  }
  expect_error_at_use(v, "do not match its booster_checksum");
  v = j;
  v["kernel_models"]["gemm"].erase("booster_checksum");
  expect_error(v, "no booster_checksum");
  v = j;
  v["kernel_models"]["gemm"]["train_rows"] = "abc";
  expect_error(v, "train_rows");
  // Bytes that match their checksum but are not an XGBoost model: found when XGBoost loads them.
  v = j;
  v["kernel_models"]["gemm"]["booster_ubj_base64"] = base64_encode("not a model");
  {
    Fnv1a64 h;
    h.update("not a model");
    v["kernel_models"]["gemm"]["booster_checksum"] = "fnv1a64:" + h.hex();
  }
  {
    const auto p = dir / "bad.json";
    write_json(p, v);
    auto m = LearnedModel::load(p);  // boosters load lazily: the error comes at first use
    KernelEstimate k;
    k.family = OpFamily::gemm;
    k.time_s = 1e-5;
    EXPECT_THROW(m->kernel_log_ratios({k}, GpuSpec{}, {}), InputError);
  }
  {
    const auto p = dir / "notjson.json";
    std::ofstream(p) << "{ not json";
    EXPECT_THROW(load_bundle(p), InputError);
  }
  EXPECT_THROW(load_bundle(dir / "missing.json"), InputError);
  fs::remove_all(dir);
}

// XGBoost is loaded with dlopen on first use (src/learn/xgb.cpp). A fresh process (threadsafe death-test
// style re-executes this binary) with PERFPRED_XGBOOST_LIBRARY pointing nowhere gets one InputError naming
// the variable at the first booster it loads, not a crash, and does not fall back to another library.
namespace {
[[noreturn]] void load_booster_with_a_wrong_override() {
  ::setenv("PERFPRED_XGBOOST_LIBRARY", "/nonexistent/libxgboost.so", 1);
  Bundle b;
  b.name = "override";
  b.host_models["pytorch"] = BoosterBlob{"not a model", 1, 0.0, {}};
  LearnedModel m(std::move(b));
  PredictOptions o;
  o.runtime = Runtime::pytorch;
  try {
    m.host_overhead_s(1e-3, GpuSpec{}, o);
  } catch (const InputError& e) {
    const std::string w = e.what();
    const bool named = w.find("PERFPRED_XGBOOST_LIBRARY") != std::string::npos &&
                       w.find("/nonexistent/libxgboost.so") != std::string::npos;
    std::_Exit(named ? 0 : 3);
  } catch (...) {
    std::_Exit(5);
  }
  std::_Exit(4);
}
}  // namespace

TEST(LearnXgbLibrary, AWrongOverrideIsAnInputErrorAtFirstUse) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(load_booster_with_a_wrong_override(), ::testing::ExitedWithCode(0), "");
}

#include <gtest/gtest.h>

#include <regex>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/onnx/importer.hpp"
#include "perfpred/report/html.hpp"
#include "perfpred/report/json.hpp"
#include "perfpred/report/text.hpp"

using namespace perfpred;
using namespace perfpred::report;

namespace {

Graph text(const std::string& body) {
  return onnx_import::import_text("<ir_version: 8, opset_import: [\"\" : 13]>\n" + body);
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(MemoryTimeline, ChainFreesAfterLastUse) {
  Graph g = text("g (float[1, 3, 8, 8] x) => (float[1, 3, 8, 8] y) { a = Relu (x)\n y = Relu (a) }");
  auto tl = memory_timeline(g, Precision::fp32);
  ASSERT_EQ(tl.size(), 2u);
  EXPECT_EQ(tl[0].live_bytes, 2 * 768);  // x and a
  EXPECT_EQ(tl[1].live_bytes, 2 * 768);  // a and y (x freed)
  auto half = memory_timeline(g, Precision::fp16);
  EXPECT_EQ(half[0].live_bytes, 768);
}

TEST(MemoryTimeline, BranchKeepsTheSkipAlive) {
  Graph g = text(
      "g (float[1, 4, 4, 4] x) => (float[1, 4, 4, 4] y) { a = Relu (x)\n b = Relu (a)\n c = Add (a, b)\n y = Relu (c) }");
  auto tl = memory_timeline(g, Precision::fp32);
  const double s = 256;
  ASSERT_EQ(tl.size(), 4u);
  EXPECT_EQ(tl[0].live_bytes, 2 * s);  // x, a
  EXPECT_EQ(tl[1].live_bytes, 2 * s);  // a, b
  EXPECT_EQ(tl[2].live_bytes, 3 * s);  // a, b, c
  EXPECT_EQ(tl[3].live_bytes, 2 * s);  // c, y
  EXPECT_EQ(tl[2].op, "Add");
}

TEST(MemoryTimeline, WeightsCountedApart) {
  Graph g = text("g (float[1, 8] x, float[4, 8] w) => (float[1, 4] y) { y = Gemm <transB = 1> (x, w) }");
  EXPECT_EQ(weight_bytes(g, Precision::fp32), 128);
  EXPECT_EQ(weight_bytes(g, Precision::fp16), 64);
  auto tl = memory_timeline(g, Precision::fp32);
  ASSERT_EQ(tl.size(), 1u);
  EXPECT_EQ(tl[0].live_bytes, 32 + 16);
}

TEST(HtmlReport, SelfContainedWithEveryLayerPlaced) {
  Graph g = text(
      "net (float[batch, 3, 32, 32] input, float[16, 3, 3, 3] w1, float[16, 16, 3, 3] w2, float[10, 16] fw) => "
      "(float[batch, 10] output) {\n"
      "  c1 = Conv <pads = [1, 1, 1, 1]> (input, w1)\n  r1 = Relu (c1)\n"
      "  c2 = Conv <pads = [1, 1, 1, 1]> (r1, w2)\n  r2 = Relu (c2)\n"
      "  p = GlobalAveragePool (r2)\n  f = Flatten (p)\n  output = Gemm <transB = 1> (f, fw)\n}\n");
  GraphCost cost = analyze(g);
  ReportInput in;
  in.title = "net.onnx <test>";
  in.model_path = "models/net.onnx";
  in.graph = &g;
  in.cost = &cost;
  for (const char* id : {"t4", "a100-sxm4-40gb"}) {
    GpuSpec gpu = GpuCatalog::instance().resolve(id);
    in.devices.push_back({gpu, predict(g, cost, gpu, in.options), std::nullopt, std::nullopt});
  }
  std::string h = render_html_report(in);
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("<link"), std::string::npos);
  EXPECT_EQ(h.find("<img"), std::string::npos);
  EXPECT_EQ(h.find("@import"), std::string::npos);
  // The only URL is the SVG namespace.
  std::regex url(R"(https?://[^"' ]+)");
  for (auto it = std::sregex_iterator(h.begin(), h.end(), url); it != std::sregex_iterator(); ++it)
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
  EXPECT_NE(h.find("net.onnx &lt;test&gt;"), std::string::npos);  // escaped title
  EXPECT_NE(h.find("Device comparison"), std::string::npos);
  EXPECT_NE(h.find("Memory timeline"), std::string::npos);
  EXPECT_EQ(count(h, "<h3>Roofline</h3>"), 2u);
  // One roofline marker per layer per device.
  size_t layers = in.devices[0].prediction.layers.size() + in.devices[1].prediction.layers.size();
  ASSERT_GT(layers, 0u);
  EXPECT_EQ(count(h, "<circle cx="), layers + 1);  // + the memory chart's peak marker
  EXPECT_EQ(count(h, "<svg"), count(h, "</svg>"));
  EXPECT_EQ(h, render_html_report(in));  // deterministic
  // Without ranges there is no range column and no whisker.
  EXPECT_EQ(h.find("latency range"), std::string::npos);
  EXPECT_EQ(count(h, "class=\"range\""), 0u);
  // A device with ranges: its cells, and a whisker per range on the latency and energy charts; the other "-".
  PredictionRange lr;
  lr.low = in.devices[0].prediction.latency_ms * 0.5;
  lr.high = in.devices[0].prediction.latency_ms * 2;
  lr.held_out_coverage = 0.8;
  PredictionRange er = lr;
  er.low = in.devices[0].prediction.energy_mj * 0.8;
  er.high = in.devices[0].prediction.energy_mj * 1.5;
  in.devices[0].latency_range = lr;
  in.devices[0].energy_range = er;
  h = render_html_report(in);
  EXPECT_NE(h.find("<th>latency range</th>"), std::string::npos);
  EXPECT_NE(h.find("<th>energy range</th>"), std::string::npos);
  EXPECT_NE(h.find("<td>" + fmt_fixed(er.low, 2) + "-" + fmt_fixed(er.high, 2) + " mJ</td>"), std::string::npos);
  EXPECT_EQ(count(h, "<td>-</td>"), 2u);  // the second device's two range cells
  EXPECT_EQ(count(h, "class=\"range\""), 2u);
  EXPECT_NE(h.find("% of held-out measurements on machines left out of the fit</title>"), std::string::npos);
  EXPECT_EQ(count(h, "<svg"), count(h, "</svg>"));
}

TEST(Json, PredictionKeysEqualFieldNames) {
  Prediction p;
  p.latency_ms = 2;
  p.layers.push_back({"c1", "Conv", 1, 1.5, 10, 20, Bound::memory});
  auto j = to_json(p);
  for (const char* k : {"latency_ms", "throughput_samples_per_s", "energy_mj", "avg_power_w", "peak_memory_bytes", "fits",
                        "memory_shortfall_bytes", "breakdown", "memory", "layers", "notes", "model_bundle"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["layers"][0]["bound"], "memory");
  EXPECT_FALSE(j.contains("kernels"));
  EXPECT_TRUE(to_json(p, true).contains("kernels"));
  EXPECT_TRUE(number_or_null(std::nan("")).is_null());
}

#include "perfpred/report/html.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "perfpred/report/text.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::report {
namespace {

// Colours per bound; also used in the legends.
const char* bound_colour(Bound b) {
  switch (b) {
    case Bound::compute: return "#3566c9";
    case Bound::memory: return "#e07b39";
    case Bound::launch: return "#8c8c8c";
  }
  return "#8c8c8c";
}

const char* k_device_colours[] = {"#3566c9", "#e07b39", "#2e9e5b", "#b8415a", "#7a54b8", "#a08a1c", "#2a9bb0", "#666666"};

const char* device_colour(size_t i) { return k_device_colours[i % (sizeof k_device_colours / sizeof *k_device_colours)]; }

std::string num(double v) { return fmt_fixed(v, 1); }

bool is_float(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64 || t == DType::f8; }

double tensor_bytes(const Tensor& t, Precision p) {
  auto n = t.numel();
  if (!n) return 0;
  double elem = is_float(t.dtype) ? element_bytes(p) : static_cast<double>(dtype_size(t.dtype));
  return static_cast<double>(*n) * elem;
}

std::string truncate(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 1) + "\xE2\x80\xA6";  // ellipsis
}

// Nice tick values on a log10 axis between lo and hi (powers of ten).
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> t;
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi)) return t;
  // At most 40 decades: a wider axis comes from a broken device or model, and would be a page of ticks.
  const int e0 = static_cast<int>(std::max(-300.0, std::floor(std::log10(lo))));
  const int e1 = std::min(e0 + 40, static_cast<int>(std::min(300.0, std::ceil(std::log10(hi)))));
  for (int e = e0; e <= e1; ++e) {
    double v = std::pow(10.0, e);
    if (v >= lo * 0.999 && v <= hi * 1.001) t.push_back(v);
  }
  return t;
}

// Linear ticks: about `n` round steps between 0 and hi.
std::vector<double> linear_ticks(double hi, int n) {
  std::vector<double> t;
  if (hi <= 0) return {0};
  double raw = hi / n;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  if (!std::isfinite(hi) || !(step > 0)) return {0};
  for (int i = 0; i <= 4 * n && i * step <= hi * 1.0001; ++i) t.push_back(i * step);
  return t;
}

std::string pow10_label(double v) {
  double e = std::log10(v);
  if (std::fabs(e - std::round(e)) < 1e-9) {
    int ie = static_cast<int>(std::round(e));
    if (ie >= -2 && ie <= 3) return fmt_exact(v);
    return "1e" + std::to_string(ie);
  }
  return fmt_si(v);
}

std::string layer_tooltip(const LayerPrediction& l) {
  return l.name + " (" + l.op + "): " + fmt_ms(l.time_ms) + ", " + fmt_si(l.flops) + "FLOP, " + fmt_bytes(l.bytes) +
         ", " + to_string(l.bound) + "-bound";
}

// --- sections ---------------------------------------------------------------------------------------

std::string layer_bars_svg(const Prediction& p, size_t max_bars) {
  std::vector<const LayerPrediction*> layers;
  for (const auto& l : p.layers) layers.push_back(&l);
  std::stable_sort(layers.begin(), layers.end(), [](auto* a, auto* b) { return a->time_ms > b->time_ms; });
  double rest_ms = 0;
  size_t rest_n = 0;
  if (layers.size() > max_bars) {
    for (size_t i = max_bars; i < layers.size(); ++i) {
      rest_ms += layers[i]->time_ms;
      ++rest_n;
    }
    layers.resize(max_bars);
  }
  double total = 0;
  for (const auto& l : p.layers) total += l.time_ms;
  // Scale to the slowest layer; the summed rest may be longer and is then drawn clipped at full width.
  double max_ms = 0;
  for (auto* l : layers) max_ms = std::max(max_ms, l->time_ms);
  if (max_ms <= 0) max_ms = rest_ms > 0 ? rest_ms : 1;
  const int label_w = 330, bar_w = 560, row_h = 18, top = 8;
  const int rows = static_cast<int>(layers.size() + (rest_n ? 1 : 0));
  const int h = top + rows * row_h + 10;
  const int w = label_w + bar_w + 170;
  std::string s = "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) +
                  "\" height=\"" + std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " +
                  std::to_string(h) + "\" role=\"img\" aria-label=\"per-layer time\">\n";
  auto bar = [&](int row, const std::string& label, double ms, const char* colour, const std::string& tip) {
    int y = top + row * row_h;
    double bw = std::clamp(bar_w * ms / max_ms, 1.0, static_cast<double>(bar_w));
    double share = total > 0 ? 100.0 * ms / total : 0;
    s += "<g><title>" + xml_escape(tip) + "</title>";
    s += "<text x=\"" + std::to_string(label_w - 6) + "\" y=\"" + std::to_string(y + 13) +
         "\" text-anchor=\"end\" class=\"lbl\">" + xml_escape(truncate(label, 48)) + "</text>";
    s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 2) + "\" width=\"" + num(bw) +
         "\" height=\"" + std::to_string(row_h - 4) + "\" fill=\"" + colour + "\"/>";
    s += "<text x=\"" + num(label_w + bw + 6) + "\" y=\"" + std::to_string(y + 13) + "\" class=\"val\">" +
         xml_escape(fmt_ms(ms)) + " (" + fmt_fixed(share, 1) + "%)</text></g>\n";
  };
  int row = 0;
  for (auto* l : layers) bar(row++, l->name + "  " + l->op, l->time_ms, bound_colour(l->bound), layer_tooltip(*l));
  if (rest_n)
    bar(row++, "other " + std::to_string(rest_n) + " layers", rest_ms, "#c9c9c9",
        std::to_string(rest_n) + " faster layers summed");
  s += "</svg>\n";
  return s;
}

std::string roofline_svg(const Prediction& p, const GpuSpec& gpu, Precision precision) {
  const double peak = gpu.peak_flops(precision);
  const double vec = gpu.vector_flops(precision);
  const double bw = gpu.mem_bandwidth_gbps * 1e9;
  struct Pt {
    double x, y;
    const LayerPrediction* l;
    bool floor;
  };
  std::vector<Pt> pts;
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const auto& l : p.layers) {
    if (l.flops > 0 && l.bytes > 0 && l.time_ms > 0) {
      double x = l.flops / l.bytes, y = l.flops / (l.time_ms * 1e-3);
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  }
  const double ridge = (peak > 0 && bw > 0) ? peak / bw : 1;
  if (xmax <= 0) {
    xmin = ridge / 100;
    xmax = ridge * 10;
    ymin = peak / 1e4;
    ymax = peak;
  }
  double x_lo = std::pow(10.0, std::floor(std::log10(std::min(xmin, ridge) / 2)));
  double x_hi = std::pow(10.0, std::ceil(std::log10(std::max(xmax, ridge) * 2)));
  double y_lo = std::pow(10.0, std::floor(std::log10(std::max(1.0, std::min(ymin, bw * x_lo) / 2))));
  double y_hi = std::pow(10.0, std::ceil(std::log10(std::max(ymax, peak) * 1.5)));
  // Layers without FLOPs or bytes cannot sit on log axes: they are drawn on the x-axis floor, hollow.
  size_t floored = 0;
  for (const auto& l : p.layers) {
    if (l.flops > 0 && l.bytes > 0 && l.time_ms > 0)
      pts.push_back({l.flops / l.bytes, l.flops / (l.time_ms * 1e-3), &l, false});
    else {
      double x = l.bytes > 0 && l.flops > 0 ? l.flops / l.bytes : x_lo;
      pts.push_back({std::clamp(x, x_lo, x_hi), y_lo, &l, true});
      ++floored;
    }
  }
  const int W = 760, H = 460, ml = 80, mr = 30, mt = 20, mb = 60;
  const double pw = W - ml - mr, ph = H - mt - mb;
  auto X = [&](double x) { return ml + pw * (std::log10(x) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo)); };
  auto Y = [&](double y) { return mt + ph * (1 - (std::log10(y) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo))); };
  std::string s = "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(W) +
                  "\" height=\"" + std::to_string(H) + "\" viewBox=\"0 0 " + std::to_string(W) + " " +
                  std::to_string(H) + "\" role=\"img\" aria-label=\"roofline\">\n";
  s += "<rect x=\"" + std::to_string(ml) + "\" y=\"" + std::to_string(mt) + "\" width=\"" + num(pw) + "\" height=\"" +
       num(ph) + "\" class=\"plot\"/>\n";
  for (double t : log_ticks(x_lo, x_hi)) {
    s += "<line x1=\"" + num(X(t)) + "\" x2=\"" + num(X(t)) + "\" y1=\"" + std::to_string(mt) + "\" y2=\"" +
         num(mt + ph) + "\" class=\"grid\"/><text x=\"" + num(X(t)) + "\" y=\"" + num(mt + ph + 16) +
         "\" text-anchor=\"middle\" class=\"tick\">" + pow10_label(t) + "</text>\n";
  }
  for (double t : log_ticks(y_lo, y_hi)) {
    s += "<line x1=\"" + std::to_string(ml) + "\" x2=\"" + num(ml + pw) + "\" y1=\"" + num(Y(t)) + "\" y2=\"" +
         num(Y(t)) + "\" class=\"grid\"/><text x=\"" + std::to_string(ml - 6) + "\" y=\"" + num(Y(t) + 4) +
         "\" text-anchor=\"end\" class=\"tick\">" + fmt_si(t) + "</text>\n";
  }
  s += "<text x=\"" + num(ml + pw / 2) + "\" y=\"" + std::to_string(H - 18) +
       "\" text-anchor=\"middle\" class=\"axis\">arithmetic intensity (FLOP/byte, log)</text>\n";
  s += "<text transform=\"translate(16," + num(mt + ph / 2) +
       ") rotate(-90)\" text-anchor=\"middle\" class=\"axis\">achieved FLOP/s (log)</text>\n";
  // Roofs: min(peak, bw * x), sampled at the ridge; clip to the plot.
  s += "<clipPath id=\"clip-" + xml_escape(gpu.id) + "\"><rect x=\"" + std::to_string(ml) + "\" y=\"" +
       std::to_string(mt) + "\" width=\"" + num(pw) + "\" height=\"" + num(ph) + "\"/></clipPath>\n";
  s += "<g clip-path=\"url(#clip-" + xml_escape(gpu.id) + ")\">";
  if (peak > 0 && bw > 0) {
    s += "<polyline class=\"roof\" points=\"" + num(X(x_lo)) + "," + num(Y(std::max(y_lo, bw * x_lo))) + " " +
         num(X(ridge)) + "," + num(Y(peak)) + " " + num(X(x_hi)) + "," + num(Y(peak)) + "\"/>";
    if (vec > 0 && vec < peak * 0.95) {
      double vr = vec / bw;
      s += "<polyline class=\"roof2\" points=\"" + num(X(std::max(x_lo, vr))) + "," + num(Y(vec)) + " " +
           num(X(x_hi)) + "," + num(Y(vec)) + "\"/>";
    }
  }
  for (const auto& pt : pts) {
    const char* c = bound_colour(pt.l->bound);
    std::string tip = layer_tooltip(*pt.l);
    if (pt.floor) tip += " (no FLOPs or no time: drawn on the axis floor)";
    s += "<circle cx=\"" + num(X(pt.x)) + "\" cy=\"" + num(Y(pt.y) - (pt.floor ? 4 : 0)) + "\" r=\"4\" " +
         (pt.floor ? std::string("fill=\"none\" stroke=\"") + c + "\"" : std::string("fill=\"") + c + "\" fill-opacity=\"0.75\"") +
         "><title>" + xml_escape(tip) + "</title></circle>";
  }
  s += "</g>\n";
  if (peak > 0) {
    s += "<text x=\"" + num(ml + pw - 4) + "\" y=\"" + num(Y(peak) - 6) + "\" text-anchor=\"end\" class=\"rooflbl\">" +
         xml_escape(to_string(precision)) + " peak " + fmt_si(peak) + "FLOP/s</text>\n";
    s += "<text x=\"" + num(X(ridge) + 6) + "\" y=\"" + num(Y(peak) + 16) + "\" class=\"rooflbl\">ridge " +
         fmt_fixed(ridge, 1) + " FLOP/B; " + fmt_fixed(gpu.mem_bandwidth_gbps, 0) + " GB/s</text>\n";
  }
  if (vec > 0 && vec < peak * 0.95)
    s += "<text x=\"" + num(ml + pw - 4) + "\" y=\"" + num(Y(vec) - 6) +
         "\" text-anchor=\"end\" class=\"rooflbl\">non-tensor " + fmt_si(vec) + "FLOP/s</text>\n";
  s += "</svg>\n";
  if (floored)
    s += "<p class=\"note\">" + std::to_string(floored) +
         " layer(s) without FLOPs (data movement, views) are drawn hollow on the bottom axis.</p>\n";
  return s;
}

std::string memory_timeline_svg(const std::vector<MemoryTimelinePoint>& tl, double weights,
                                 const std::vector<ReportDevice>& devices) {
  const int W = 1000, H = 340, ml = 80, mr = 20, mt = 20, mb = 60;
  const double pw = W - ml - mr, ph = H - mt - mb;
  double peak_act = 0;
  size_t peak_i = 0;
  for (size_t i = 0; i < tl.size(); ++i)
    if (tl[i].live_bytes > peak_act) {
      peak_act = tl[i].live_bytes;
      peak_i = i;
    }
  double top = weights + peak_act;
  // Draw a device's predicted peak and, when close enough to matter, its capacity.
  for (const auto& d : devices) top = std::max(top, d.prediction.peak_memory_bytes);
  double cap_shown = 0;
  for (const auto& d : devices)
    if (d.gpu.memory_bytes() <= top * 1.6) cap_shown = std::max(cap_shown, d.gpu.memory_bytes());
  top = std::max(top, cap_shown) * 1.08;
  if (top <= 0) top = 1;
  const size_t n = std::max<size_t>(tl.size(), 1);
  auto X = [&](double i) { return ml + pw * (n <= 1 ? 0.5 : i / (n - 1)); };
  auto Y = [&](double b) { return mt + ph * (1 - b / top); };
  std::string s = "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(W) +
                  "\" height=\"" + std::to_string(H) + "\" viewBox=\"0 0 " + std::to_string(W) + " " +
                  std::to_string(H) + "\" role=\"img\" aria-label=\"memory timeline\">\n";
  s += "<rect x=\"" + std::to_string(ml) + "\" y=\"" + std::to_string(mt) + "\" width=\"" + num(pw) + "\" height=\"" +
       num(ph) + "\" class=\"plot\"/>\n";
  for (double t : linear_ticks(top, 5)) {
    s += "<line x1=\"" + std::to_string(ml) + "\" x2=\"" + num(ml + pw) + "\" y1=\"" + num(Y(t)) + "\" y2=\"" +
         num(Y(t)) + "\" class=\"grid\"/><text x=\"" + std::to_string(ml - 6) + "\" y=\"" + num(Y(t) + 4) +
         "\" text-anchor=\"end\" class=\"tick\">" + fmt_bytes(t) + "</text>\n";
  }
  for (double t : linear_ticks(static_cast<double>(n - 1), 8)) {
    s += "<text x=\"" + num(X(t)) + "\" y=\"" + num(mt + ph + 16) + "\" text-anchor=\"middle\" class=\"tick\">" +
         fmt_fixed(t, 0) + "</text>\n";
  }
  s += "<text x=\"" + num(ml + pw / 2) + "\" y=\"" + std::to_string(H - 18) +
       "\" text-anchor=\"middle\" class=\"axis\">node in execution order</text>\n";
  // Weights band, then activations stacked on top.
  s += "<rect x=\"" + std::to_string(ml) + "\" y=\"" + num(Y(weights)) + "\" width=\"" + num(pw) + "\" height=\"" +
       num(Y(0) - Y(weights)) + "\" fill=\"#b9c9e8\"><title>weights " + fmt_bytes(weights) + "</title></rect>\n";
  if (!tl.empty()) {
    std::string pts = num(X(0)) + "," + num(Y(weights));
    for (size_t i = 0; i < tl.size(); ++i) pts += " " + num(X(static_cast<double>(i))) + "," + num(Y(weights + tl[i].live_bytes));
    pts += " " + num(X(static_cast<double>(n - 1))) + "," + num(Y(weights));
    s += "<polygon points=\"" + pts + "\" fill=\"#e07b39\" fill-opacity=\"0.55\" stroke=\"#c0602a\"/>\n";
    // Hover targets every node (thin invisible bars with a title).
    double slot = pw / n;
    for (size_t i = 0; i < tl.size(); ++i) {
      s += "<rect x=\"" + num(X(static_cast<double>(i)) - slot / 2) + "\" y=\"" + std::to_string(mt) + "\" width=\"" +
           num(slot) + "\" height=\"" + num(ph) + "\" fill=\"transparent\"><title>" +
           xml_escape(std::to_string(i) + " " + tl[i].name + " (" + tl[i].op + "): " + fmt_bytes(tl[i].live_bytes) +
                      " live activations") +
           "</title></rect>";
    }
    s += "\n<circle cx=\"" + num(X(static_cast<double>(peak_i))) + "\" cy=\"" + num(Y(weights + peak_act)) +
         "\" r=\"4\" fill=\"#b8415a\"/><text x=\"" + num(std::min(X(static_cast<double>(peak_i)) + 8, ml + pw - 260)) +
         "\" y=\"" + num(Y(weights + peak_act) - 8) + "\" class=\"rooflbl\">peak " + fmt_bytes(weights + peak_act) +
         " at " + xml_escape(truncate(tl[peak_i].name, 40)) + "</text>\n";
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    double pk = d.prediction.peak_memory_bytes;
    s += "<line x1=\"" + std::to_string(ml) + "\" x2=\"" + num(ml + pw) + "\" y1=\"" + num(Y(pk)) + "\" y2=\"" + num(Y(pk)) +
         "\" stroke=\"" + device_colour(i) + "\" stroke-dasharray=\"6 4\"><title>" +
         xml_escape(d.gpu.id + ": predicted peak " + fmt_bytes(pk) + " (with context and workspace)") + "</title></line>\n";
    if (d.gpu.memory_bytes() <= top)
      s += "<line x1=\"" + std::to_string(ml) + "\" x2=\"" + num(ml + pw) + "\" y1=\"" + num(Y(d.gpu.memory_bytes())) +
           "\" y2=\"" + num(Y(d.gpu.memory_bytes())) + "\" stroke=\"" + device_colour(i) +
           "\" stroke-width=\"2\"><title>" + xml_escape(d.gpu.id + " capacity " + fmt_bytes(d.gpu.memory_bytes())) +
           "</title></line>\n";
  }
  s += "</svg>\n";
  return s;
}

// One horizontal bar chart comparing devices on one metric; `ranges` (empty, or one per device with nullopt
// where a device has none) draws each range as a whisker over its bar, `fmt_value` writing its bounds.
std::string device_metric_svg(const std::string& title, const std::vector<ReportDevice>& devs,
                              const std::vector<double>& values, const std::vector<std::string>& labels,
                              const std::vector<double>& capacity,
                              const std::vector<std::optional<PredictionRange>>& ranges = {},
                              std::string (*fmt_value)(double) = nullptr) {
  const int label_w = 230, bar_w = 360, row_h = 22, top = 26;
  const int h = top + static_cast<int>(devs.size()) * row_h + 8, w = label_w + bar_w + 150;
  double mx = 0;
  for (double v : values) mx = std::max(mx, std::isfinite(v) ? v : 0);
  for (double c : capacity) mx = std::max(mx, c);
  for (const auto& r : ranges)
    if (r && std::isfinite(r->high)) mx = std::max(mx, r->high);
  if (mx <= 0) mx = 1;
  std::string s = "<svg class=\"chart small\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) +
                  "\" height=\"" + std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " +
                  std::to_string(h) + "\" role=\"img\" aria-label=\"" + xml_escape(title) + "\">\n";
  s += "<text x=\"4\" y=\"16\" class=\"ctitle\">" + xml_escape(title) + "</text>\n";
  for (size_t i = 0; i < devs.size(); ++i) {
    int y = top + static_cast<int>(i) * row_h;
    double v = std::isfinite(values[i]) ? values[i] : 0;
    double bw = std::max(1.0, bar_w * v / mx);
    s += "<text x=\"" + std::to_string(label_w - 6) + "\" y=\"" + std::to_string(y + 15) +
         "\" text-anchor=\"end\" class=\"lbl\">" + xml_escape(truncate(devs[i].gpu.id, 34)) + "</text>";
    if (!capacity.empty() && capacity[i] > 0)
      s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" +
           num(bar_w * capacity[i] / mx) + "\" height=\"" + std::to_string(row_h - 6) +
           "\" fill=\"none\" stroke=\"#999\" stroke-dasharray=\"3 2\"><title>capacity " + fmt_bytes(capacity[i]) +
           "</title></rect>";
    s += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" + num(bw) +
         "\" height=\"" + std::to_string(row_h - 6) + "\" fill=\"" + device_colour(i) + "\"/>";
    double right = std::max(bw, capacity.empty() ? 0.0 : bar_w * capacity[i] / mx);
    if (i < ranges.size() && ranges[i]) {
      const double x0 = label_w + bar_w * ranges[i]->low / mx, x1 = label_w + bar_w * ranges[i]->high / mx;
      const std::string ym = std::to_string(y + row_h / 2), ya = std::to_string(y + 6), yb = std::to_string(y + row_h - 6);
      s += "<g class=\"range\" stroke=\"#333\"><title>range " +
           xml_escape(fmt_value ? fmt_value(ranges[i]->low) : fmt_given(ranges[i]->low)) + " to " +
           xml_escape(fmt_value ? fmt_value(ranges[i]->high) : fmt_given(ranges[i]->high)) + ": " + fmt_fixed(100 * ranges[i]->held_out_coverage, 0) +
           "% of held-out measurements on machines left out of the fit</title><line x1=\"" + num(x0) + "\" y1=\"" + ym +
           "\" x2=\"" + num(x1) + "\" y2=\"" + ym + "\"/><line x1=\"" + num(x0) + "\" y1=\"" + ya + "\" x2=\"" + num(x0) +
           "\" y2=\"" + yb + "\"/><line x1=\"" + num(x1) + "\" y1=\"" + ya + "\" x2=\"" + num(x1) + "\" y2=\"" + yb +
           "\"/></g>";
      right = std::max(right, x1 - label_w);
    }
    s += "<text x=\"" + num(label_w + right + 6) + "\" y=\"" + std::to_string(y + 15) + "\" class=\"val\">" +
         xml_escape(labels[i]) + "</text>\n";
  }
  s += "</svg>\n";
  return s;
}

const char* k_css = R"CSS(
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;margin:24px 32px;color:#1d1d1d;background:#fff;max-width:1300px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:16px;margin:18px 0 6px}.meta{color:#555;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}th,td{border:1px solid #ddd;padding:4px 8px;text-align:right}
th{background:#f3f5f9}td{white-space:nowrap}td.l,th.l{text-align:left}tr.nofit td{background:#fbecec}
.chart{display:block;margin:6px 0 10px}.chart.small{display:inline-block;margin-right:18px}
.lbl{font-size:11px;fill:#333}.val{font-size:11px;fill:#444}.tick{font-size:11px;fill:#555}
.axis{font-size:12px;fill:#333}.ctitle{font-size:13px;font-weight:bold;fill:#222}
.plot{fill:#fcfcfd;stroke:#bbb}.grid{stroke:#e6e6e6}.roof{fill:none;stroke:#b8415a;stroke-width:2.5}
.roof2{fill:none;stroke:#b8415a;stroke-width:1.5;stroke-dasharray:5 4}.rooflbl{font-size:11px;fill:#8a2d42}
.legend span{display:inline-block;margin-right:14px;font-size:12px}.sw{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
.note{font-size:12px;color:#555;margin:2px 0 8px}
)CSS";

std::string legend_bounds() {
  return std::string("<div class=\"legend\"><span><i class=\"sw\" style=\"background:") + bound_colour(Bound::compute) +
         "\"></i>compute-bound</span><span><i class=\"sw\" style=\"background:" + bound_colour(Bound::memory) +
         "\"></i>memory-bound</span><span><i class=\"sw\" style=\"background:" + bound_colour(Bound::launch) +
         "\"></i>launch-bound</span></div>\n";
}

}  // namespace

double weight_bytes(const Graph& g, Precision precision) {
  double w = 0;
  for (const auto& t : g.tensors)
    if (t.is_initializer) w += tensor_bytes(t, precision);
  return w;
}

std::vector<MemoryTimelinePoint> memory_timeline(const Graph& g, Precision precision) {
  const size_t nt = g.tensors.size();
  const int n_nodes = static_cast<int>(g.nodes.size());
  const int keep = n_nodes;  // graph outputs stay live to the end
  auto valid = [&](int t) { return t >= 0 && static_cast<size_t>(t) < nt && !g.tensors[t].is_initializer; };
  // last_use: index of the last node reading a tensor; its producer when nobody reads it.
  std::vector<int> last_use(nt, -1);
  for (int i = 0; i < n_nodes; ++i) {
    for (int t : g.nodes[i].outputs)
      if (valid(t)) last_use[t] = std::max(last_use[t], i);
    for (int t : g.nodes[i].inputs)
      if (valid(t)) last_use[t] = std::max(last_use[t], i);
  }
  for (int t : g.outputs)
    if (valid(t)) last_use[t] = keep;
  std::vector<std::vector<int>> frees(static_cast<size_t>(n_nodes) + 1);
  std::vector<bool> live_now(nt, false);
  double live = 0;
  auto alloc = [&](int t) {
    if (!valid(t) || live_now[t]) return;
    live_now[t] = true;
    live += tensor_bytes(g.tensors[t], precision);
    if (last_use[t] >= 0 && last_use[t] < keep) frees[last_use[t]].push_back(t);
  };
  for (int t : g.inputs) alloc(t);
  std::vector<MemoryTimelinePoint> out;
  out.reserve(g.nodes.size());
  for (int i = 0; i < n_nodes; ++i) {
    const Node& n = g.nodes[i];
    for (int t : n.outputs) alloc(t);
    out.push_back({i, n.name, n.op, live});
    for (int t : frees[i]) {
      if (!live_now[t]) continue;
      live_now[t] = false;
      live -= tensor_bytes(g.tensors[t], precision);
    }
  }
  return out;
}

std::string render_html_report(const ReportInput& in) {
  if (in.devices.empty()) throw InternalError("render_html_report: no devices");
  if (!in.graph || !in.cost) throw InternalError("render_html_report: graph and cost are required");
  const Graph& g = *in.graph;
  const Precision prec = in.options.precision;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n";
  h += "<title>perfpred report: " + xml_escape(in.title) + "</title>\n<style>" + std::string(k_css) + "</style>\n</head>\n<body>\n";
  h += "<h1>perfpred report: " + xml_escape(in.title) + "</h1>\n";
  h += "<p class=\"meta\">model " + xml_escape(in.model_path) + " &middot; " + std::to_string(g.nodes.size()) +
       " nodes &middot; " + fmt_si(static_cast<double>(in.cost->total_params)) + " parameters &middot; " +
       fmt_si(in.cost->total_flops) + "FLOP per forward pass &middot; batch " + std::to_string(in.options.batch) +
       " &middot; " + xml_escape(to_string(prec)) + " &middot; " + xml_escape(to_string(in.options.mode)) + " &middot; " +
       xml_escape(to_string(in.options.runtime)) +
       (in.options.host_factor != 1 ? " &middot; host factor " + fmt_given(in.options.host_factor) : std::string()) +
       (in.options.gpu_factor != 1 ? " &middot; GPU factor " + fmt_given(in.options.gpu_factor) : std::string()) +
       (in.options.allow_tf32 ? std::string() : " &middot; no TF32 (allow_tf32 = False)") +
       (in.options.cuda_graphs ? " &middot; CUDA graphs (replayed, no host cost per kernel)" : "") +
       (in.options.grad_mode ? " &middot; grad mode (inference records autograd)" : "") +
       (in.options.launch_queue > 0
            ? " &middot; launch queue " + std::to_string(in.options.launch_queue) + " (the host waits for the GPU)"
            : std::string()) +
       (in.options.channels_last ? " &middot; channels_last (NHWC: no cuDNN reorders)" : "") +
       (in.options.fused_attention ? "" : " &middot; attention as written (--attention math)") +
       (in.options.foreach_updates ? "" : " &middot; per-tensor parameter updates (--param-updates loop)") +
       (in.options.autocast ? "" : " &middot; half model, no autocast (--mixed-precision half)") + " &middot; predictor " +
       xml_escape(in.devices.front().prediction.model_bundle.empty() ? "analytical" : in.devices.front().prediction.model_bundle) +
       "</p>\n";

  // Device comparison.
  bool any_range = false;
  for (const auto& d : in.devices) any_range = any_range || d.latency_range || d.energy_range;
  h += "<h2>Device comparison</h2>\n<table>\n<tr><th class=\"l\">device</th><th>latency</th>" +
       std::string(any_range ? "<th>latency range</th>" : "") + "<th>throughput (samples/s)</th><th>energy / batch</th>" +
       (any_range ? "<th>energy range</th>" : "") +
       "<th>avg power</th><th>peak memory</th><th>device memory</th><th class=\"l\">fits</th></tr>\n";
  auto range_cell = [&](const std::optional<PredictionRange>& r, const std::string& unit, int digits) {
    if (!any_range) return std::string();
    if (!r) return std::string("<td>-</td>");
    return "<td>" + fmt_fixed(r->low, digits) + "-" + fmt_fixed(r->high, digits) + " " + unit + "</td>";
  };
  std::vector<double> lat, thr, en, mem, cap;
  std::vector<std::string> lat_l, thr_l, en_l, mem_l;
  for (const auto& d : in.devices) {
    const auto& p = d.prediction;
    const int lat_digits = p.latency_ms >= 100 ? 1 : p.latency_ms >= 10 ? 2 : 3;
    h += std::string("<tr") + (p.fits ? "" : " class=\"nofit\"") + "><td class=\"l\">" + xml_escape(d.gpu.id) + "</td><td>" +
         fmt_ms(p.latency_ms) + "</td>" + range_cell(d.latency_range, "ms", lat_digits) + "<td>" +
         fmt_fixed(p.throughput_samples_per_s, 1) + "</td><td>" + fmt_fixed(p.energy_mj, 2) + " mJ</td>" +
         range_cell(d.energy_range, "mJ", 2) + "<td>" + fmt_fixed(p.avg_power_w, 1) + " W</td><td>" +
         fmt_bytes(p.peak_memory_bytes) + "</td><td>" + fmt_bytes(d.gpu.memory_bytes()) + "</td><td class=\"l\">" +
         (p.fits ? "yes" : "no, short by " + fmt_bytes(p.memory_shortfall_bytes)) + "</td></tr>\n";
    lat.push_back(p.latency_ms);
    lat_l.push_back(fmt_ms(p.latency_ms));
    thr.push_back(p.throughput_samples_per_s);
    thr_l.push_back(fmt_si(p.throughput_samples_per_s) + " samples/s");
    en.push_back(p.energy_mj);
    en_l.push_back(fmt_fixed(p.energy_mj, 2) + " mJ");
    mem.push_back(p.peak_memory_bytes);
    mem_l.push_back(fmt_bytes(p.peak_memory_bytes) + " of " + fmt_bytes(d.gpu.memory_bytes()));
    cap.push_back(d.gpu.memory_bytes());
  }
  h += "</table>\n";
  if (any_range)
    h += "<p class=\"note\">Ranges: where 80% of the held-out measurements on machines left out of the fit fell, "
         "for predictions of the same kind (latency: eager or graph, host-bound or not, the mode; energy: one range "
         "fitted on the few machines that measured it). No range where a learned bundle predicted. Whiskers on the "
         "charts below.</p>\n";
  std::vector<std::optional<PredictionRange>> lat_r, en_r;
  for (const auto& d : in.devices) {
    lat_r.push_back(d.latency_range);
    en_r.push_back(d.energy_range);
  }
  h += "<div>\n";
  h += device_metric_svg("latency per batch (lower is better)", in.devices, lat, lat_l, {}, lat_r, fmt_ms);
  h += device_metric_svg("throughput (higher is better)", in.devices, thr, thr_l, {});
  h += device_metric_svg("energy per batch (lower is better)", in.devices, en, en_l, {}, en_r,
                         [](double v) { return fmt_fixed(v, 2) + " mJ"; });
  h += device_metric_svg("peak memory vs capacity (dashed)", in.devices, mem, mem_l, cap);
  h += "</div>\n";

  // Memory timeline (device-independent liveness) with each device's predicted peak.
  auto tl = memory_timeline(g, prec);
  double w = weight_bytes(g, prec);
  double peak_act = 0;
  for (const auto& p : tl) peak_act = std::max(peak_act, p.live_bytes);
  h += "<h2>Memory timeline</h2>\n<p class=\"note\">Live bytes after each node in execution order: weights (blue band, " +
       fmt_bytes(w) + ") plus activations alive at that point (orange; peak " + fmt_bytes(peak_act) +
       "; a tensor is freed after its last consumer). Dashed lines: each device's predicted peak, which adds the "
       "runtime context, workspace and, in training, gradients and optimizer state; solid lines: device capacity "
       "when it is close enough to show.</p>\n";
  h += memory_timeline_svg(tl, w, in.devices);

  // Per device: layer bars and roofline.
  for (size_t i = 0; i < in.devices.size(); ++i) {
    const auto& d = in.devices[i];
    h += "<h2>" + xml_escape(d.gpu.id) + (d.gpu.name.empty() ? "" : " (" + xml_escape(d.gpu.name) + ")") + "</h2>\n";
    h += "<p class=\"meta\">latency " + fmt_ms(d.prediction.latency_ms) + " = kernels " + fmt_ms(d.prediction.kernels_ms) +
         " + host overhead " + fmt_ms(d.prediction.host_overhead_ms) + " + copies " +
         fmt_ms(d.prediction.h2d_ms + d.prediction.d2h_ms) +
         (d.prediction.optimizer_ms > 0 ? " + optimizer " + fmt_ms(d.prediction.optimizer_ms) : std::string()) + "; " +
         std::to_string(d.prediction.kernels.size()) + " kernels in " + std::to_string(d.prediction.layers.size()) +
         " layers</p>\n";
    h += "<h3>Time per layer (slowest first)</h3>\n" + legend_bounds();
    h += layer_bars_svg(d.prediction, in.max_layer_bars);
    h += "<h3>Roofline</h3>\n<p class=\"note\">Every layer at its arithmetic intensity (FLOPs / DRAM bytes) and "
         "predicted achieved rate; the solid line is the " + xml_escape(to_string(prec)) +
         " compute roof and the bandwidth slope of this device.</p>\n";
    h += roofline_svg(d.prediction, d.gpu, prec);
    if (!d.prediction.notes.empty()) {
      h += "<details><summary class=\"note\">assumptions (" + std::to_string(d.prediction.notes.size()) +
           ")</summary><ul class=\"note\">";
      for (const auto& n : d.prediction.notes) h += "<li>" + xml_escape(n) + "</li>";
      h += "</ul></details>\n";
    }
  }
  h += "<p class=\"meta\">Generated by perfpred. Predictions, not measurements.</p>\n</body>\n</html>\n";
  return h;
}

}  // namespace perfpred::report

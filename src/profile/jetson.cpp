// Jetson power rails, power mode and clocks, read from sysfs and command outputs (see jetson.hpp).
#include "perfpred/profile/jetson.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

namespace perfpred::jetson {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_text(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::optional<double> read_number(const fs::path& p) {
  if (p.empty()) return std::nullopt;
  auto t = read_text(p);
  if (!t || t->empty()) return std::nullopt;
  try {
    size_t used = 0;
    double v = std::stod(*t, &used);
    if (used != t->size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<fs::path> list_dir(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// iio layout (ina3221x driver, JetPack 4): rail_name_N, in_power N_input (mW), in_current N (mA), in_voltage N (mV).
void add_iio_rails(const fs::path& dev, std::vector<Rail>& out) {
  for (int ch = 0; ch < 8; ++ch) {
    auto name = read_text(dev / ("rail_name_" + std::to_string(ch)));
    if (!name || name->empty() || upper(*name) == "NC") continue;
    Rail r;
    r.name = *name;
    r.role = rail_role(r.name);
    r.layout = "iio";
    auto p = dev / ("in_power" + std::to_string(ch) + "_input");
    auto v = dev / ("in_voltage" + std::to_string(ch) + "_input");
    auto i = dev / ("in_current" + std::to_string(ch) + "_input");
    std::error_code ec;
    if (fs::exists(p, ec)) r.power_mw = p;
    if (fs::exists(v, ec)) r.voltage_mv = v;
    if (fs::exists(i, ec)) r.current_ma = i;
    if (r.power_mw.empty() && (r.voltage_mv.empty() || r.current_ma.empty())) continue;
    out.push_back(std::move(r));
  }
}

/// hwmon layout (ina3221 driver, JetPack 5/6): inN_label, inN_input (mV), currN_input (mA), powerN_input (uW).
void add_hwmon_rails(const fs::path& dev, std::vector<Rail>& out) {
  for (int ch = 1; ch <= 8; ++ch) {
    auto name = read_text(dev / ("in" + std::to_string(ch) + "_label"));
    if (!name || name->empty() || upper(*name) == "NC") continue;
    // The driver also labels sum channels ("Sum of shunt voltages"): no current, skipped below.
    Rail r;
    r.name = *name;
    r.role = rail_role(r.name);
    r.layout = "hwmon";
    auto p = dev / ("power" + std::to_string(ch) + "_input");
    auto v = dev / ("in" + std::to_string(ch) + "_input");
    auto i = dev / ("curr" + std::to_string(ch) + "_input");
    std::error_code ec;
    if (fs::exists(p, ec)) {
      r.power_mw = p;
      r.power_in_uw = true;
    }
    if (fs::exists(v, ec)) r.voltage_mv = v;
    if (fs::exists(i, ec)) r.current_ma = i;
    if (r.power_mw.empty() && (r.voltage_mv.empty() || r.current_ma.empty())) continue;
    out.push_back(std::move(r));
  }
}

bool is_ina3221_hwmon(const fs::path& hwmon) {
  auto n = read_text(hwmon / "name");
  return n && n->find("ina3221") != std::string::npos;
}

}  // namespace

const char* to_string(RailRole r) {
  switch (r) {
    case RailRole::gpu: return "gpu";
    case RailRole::gpu_soc: return "gpu+soc";
    case RailRole::cpu_gpu_cv: return "cpu+gpu+cv";
    case RailRole::cpu: return "cpu";
    case RailRole::cpu_cv: return "cpu+cv";
    case RailRole::soc: return "soc";
    case RailRole::cv: return "cv";
    case RailRole::ddr: return "ddr";
    case RailRole::total_input: return "total-input";
    case RailRole::system_5v: return "system-5v";
    case RailRole::other: return "other";
  }
  return "other";
}

RailRole rail_role(const std::string& raw) {
  std::string n = upper(raw);
  for (const char* prefix : {"POM_5V_", "VDD_SYS_", "VDD_", "VIN_"})
    if (starts_with(n, prefix)) {
      n = n.substr(std::string(prefix).size());
      break;
    }
  if (n == "IN" || n == "5V_IN" || n == "SYS_5V_IN") return RailRole::total_input;
  if (n == "GPU") return RailRole::gpu;
  if (n == "GPU_SOC") return RailRole::gpu_soc;
  if (n == "CPU_GPU_CV") return RailRole::cpu_gpu_cv;
  if (n == "CPU") return RailRole::cpu;
  if (n == "CPU_CV") return RailRole::cpu_cv;
  if (n == "SOC") return RailRole::soc;
  if (n == "CV") return RailRole::cv;
  if (n == "DDR" || n == "VDDRQ" || n == "DDRQ" || starts_with(n, "VDDQ") || starts_with(n, "DDRQ")) return RailRole::ddr;
  if (n == "SYS_5V0" || n == "SYS5V" || n == "SYS_5V") return RailRole::system_5v;
  return RailRole::other;
}

std::vector<Rail> discover_rails(const fs::path& root) {
  std::vector<Rail> rails;
  std::set<std::string> seen_devices;
  auto once = [&](const fs::path& p) {
    std::error_code ec;
    auto c = fs::weakly_canonical(p, ec);
    return seen_devices.insert(ec ? p.string() : c.string()).second;
  };
  // iio: bus/i2c/drivers/ina3221x/<addr>/iio:device*/
  for (const auto& addr : list_dir(root / "bus/i2c/drivers/ina3221x"))
    for (const auto& dev : list_dir(addr))
      if (starts_with(dev.filename().string(), "iio:device") && once(dev)) add_iio_rails(dev, rails);
  // hwmon: bus/i2c/drivers/ina3221/<addr>/hwmon/hwmon*/ and class/hwmon/hwmon* named ina3221.
  for (const auto& addr : list_dir(root / "bus/i2c/drivers/ina3221"))
    for (const auto& dev : list_dir(addr / "hwmon"))
      if (starts_with(dev.filename().string(), "hwmon") && once(dev)) add_hwmon_rails(dev, rails);
  for (const auto& dev : list_dir(root / "class/hwmon"))
    if (is_ina3221_hwmon(dev) && once(dev)) add_hwmon_rails(dev, rails);
  std::stable_sort(rails.begin(), rails.end(), [](const Rail& a, const Rail& b) { return a.name < b.name; });
  // The same rail reached through two paths keeps its first entry.
  rails.erase(std::unique(rails.begin(), rails.end(), [](const Rail& a, const Rail& b) { return a.name == b.name; }),
              rails.end());
  return rails;
}

std::optional<double> read_power_mw(const Rail& r) {
  if (auto p = read_number(r.power_mw)) return r.power_in_uw ? *p / 1000.0 : *p;
  auto v = read_number(r.voltage_mv);
  auto i = read_number(r.current_ma);
  if (v && i) return *v * *i / 1000.0;
  return std::nullopt;
}

std::optional<TegrastatsLine> parse_tegrastats_line(const std::string& line) {
  std::istringstream ss(line);
  std::vector<std::string> t;
  for (std::string w; ss >> w;) t.push_back(w);
  if (t.empty()) return std::nullopt;
  static const std::regex name_re("[A-Z][A-Z0-9_]*");
  static const std::regex value_re("([0-9]+)(mW)?/([0-9]+)(mW)?");
  static const std::regex freq_re("([0-9]+)%(@\\[?([0-9]+)(,[0-9]+)*\\]?)?");
  TegrastatsLine out;
  bool any = false;
  for (size_t k = 0; k + 1 < t.size(); ++k) {
    std::smatch m;
    if (t[k] == "GR3D_FREQ" && std::regex_match(t[k + 1], m, freq_re)) {
      out.gpu_load_pct = std::stod(m[1].str());
      if (m[3].matched) out.gpu_clock_mhz = std::stod(m[3].str());
      any = true;
      ++k;
      continue;
    }
    if (t[k] == "EMC_FREQ" && std::regex_match(t[k + 1], m, freq_re)) {
      if (m[3].matched) out.emc_clock_mhz = std::stod(m[3].str());
      ++k;
      continue;
    }
    if (!std::regex_match(t[k], name_re) || !std::regex_match(t[k + 1], m, value_re)) continue;
    if (t[k] == "RAM" || t[k] == "SWAP" || t[k] == "IRAM" || t[k] == "NC") continue;
    out.rails_mw.emplace_back(t[k], std::stod(m[1].str()));
    any = true;
    ++k;
  }
  if (!any) return std::nullopt;
  return out;
}

RailChoice choose_rails(const std::vector<std::pair<std::string, RailRole>>& rails) {
  RailChoice c;
  auto first = [&](RailRole r) -> std::string {
    for (const auto& [n, role] : rails)
      if (role == r) return n;
    return "";
  };
  if (auto g = first(RailRole::gpu); !g.empty()) {
    c.gpu_rail = g;
    c.gpu_rail_note = g + " feeds the GPU alone";
  } else if (auto gs = first(RailRole::gpu_soc); !gs.empty()) {
    c.gpu_rail = gs;
    c.gpu_rail_note = gs + " feeds the GPU and the SoC together (no GPU-only rail on this board)";
  } else if (auto cg = first(RailRole::cpu_gpu_cv); !cg.empty()) {
    c.gpu_rail = cg;
    c.gpu_rail_note = cg + " feeds the CPU, GPU and CV engines together (no GPU-only rail on this board)";
  }
  if (auto t = first(RailRole::total_input); !t.empty()) {
    c.total_rails = {t};
    c.total_note = t + " is the module's input power";
  } else {
    for (const auto& [n, role] : rails) c.total_rails.push_back(n);
    std::string names;
    for (const auto& n : c.total_rails) names += (names.empty() ? "" : " + ") + n;
    c.total_note = "no input-power rail on this board: total is the sum of the monitored rails (" + names +
                   "), which misses unmonitored domains";
  }
  return c;
}

std::optional<PowerMode> parse_nvpmodel(const std::string& text) {
  std::istringstream ss(text);
  PowerMode m;
  bool found = false;
  for (std::string line; std::getline(ss, line);) {
    auto pos = line.find("NV Power Mode:");
    if (pos != std::string::npos) {
      std::string v = line.substr(pos + 14);
      v.erase(0, v.find_first_not_of(" \t"));
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
      m.name = v;
      found = !v.empty();
      continue;
    }
    if (found && !m.id) {
      std::string s = line;
      s.erase(0, s.find_first_not_of(" \t"));
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
      if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        m.id = std::stoi(s);
    }
  }
  if (!found) return std::nullopt;
  return m;
}

std::optional<ClockState> parse_jetson_clocks(const std::string& text) {
  std::istringstream ss(text);
  ClockState c;
  bool any = false;
  auto field = [](const std::string& line, const std::string& key) -> std::optional<double> {
    std::smatch m;
    std::regex re("\\b" + key + "=([0-9]+)");
    if (std::regex_search(line, m, re)) return std::stod(m[1].str());
    return std::nullopt;
  };
  std::optional<double> emc_override;
  for (std::string line; std::getline(ss, line);) {
    std::string l = line;
    l.erase(0, l.find_first_not_of(" \t"));
    if (starts_with(l, "GPU ")) {
      c.gpu_min_hz = field(l, "MinFreq");
      c.gpu_max_hz = field(l, "MaxFreq");
      c.gpu_cur_hz = field(l, "CurrentFreq");
      any = true;
    } else if (starts_with(l, "EMC ")) {
      c.emc_cur_hz = field(l, "CurrentFreq");
      c.emc_max_hz = field(l, "MaxFreq");
      emc_override = field(l, "FreqOverride");
      any = true;
    } else if (starts_with(l, "cpu") && l.find("Online=1") != std::string::npos) {
      auto mn = field(l, "MinFreq"), mx = field(l, "MaxFreq");
      any = true;
      if (mn && mx && *mn < *mx)
        c.floating.push_back(l.substr(0, l.find(':')) + " MinFreq " + std::to_string(static_cast<long long>(*mn)) +
                             " < MaxFreq " + std::to_string(static_cast<long long>(*mx)));
    }
  }
  if (!any) return std::nullopt;
  auto num = [](double v) { return std::to_string(static_cast<long long>(v)); };
  if (!c.gpu_min_hz || !c.gpu_max_hz)
    c.floating.push_back("GPU clock range not printed");
  else if (*c.gpu_min_hz < *c.gpu_max_hz)
    c.floating.push_back("GPU MinFreq " + num(*c.gpu_min_hz) + " < MaxFreq " + num(*c.gpu_max_hz));
  if (emc_override && *emc_override == 0)
    c.floating.push_back("EMC FreqOverride=0");
  else if (c.emc_cur_hz && c.emc_max_hz && *c.emc_cur_hz < *c.emc_max_hz)
    c.floating.push_back("EMC CurrentFreq " + num(*c.emc_cur_hz) + " < MaxFreq " + num(*c.emc_max_hz));
  c.pinned = c.floating.empty();
  return c;
}

SysfsClocks read_sysfs_clocks(const fs::path& root) {
  SysfsClocks s;
  for (const auto& dev : list_dir(root / "class/devfreq")) {
    std::string n = dev.filename().string();
    bool gpu = false;
    for (const char* k : {"gpu", "gp10b", "gv11b", "ga10b", "gm20b", "gb10b"}) gpu = gpu || n.find(k) != std::string::npos;
    if (!gpu) continue;
    s.gpu_devfreq = n;
    s.gpu_cur_hz = read_number(dev / "cur_freq");
    s.gpu_min_hz = read_number(dev / "min_freq");
    s.gpu_max_hz = read_number(dev / "max_freq");
    break;
  }
  for (const char* p : {"kernel/debug/bpmp/debug/clk/emc/rate", "kernel/debug/clk/emc/clk_rate"})
    if (auto v = read_number(root / p)) {
      s.emc_hz = v;
      break;
    }
  return s;
}

nlohmann::json board_metadata(const std::vector<Rail>& rails, const std::optional<PowerMode>& mode,
                              const std::optional<ClockState>& clocks, const SysfsClocks& sysfs) {
  nlohmann::json j = nlohmann::json::object();
  nlohmann::json jr = nlohmann::json::array();
  std::vector<std::pair<std::string, RailRole>> named;
  for (const auto& r : rails) {
    jr.push_back({{"name", r.name}, {"role", to_string(r.role)}, {"layout", r.layout}});
    named.emplace_back(r.name, r.role);
  }
  j["rails"] = jr;
  RailChoice c = choose_rails(named);
  j["gpu_rail"] = c.gpu_rail;
  j["gpu_rail_note"] = c.gpu_rail_note;
  j["total_rails"] = c.total_rails;
  j["total_note"] = c.total_note;
  if (mode) {
    j["power_mode"] = mode->name;
    if (mode->id) j["power_mode_id"] = *mode->id;
  } else {
    j["power_mode"] = nullptr;
  }
  if (clocks) {
    j["clocks_pinned"] = clocks->pinned;
    if (!clocks->pinned) j["clocks_floating"] = clocks->floating;
  } else {
    j["clocks_pinned"] = nullptr;  // unknown: jetson_clocks --show not readable
  }
  if (!sysfs.gpu_devfreq.empty()) j["gpu_devfreq"] = sysfs.gpu_devfreq;
  if (sysfs.gpu_cur_hz) j["gpu_clock_mhz"] = *sysfs.gpu_cur_hz / 1e6;
  if (sysfs.gpu_min_hz) j["gpu_clock_min_mhz"] = *sysfs.gpu_min_hz / 1e6;
  if (sysfs.gpu_max_hz) j["gpu_clock_max_mhz"] = *sysfs.gpu_max_hz / 1e6;
  if (sysfs.emc_hz) j["emc_clock_mhz"] = *sysfs.emc_hz / 1e6;
  std::vector<std::string> notes;
  if (!clocks || !clocks->pinned)
    notes.push_back("clocks float (DVFS): timings depend on the governor; run `sudo jetson_clocks` before profiling to pin them");
  j["notes"] = notes;
  return j;
}

RailSampler::RailSampler(Reader reader, RailChoice choice, double period_ms)
    : m_reader(std::move(reader)), m_choice(std::move(choice)), m_period_ms(period_ms > 0 ? period_ms : 10) {}

RailSampler::~RailSampler() {
  if (m_running) stop();
}

void RailSampler::start() {
  if (m_running) stop();
  m_samples.clear();
  m_t0 = std::chrono::steady_clock::now();
  // The first sample is taken here, before start() returns, so the window opens before the measured work
  // does (a thread's first sample can come late, and the window then missed the start of the work).
  if (auto s = m_reader()) m_samples.emplace_back(0.0, std::move(*s));
  m_running = true;
  m_thread = std::thread([this] {
    while (m_running) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(m_period_ms));
      if (!m_running) break;
      auto s = m_reader();
      double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_t0).count();
      if (s) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_samples.emplace_back(t, std::move(*s));
      }
    }
  });
}

RailSampler::Result RailSampler::stop() {
  m_running = false;
  if (m_thread.joinable()) m_thread.join();
  // One last sample closes the window.
  if (auto s = m_reader()) {
    double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_t0).count();
    m_samples.emplace_back(t, std::move(*s));
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  return integrate(m_samples, m_choice);
}

RailSampler::Result RailSampler::integrate(const std::vector<std::pair<double, RailSample>>& samples,
                                           const RailChoice& choice) {
  Result r;
  r.samples = static_cast<int>(samples.size());
  if (samples.size() < 2) return r;
  r.window_ms = samples.back().first - samples.front().first;
  if (r.window_ms <= 0) return r;
  auto value = [](const RailSample& s, const std::vector<std::string>& names) -> std::optional<double> {
    double sum = 0;
    for (const auto& n : names) {
      auto it = std::find_if(s.power_mw.begin(), s.power_mw.end(), [&](const auto& p) { return p.first == n; });
      if (it == s.power_mw.end()) return std::nullopt;
      sum += it->second;
    }
    return sum;
  };
  auto energy = [&](const std::vector<std::string>& names) -> std::optional<double> {
    if (names.empty()) return std::nullopt;
    double e_uj = 0;  // mW x ms = uJ
    for (size_t k = 1; k < samples.size(); ++k) {
      auto a = value(samples[k - 1].second, names), b = value(samples[k].second, names);
      if (!a || !b) return std::nullopt;
      e_uj += 0.5 * (*a + *b) * (samples[k].first - samples[k - 1].first);
    }
    return e_uj / 1000.0;  // mJ
  };
  if (!choice.gpu_rail.empty()) r.gpu_energy_mj = energy({choice.gpu_rail});
  r.total_energy_mj = energy(choice.total_rails);
  if (r.gpu_energy_mj) r.gpu_mean_power_w = *r.gpu_energy_mj / r.window_ms;
  if (r.total_energy_mj) r.total_mean_power_w = *r.total_energy_mj / r.window_ms;
  return r;
}

}  // namespace perfpred::jetson

#pragma once
/// Jetson boards: power from the INA3221 rail monitors in sysfs (or `tegrastats` lines when sysfs is
/// not readable), the power mode (`nvpmodel -q`), whether clocks are pinned (`jetson_clocks --show`)
/// and the GPU/EMC clocks. Plain C++ with no CUDA: everything reads text, so it is tested on
/// recorded sysfs trees and command outputs (tests/data/jetson/). Nothing here changes a setting.
#include <chrono>
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfpred::jetson {

/// What a rail feeds. Boards combine domains differently (Orin AGX: VDD_GPU_SOC; Orin Nano / Xavier NX:
/// VDD_CPU_GPU_CV), so the combined roles are kept distinct rather than guessed apart.
enum class RailRole { gpu, gpu_soc, cpu_gpu_cv, cpu, cpu_cv, soc, cv, ddr, total_input, system_5v, other };
const char* to_string(RailRole r);
/// Role of a rail from its name as the board labels it ("POM_5V_GPU", "VDD_GPU_SOC", "GPU", ...).
RailRole rail_role(const std::string& name);

/// One rail and where its readings are. Paths are empty when the driver does not expose them.
struct Rail {
  std::string name;
  RailRole role = RailRole::other;
  std::filesystem::path power_mw;    ///< iio in_powerN_input / hwmon powerN_input (hwmon: microwatts)
  std::filesystem::path voltage_mv;  ///< iio in_voltageN_input / hwmon inN_input
  std::filesystem::path current_ma;  ///< iio in_currentN_input / hwmon currN_input
  bool power_in_uw = false;          ///< hwmon power*_input is in microwatts
  std::string layout;                ///< "iio" (Nano/TX2/Xavier on JetPack 4) or "hwmon" (JetPack 5/6)
};

/// Find the INA3221 rails under a sysfs root (default /sys): the iio devices of the ina3221x driver
/// (rail_name_N, in_powerN_input ...) and the hwmon devices of the ina3221 driver (inN_label,
/// inN_input, currN_input). Unlabelled and "NC" (not connected) channels are skipped; sorted by name.
std::vector<Rail> discover_rails(const std::filesystem::path& sysfs_root = "/sys");

/// Instantaneous power of a rail in milliwatts (power file, else voltage x current); nullopt when
/// its files cannot be read.
std::optional<double> read_power_mw(const Rail& r);

/// One reading of every rail: name -> mW.
struct RailSample {
  std::vector<std::pair<std::string, double>> power_mw;
};

/// Parse one `tegrastats` line: rails written "NAME cur/avg" (JetPack 4, mW) or "NAME curmW/avgmW"
/// (JetPack 5/6), GPU load and clock "GR3D_FREQ 12%@921" or "GR3D_FREQ 0%@[305,305]", EMC clock.
struct TegrastatsLine {
  std::vector<std::pair<std::string, double>> rails_mw;  ///< current (not average) value per rail
  std::optional<double> gpu_load_pct;
  std::optional<double> gpu_clock_mhz;
  std::optional<double> emc_clock_mhz;
};
std::optional<TegrastatsLine> parse_tegrastats_line(const std::string& line);

/// Which rail answers "GPU power" and which "total board power" on this board, and what they include.
struct RailChoice {
  std::string gpu_rail;        ///< "" when the board has none
  std::string gpu_rail_note;   ///< e.g. "VDD_GPU_SOC includes the SoC"
  std::vector<std::string> total_rails;  ///< one total-input rail, else every rail summed
  std::string total_note;
};
RailChoice choose_rails(const std::vector<std::pair<std::string, RailRole>>& rails);

/// `nvpmodel -q` output: "NV Power Mode: MAXN" then the mode number.
struct PowerMode {
  std::string name;
  std::optional<int> id;
};
std::optional<PowerMode> parse_nvpmodel(const std::string& text);

/// `jetson_clocks --show` output: pinned when the GPU's and every online CPU's MinFreq equals MaxFreq
/// and the EMC runs at its maximum (FreqOverride=1 where printed).
struct ClockState {
  bool pinned = false;
  std::vector<std::string> floating;  ///< what is not pinned ("GPU MinFreq 76800000 < MaxFreq 921600000")
  std::optional<double> gpu_cur_hz, gpu_min_hz, gpu_max_hz, emc_cur_hz, emc_max_hz;
};
std::optional<ClockState> parse_jetson_clocks(const std::string& text);

/// GPU clocks from devfreq (class/devfreq/<dev> whose name or device is the GPU: gpu, gp10b, gv11b,
/// ga10b, gm20b) and the EMC clock from debugfs where readable, in Hz.
struct SysfsClocks {
  std::string gpu_devfreq;  ///< the devfreq node used
  std::optional<double> gpu_cur_hz, gpu_min_hz, gpu_max_hz, emc_hz;
};
SysfsClocks read_sysfs_clocks(const std::filesystem::path& sysfs_root = "/sys");

/// Everything recorded about the board, for the dataset sidecar ("jetson" object).
nlohmann::json board_metadata(const std::vector<Rail>& rails, const std::optional<PowerMode>& mode,
                              const std::optional<ClockState>& clocks, const SysfsClocks& sysfs);

/// Samples rails in a thread and integrates energy (trapezoids) per rail over a window, like the NVML
/// sampler. The reader returns one sample (sysfs reads, or the latest tegrastats line).
class RailSampler {
 public:
  using Reader = std::function<std::optional<RailSample>()>;
  RailSampler(Reader reader, RailChoice choice, double period_ms);
  ~RailSampler();
  RailSampler(const RailSampler&) = delete;
  RailSampler& operator=(const RailSampler&) = delete;
  void start();
  struct Result {
    std::optional<double> gpu_energy_mj;    ///< power_source jetson-gpu-rail
    std::optional<double> total_energy_mj;  ///< power_source jetson-total
    std::optional<double> gpu_mean_power_w;
    std::optional<double> total_mean_power_w;
    int samples = 0;
    double window_ms = 0;
  };
  Result stop();
  /// Integrate samples (t_ms, sample) directly; the thread uses this too (tests call it with fixtures).
  static Result integrate(const std::vector<std::pair<double, RailSample>>& samples, const RailChoice& choice);

 private:
  Reader m_reader;
  RailChoice m_choice;
  double m_period_ms;
  std::atomic<bool> m_running{false};
  std::thread m_thread;
  std::mutex m_mutex;
  std::vector<std::pair<double, RailSample>> m_samples;
  std::chrono::steady_clock::time_point m_t0;
};

/// Environment variable naming the tegrastats program (a test's fake script, an unusual install);
/// default: `tegrastats` found on PATH.
inline constexpr const char* k_tegrastats_env = "PERFPRED_TEGRASTATS";

/// The fallback when the INA3221 files are not readable: `tegrastats --interval MS` runs as a child
/// process on a pseudo-terminal (so it writes each line at once, as to a console), in its own
/// session, with SIGTERM as its parent-death signal. A reader thread stamps every line on arrival
/// and parses it with parse_tegrastats_line(); measure_window() integrates the GPU rail and the
/// total board separately, as RailSampler does. stop() (and the destructor) terminates the child's
/// whole process group and reaps it: no zombie, and no orphan even if perfpred is killed.
/// Call start() from a thread that lives as long as the source (the parent-death signal follows the
/// thread that forked).
class TegrastatsSource {
 public:
  struct Options {
    std::string program;                  ///< path or name on PATH; "" -> $PERFPRED_TEGRASTATS, else "tegrastats"
    double interval_ms = 50;              ///< --interval
    double first_line_timeout_ms = 5000;  ///< start() fails when no line with rails arrives in this time
  };
  /// Start the child and wait for its first line with rails; nullptr with `why` set when it cannot
  /// (not found, exits, prints no rails).
  static std::unique_ptr<TegrastatsSource> start(const Options& o, std::string& why);
  ~TegrastatsSource();
  TegrastatsSource(const TegrastatsSource&) = delete;
  TegrastatsSource& operator=(const TegrastatsSource&) = delete;

  void stop();                       ///< idempotent
  int pid() const;                   ///< the child's pid (also its process group and session id)
  const std::string& program() const;
  double interval_ms() const;
  /// The rails of the first line, with their roles (for choose_rails()).
  std::vector<std::pair<std::string, RailRole>> rails() const;
  int lines() const;                 ///< lines with rails parsed so far
  double now_ms() const;             ///< the clock lines are stamped with (ms since start)
  /// Energy and mean power over [t0_ms, t1_ms] (now_ms() values): waits (up to 5 intervals, at least
  /// 1 s) for the first line after t1, then integrate_window() on the lines around the window.
  RailSampler::Result measure_window(double t0_ms, double t1_ms, const RailChoice& choice);
  /// The arithmetic: the rails interpolated linearly at t0 and t1 from the lines around them,
  /// trapezoids in between. A window not covered by lines is cut to the lines there are.
  static RailSampler::Result integrate_window(const std::vector<std::pair<double, RailSample>>& samples, double t0_ms,
                                              double t1_ms, const RailChoice& choice);

 private:
  TegrastatsSource() = default;
  struct Impl;
  std::unique_ptr<Impl> m;
};

/// Where a board's power comes from: the INA3221 files when at least one rail reads, else a
/// tegrastats child (TegrastatsSource), else nothing.
struct BoardPower {
  std::string reader;            ///< "sysfs-ina3221", "tegrastats", or "" (no power; `why` says why)
  std::vector<Rail> rails;       ///< the rails power comes from (tegrastats ones have layout "tegrastats")
  RailChoice choice;             ///< GPU rail and total, from choose_rails()
  std::unique_ptr<TegrastatsSource> tegrastats;
  std::string why;
  /// Run `work` and measure the rails while it runs: a RailSampler reading the files every
  /// `sample_period_ms`, or the tegrastats lines around the window. An empty result without power.
  RailSampler::Result measure(const std::function<void()>& work, double sample_period_ms);
};
/// Discover the rails under `sysfs_root`; when none reads, start tegrastats with `fallback`.
BoardPower open_board_power(const std::filesystem::path& sysfs_root, const TegrastatsSource::Options& fallback);

}  // namespace perfpred::jetson

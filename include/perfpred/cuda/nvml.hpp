#pragma once
/// NVML loaded at run time with dlopen (there is no nvml.h on build machines): board power,
/// the total-energy counter, clocks, temperature, MIG mode. Every query is optional: a missing
/// library or an unsupported call gives nullopt, never an error.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace perfpred::cuda {

class Nvml {
 public:
  /// Load the library (default libnvidia-ml.so.1) and initialise it; nullptr with `why` set
  /// when it cannot be loaded or initialised. A test passes the path of a fake library.
  static std::unique_ptr<Nvml> load(std::string& why, const std::string& library = "libnvidia-ml.so.1");
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  /// Select the device by PCI bus id ("0000:3B:00.0"), which matches CUDA's numbering whatever
  /// CUDA_VISIBLE_DEVICES says; falls back to index 0 when not found. False when no device.
  bool select_device(const std::string& pci_bus_id);

  std::optional<double> power_w() const;             ///< nvmlDeviceGetPowerUsage
  std::optional<double> total_energy_mj() const;     ///< nvmlDeviceGetTotalEnergyConsumption (Volta+)
  std::optional<double> sm_clock_mhz() const;
  std::optional<double> mem_clock_mhz() const;
  std::optional<double> temperature_c() const;
  std::optional<double> power_limit_w() const;
  std::optional<bool> mig_enabled() const;
  std::string driver_version() const;
  std::string device_name() const;

 private:
  Nvml() = default;
  struct Api;
  std::unique_ptr<Api> m_api;
  void* m_lib = nullptr;
  void* m_device = nullptr;
};

/// Samples power in a thread while a region runs; energy from the counter where the GPU has one,
/// else the integral of the samples.
class PowerSampler {
 public:
  PowerSampler(const Nvml* nvml, double period_ms);
  ~PowerSampler();
  void start();
  /// Stop and summarise the window since start().
  struct Result {
    std::optional<double> mean_power_w;
    std::optional<double> energy_mj;    ///< whole window
    std::string energy_source;          ///< "nvml-energy-counter", "nvml-power-integral", ""
    int samples = 0;
    double window_ms = 0;
  };
  Result stop();

 private:
  const Nvml* m_nvml;
  double m_period_ms;
  std::atomic<bool> m_running{false};
  std::thread m_thread;
  std::vector<std::pair<double, double>> m_samples;  // (t_ms, watts)
  std::optional<double> m_energy_start;
  double m_t0_ms = 0;
};

}  // namespace perfpred::cuda

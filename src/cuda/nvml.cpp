// NVML through dlopen. The few types and prototypes are declared here from the NVML API
// reference (nvmlReturn_t is an int enum, nvmlDevice_t an opaque pointer).
#include "perfpred/cuda/nvml.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstring>

namespace perfpred::cuda {

namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t k_nvml_success = 0;
constexpr int k_clock_sm = 1;      // NVML_CLOCK_SM
constexpr int k_clock_mem = 2;     // NVML_CLOCK_MEM
constexpr int k_temperature_gpu = 0;  // NVML_TEMPERATURE_GPU

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
};

std::unique_ptr<Nvml> Nvml::load(std::string& why, const std::string& library) {
  void* lib = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = ::dlerror();
    why = "cannot load " + library + (e ? std::string(": ") + e : std::string());
    return nullptr;
  }
  auto n = std::unique_ptr<Nvml>(new Nvml());
  n->m_lib = lib;
  n->m_api = std::make_unique<Api>();
  auto& a = *n->m_api;
  auto sym = [&](auto& fn, const char* name, const char* fallback = nullptr) {
    void* p = ::dlsym(lib, name);
    if (!p && fallback) p = ::dlsym(lib, fallback);
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  sym(a.init, "nvmlInit_v2", "nvmlInit");
  sym(a.shutdown, "nvmlShutdown");
  sym(a.by_index, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  sym(a.by_pci, "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
  sym(a.power, "nvmlDeviceGetPowerUsage");
  sym(a.energy, "nvmlDeviceGetTotalEnergyConsumption");
  sym(a.clock, "nvmlDeviceGetClockInfo");
  sym(a.temperature, "nvmlDeviceGetTemperature");
  sym(a.power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  sym(a.mig_mode, "nvmlDeviceGetMigMode");
  sym(a.driver_version, "nvmlSystemGetDriverVersion");
  sym(a.name, "nvmlDeviceGetName");
  sym(a.error_string, "nvmlErrorString");
  if (!a.init || !a.shutdown || !a.by_index) {
    why = library + " lacks nvmlInit/nvmlShutdown/nvmlDeviceGetHandleByIndex";
    ::dlclose(lib);
    n->m_lib = nullptr;
    return nullptr;
  }
  nvmlReturn_t r = a.init();
  if (r != k_nvml_success) {
    why = std::string("nvmlInit failed: ") + (a.error_string ? a.error_string(r) : std::to_string(r).c_str());
    ::dlclose(lib);
    n->m_lib = nullptr;
    return nullptr;
  }
  return n;
}

Nvml::~Nvml() {
  if (m_lib) {
    if (m_api && m_api->shutdown) m_api->shutdown();
    ::dlclose(m_lib);
  }
}

bool Nvml::select_device(const std::string& pci_bus_id) {
  nvmlDevice_t d = nullptr;
  if (!pci_bus_id.empty() && m_api->by_pci && m_api->by_pci(pci_bus_id.c_str(), &d) == k_nvml_success) {
    m_device = d;
    return true;
  }
  if (m_api->by_index(0, &d) == k_nvml_success) {
    m_device = d;
    return true;
  }
  return false;
}

std::optional<double> Nvml::power_w() const {
  unsigned mw = 0;
  if (!m_device || !m_api->power || m_api->power(m_device, &mw) != k_nvml_success) return std::nullopt;
  return mw / 1000.0;
}

std::optional<double> Nvml::total_energy_mj() const {
  unsigned long long mj = 0;
  if (!m_device || !m_api->energy || m_api->energy(m_device, &mj) != k_nvml_success) return std::nullopt;
  return static_cast<double>(mj);
}

std::optional<double> Nvml::sm_clock_mhz() const {
  unsigned v = 0;
  if (!m_device || !m_api->clock || m_api->clock(m_device, k_clock_sm, &v) != k_nvml_success) return std::nullopt;
  return v;
}

std::optional<double> Nvml::mem_clock_mhz() const {
  unsigned v = 0;
  if (!m_device || !m_api->clock || m_api->clock(m_device, k_clock_mem, &v) != k_nvml_success) return std::nullopt;
  return v;
}

std::optional<double> Nvml::temperature_c() const {
  unsigned v = 0;
  if (!m_device || !m_api->temperature || m_api->temperature(m_device, k_temperature_gpu, &v) != k_nvml_success)
    return std::nullopt;
  return v;
}

std::optional<double> Nvml::power_limit_w() const {
  unsigned mw = 0;
  if (!m_device || !m_api->power_limit || m_api->power_limit(m_device, &mw) != k_nvml_success) return std::nullopt;
  return mw / 1000.0;
}

std::optional<bool> Nvml::mig_enabled() const {
  unsigned cur = 0, pending = 0;
  if (!m_device || !m_api->mig_mode || m_api->mig_mode(m_device, &cur, &pending) != k_nvml_success) return std::nullopt;
  return cur == 1;
}

std::string Nvml::driver_version() const {
  char buf[96] = {0};
  if (!m_api->driver_version || m_api->driver_version(buf, sizeof buf) != k_nvml_success) return "";
  return buf;
}

std::string Nvml::device_name() const {
  char buf[96] = {0};
  if (!m_device || !m_api->name || m_api->name(m_device, buf, sizeof buf) != k_nvml_success) return "";
  return buf;
}

PowerSampler::PowerSampler(const Nvml* nvml, double period_ms) : m_nvml(nvml), m_period_ms(period_ms) {}

PowerSampler::~PowerSampler() {
  if (m_running) stop();
}

void PowerSampler::start() {
  m_samples.clear();
  m_t0_ms = now_ms();
  if (!m_nvml) return;
  m_energy_start = m_nvml->total_energy_mj();
  m_running = true;
  m_thread = std::thread([this] {
    while (m_running) {
      if (auto p = m_nvml->power_w()) m_samples.emplace_back(now_ms(), *p);
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(m_period_ms));
    }
  });
}

PowerSampler::Result PowerSampler::stop() {
  Result r;
  r.window_ms = now_ms() - m_t0_ms;
  if (!m_nvml) return r;
  m_running = false;
  if (m_thread.joinable()) m_thread.join();
  if (auto p = m_nvml->power_w()) m_samples.emplace_back(now_ms(), *p);
  r.samples = static_cast<int>(m_samples.size());
  if (!m_samples.empty()) {
    double sum = 0;
    for (const auto& s : m_samples) sum += s.second;
    r.mean_power_w = sum / static_cast<double>(m_samples.size());
  }
  auto end = m_nvml->total_energy_mj();
  if (m_energy_start && end && *end > *m_energy_start) {
    r.energy_mj = *end - *m_energy_start;
    r.energy_source = "nvml-energy-counter";
  } else if (m_samples.size() >= 2) {
    double e = 0;  // trapezoids, W * ms = mJ
    for (size_t i = 1; i < m_samples.size(); ++i)
      e += 0.5 * (m_samples[i].second + m_samples[i - 1].second) * (m_samples[i].first - m_samples[i - 1].first);
    r.energy_mj = e;
    r.energy_source = "nvml-power-integral";
  }
  return r;
}

}  // namespace perfpred::cuda

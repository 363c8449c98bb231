#include "perfpred/cuda/device_info.hpp"

#include <cctype>

namespace perfpred::cuda {

int fp32_lanes_per_sm(int major, int minor) {
  switch (major) {
    case 5: return 128;
    case 6: return minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128;
    case 9: return 128;
    case 10:
    case 11:
    case 12: return 128;
    default: return 0;
  }
}

std::string architecture_name(int major, int minor) {
  switch (major) {
    case 5: return "Maxwell";
    case 6: return "Pascal";
    case 7: return minor >= 5 ? "Turing" : "Volta";
    case 8: return minor == 9 ? "Ada" : "Ampere";
    case 9: return "Hopper";
    case 10:
    case 11:
    case 12: return "Blackwell";
    default: return "unknown";
  }
}

double mem_bandwidth_gbps(const DeviceProperties& p) {
  return 2.0 * p.mem_clock_khz * 1e3 * (p.mem_bus_width_bits / 8.0) / 1e9;
}

std::string memory_family(const DeviceProperties& p) {
  if (p.integrated) return "LPDDR";
  if (p.mem_bus_width_bits >= 2048) return "HBM";
  if (p.mem_bus_width_bits > 0 && p.mem_bus_width_bits <= 512) return "GDDR";
  return "";
}

nlohmann::json spec_json(const DeviceProperties& p) {
  std::string id;
  for (char c : p.name) {
    if (std::isalnum(static_cast<unsigned char>(c))) id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!id.empty() && id.back() != '-') id += '-';
  }
  while (!id.empty() && id.back() == '-') id.pop_back();
  const int lanes = fp32_lanes_per_sm(p.cc_major, p.cc_minor);
  const double boost_mhz = p.sm_clock_khz / 1e3;
  nlohmann::json j;
  j["schema_version"] = 1;
  j["id"] = id.empty() ? "unknown-gpu" : id;
  j["name"] = p.name;
  j["architecture"] = architecture_name(p.cc_major, p.cc_minor);
  j["compute_capability"] = std::to_string(p.cc_major) + "." + std::to_string(p.cc_minor);
  j["segment"] = p.integrated ? "embedded" : "measured";
  j["sm_count"] = p.sm_count;
  if (lanes > 0) {
    j["fp32_lanes_per_sm"] = lanes;
    j["fp32_tflops"] = p.sm_count * lanes * 2.0 * boost_mhz * 1e6 / 1e12;
  }
  j["boost_clock_mhz"] = boost_mhz;
  j["memory_gb"] = static_cast<double>(p.total_memory_bytes) / 1e9;
  j["mem_bandwidth_gbps"] = mem_bandwidth_gbps(p);
  j["l2_cache_mb"] = static_cast<double>(p.l2_cache_bytes) / (1024.0 * 1024.0);
  j["shared_mem_per_sm_kb"] = static_cast<double>(p.shared_mem_per_sm_bytes) / 1024.0;
  j["registers_per_sm"] = p.registers_per_sm;
  j["max_threads_per_sm"] = p.max_threads_per_sm;
  j["unified_memory"] = p.integrated;
  j["dram_ecc"] = p.ecc_enabled;
  j["assumptions"] = nlohmann::json::array(
      {"measured by perfpred profile from cudaGetDeviceProperties; fp32_tflops from SMs x lanes x 2 x max clock; "
       "mem_bandwidth_gbps from 2 x memory clock x bus width; tensor-core rates not derivable"});
  if (const std::string family = memory_family(p); !family.empty()) {
    j["memory_type"] = family;
    j["assumptions"].push_back("memory_type: " + family + ", from the " + std::to_string(p.mem_bus_width_bits) +
                               "-bit bus" + (p.integrated ? " of an integrated GPU" : "") +
                               " (CUDA does not report the type); dram_ecc from cudaDeviceProp::ECCEnabled");
  }
  return j;
}

}  // namespace perfpred::cuda

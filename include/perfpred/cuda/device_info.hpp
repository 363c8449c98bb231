#pragma once
/// A CUDA device described by plain values (what cudaGetDeviceProperties and the driver report),
/// and its conversion to a GpuSpec JSON in the catalog's format. No CUDA types: unit tests build
/// one by hand, so the conversion is tested without a GPU.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace perfpred::cuda {

struct DeviceProperties {
  std::string name;                 ///< "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_khz = 0;          ///< cudaDevAttrClockRate (maximum SM clock)
  double mem_clock_khz = 0;         ///< cudaDevAttrMemoryClockRate
  int mem_bus_width_bits = 0;
  int64_t total_memory_bytes = 0;
  int64_t l2_cache_bytes = 0;
  int64_t shared_mem_per_sm_bytes = 0;
  int registers_per_sm = 0;
  int max_threads_per_sm = 0;
  bool integrated = false;          ///< shares DRAM with the host (Jetson)
  bool ecc_enabled = false;         ///< cudaDeviceProp::ECCEnabled: DRAM ECC on
  std::string pci_bus_id;
};

/// FP32 lanes per SM of a compute capability (the CUDA programming guide's arithmetic table);
/// 0 when unknown.
int fp32_lanes_per_sm(int cc_major, int cc_minor);
/// Architecture name of a compute capability ("Ampere"), "unknown" when not known.
std::string architecture_name(int cc_major, int cc_minor);
/// Peak DRAM bandwidth in GB/s: 2 (double data rate) x memory clock x bus width.
double mem_bandwidth_gbps(const DeviceProperties& p);
/// The DRAM family a device's bus says (CUDA does not report the type): "LPDDR" on an integrated GPU, "HBM"
/// from a 2048-bit bus up (1024 bits per stack), "GDDR" up to 512 bits, "" in between.
std::string memory_family(const DeviceProperties& p);
/// GpuSpec fields the properties determine (catalog JSON keys); tensor-core rates are not
/// derivable from properties and are left out (the catalog entry, when matched, has them).
nlohmann::json spec_json(const DeviceProperties& p);

}  // namespace perfpred::cuda

#pragma once
/// A GPU's published capabilities, units in field names. JSON keys equal the field names.
#include <cstdint>
#include <string>
#include <vector>

#include "perfpred/core/precision.hpp"

namespace perfpred {

/// One device: a catalogued GPU, a MIG slice, a Jetson power mode, a GPU under a power limit, or a hypothetical
/// spec file.
struct GpuSpec {
  std::string id;            ///< stable id: "a100-sxm4-40gb", "a100-sxm4-40gb:3g.20gb", "jetson-nano@5w"
  std::string name;          ///< marketing name
  std::string architecture;  ///< "Pascal", "Ampere", ...
  std::string compute_capability;  ///< "8.0"
  std::string segment;       ///< "datacenter", "desktop", "embedded", "hypothetical"

  int sm_count = 0;
  int fp32_lanes_per_sm = 0;
  double base_clock_mhz = 0;
  double boost_clock_mhz = 0;

  // Peak dense rates at the boost clock (TFLOPS / TOPS); 0 when the device lacks the path.
  double fp32_tflops = 0;
  double fp16_tflops = 0;          ///< non-tensor FP16 (packed math)
  double bf16_tflops = 0;          ///< non-tensor BF16
  double fp64_tflops = 0;
  double tensor_fp16_tflops = 0;   ///< FP16 inputs, FP32 accumulate
  double tensor_fp16_fp16acc_tflops = 0;  ///< FP16 inputs and accumulate where faster (GeForce: 2x); 0 = same
  double tensor_bf16_tflops = 0;
  double tensor_tf32_tflops = 0;
  double tensor_int8_tops = 0;
  double int8_tops = 0;            ///< non-tensor INT8 (dp4a)
  int tensor_cores = 0;            ///< 0 when none

  double memory_gb = 0;            ///< device memory as published ("80GB"); NVIDIA's figures are binary
                                   ///< (an "80GB" A100 has 80 GiB), so MIG slices carry usable GiB as is
  std::string memory_type;
  bool dram_ecc = false;           ///< DRAM ECC on (datacenter boards by default); on GDDR it is inline: its
                                   ///< check words share the data's channels and bandwidth
  double mem_bandwidth_gbps = 0;   ///< GB/s
  double l2_cache_mb = 0;
  double shared_mem_per_sm_kb = 0;
  int registers_per_sm = 0;
  int max_threads_per_sm = 0;

  double tdp_w = 0;
  double idle_power_w = 0;

  bool unified_memory = false;     ///< Jetson: host and device share DRAM, no PCIe copies
  int pcie_gen = 0;                ///< 0 when unified
  int pcie_lanes = 0;
  double host_link_gbps = 0;       ///< effective host<->device GB/s per direction

  // Derived devices.
  std::string parent_id;           ///< MIG slice or power mode: the whole device's id
  std::string mig_profile;         ///< "3g.20gb"
  std::string power_mode;          ///< "5w", "maxn"
  double sm_fraction = 1.0;        ///< share of the parent's SMs (MIG)
  double power_limit_w = 0;        ///< power limit set below the TDP ("v100-pcie-32gb@150w"); 0 = the TDP

  std::vector<std::string> assumptions;  ///< fields derived rather than given (spec files, derived devices)
  std::vector<std::string> sources;      ///< citations carried from the reference

  /// Memory in bytes (published capacities are GiB: 2^30 bytes per "GB").
  double memory_bytes() const { return memory_gb * 1073741824.0; }
  /// Peak math rate in FLOP/s for a precision, using tensor cores when the device has them and
  /// the precision can use them (fp16/bf16/tf32/int8); plain FP32 for fp32.
  double peak_flops(Precision p) const;
  /// Peak rate of the non-tensor path for a precision (what elementwise and reductions see).
  double vector_flops(Precision p) const;
  /// True when the precision runs on tensor cores here.
  bool uses_tensor_cores(Precision p) const;
};

}  // namespace perfpred

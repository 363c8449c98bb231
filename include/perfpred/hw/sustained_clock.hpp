#pragma once
/// The clock a power-limited card sustains under load, from its published board power and FP32 rate.
/// Shared by the analytical kernel model (src/predict) and the learned roofline (src/learn).
#include "perfpred/hw/gpu_spec.hpp"

namespace perfpred {

/// A busy GPU draws dynamic power ~ f * V^2, and V rises with f, so power ~ f^3 near the top of the DVFS
/// curve: clock = boost * (power share)^(1 / k_power_clock_exponent), where the share counts only the power
/// above the clock-independent floor (k_clock_independent_power_share).
inline constexpr double k_power_clock_exponent = 3.0;

/// Share of what a busy board draws at full clock that stays whatever its SM clock: DRAM and its interface,
/// leakage, fans, voltage regulators, the GPU idling between kernels. A power limit takes its watts out of the
/// rest only, so a limit near this floor slows the SMs far more than the cube root of limit / draw (Zeus,
/// ResNet-50 training: an A40 at 100 W of 300 W takes 2.9x as long as at 300 W, a V100 PCIe at 100 W of
/// 250 W 1.9x, a Quadro RTX 6000 at 100 W of 260 W 2.3x; the cube root alone gives 1.4-1.5x). Fitted on the
/// V100 PCIe rows of that set (`CALIBRATION_ZEUS` in tools/eval_analytical.py; their energy mean APE at
/// 0.30 / 0.35 / 0.40 / 0.45: 13.0 / 12.8 / 13.3 / 16.9% with conv gradients on the forward's GEMM view,
/// 16.6 / 16.4 / 17.0 / 19.5% before it); the A40, Quadro RTX 6000 and P100 rows are held out. Once DRAM-bound
/// kernels follow a limit's clock drop too (GpuRates::limit_memory_share), 0.35 is kept on the V100's energy
/// (14.3 / 16.1 / 19.0% at 0.30 / 0.35 / 0.40); its step-time ratios to the highest limit alone would take 0.40
/// (5.4 / 3.8 / 2.4%). Not refitted: the held-out A40's ratios (12.6 / 11.1 / 15.3%) were seen, so they are
/// reported, not used to choose. Near the floor the clock falls steeply, so an error in the predicted draw moves it most there.
inline constexpr double k_clock_independent_power_share = 0.35;

/// Lowest sustained clock over boost: a limit at or below the floor leaves the SMs at their lowest
/// DVFS states (about 200-300 MHz of a 1.4-1.7 GHz boost), not at zero.
inline constexpr double k_min_clock_scale = 0.2;

/// A chip family's full-power reference: the highest board power per FP32 TFLOP among its catalogued
/// full-power cards, which hold their boost clock under load.
struct PowerReference {
  const char* compute_capability;
  double w_per_fp32_tflop;
  const char* card;
};

/// Reference per compute capability (NVIDIA's TDP and FP32 figures, ../shared/reference/gpu-specs.md).
/// Slowed most: T4 (8.6 W/TFLOP against 18.6: 0.77), L4 (2.4 against 5.45: 0.76), A10 (4.8 against 9.8:
/// 0.79), P4 (13.6 against 22.8: 0.84), L40S (0.89). Only the graphics-derived chips (6.1, 7.5, 8.6, 8.9),
/// whose FP32 rate is what their power is sized for. The compute chips (GP100, GV100, GA100, GH100) size
/// their boards for FP64, tensor cores and HBM: per FP32 TFLOP their PCIe cards have less power than the
/// SXM ones but NeuSight's A100 PCIe 40GB FP32 kernels show no slowdown (the model is already 8% slow
/// there) and Lambda's H100 PCIe and SXM rows are equally off, so none of them is slowed. Checked on
/// NeuSight's T4 and P4 kernels (docs/accuracy.md).
inline constexpr PowerReference k_full_power_w_per_tflop[] = {
    {"6.1", 250 / 10.97, "TITAN X (Pascal), 250 W / 10.97 TFLOPS"},
    {"7.5", 250 / 13.45, "GeForce RTX 2080 Ti, 250 W / 13.45 TFLOPS"},
    {"8.6", 350 / 35.58, "GeForce RTX 3090, 350 W / 35.58 TFLOPS"},
    {"8.9", 450 / 82.58, "GeForce RTX 4090, 450 W / 82.58 TFLOPS"},
};

/// Compute chips whose FP32 units sit on the same process as a graphics chip with a reference above: FP32
/// work draws what the graphics chip's board draws per FP32 TFLOP, whatever headroom the compute board's TDP
/// keeps for FP64 and HBM. Only the pairs on one process; GA100 (TSMC N7, no graphics sibling) and GH100
/// (no measured power to check) are left at their TDP.
struct ProcessSibling {
  const char* compute_capability;
  const char* sibling;
  const char* why;
};
inline constexpr ProcessSibling k_fp32_power_siblings[] = {
    {"6.0", "6.1", "GP100 and GP102, TSMC 16FF+"},
    {"7.0", "7.5", "GV100 and TU102, TSMC 12FFN"},
};

/// Board power FP32 work flat out at the boost clock would draw without a power limit: the W per FP32 TFLOP
/// of the chip family's reference (or its process sibling's) times the card's FP32 rate. Above the TDP on
/// the power-limited cards whose clock sustained_clock_scale lowers (Quadro RTX 6000: 303 W for a 260 W
/// board; T4: 151 W for 70 W), below it on compute boards with headroom (P100 PCIe: 212 W for 250 W).
/// The TDP for embedded boards, chips with neither reference nor sibling, and specs without a TDP or FP32
/// rate (0 when the spec has no TDP).
double fp32_power_demand_w(const GpuSpec& gpu);

/// Clock over the one at which a workload draws `draw_w` that a power limit of `limit_w` sustains: only the
/// power above the floor (k_clock_independent_power_share of `draw_w`) follows the clock, as its cube:
/// ((limit / draw - share) / (1 - share))^(1/3), at least k_min_clock_scale; 1 when the limit is not below
/// the draw.
double clock_under_limit(double limit_w, double draw_w);

/// The sustained clock at the TDP, ignoring any power limit set below it (1 where sustained_clock_scale is).
double rated_clock_scale(const GpuSpec& gpu);

/// The card's W per FP32 TFLOP at its TDP over its chip family's full-power reference, unclamped: under 1 the TDP
/// caps the clock (rated_clock_scale = its cube root), over 1 the card has that much power to spare at boost.
/// Infinity where power does not set the clock here (rated_clock_scale is 1 whatever the work draws).
double rated_power_share(const GpuSpec& gpu);

/// Board power of the GPU running FP32 work flat out: min(TDP or the power limit set below it, fp32_power_demand_w).
double full_load_power_w(const GpuSpec& gpu);

/// Sustained clock under full load over the rated boost clock: a card given fewer watts per FP32 TFLOP
/// (rated at boost) than its chip family's reference settles at boost * (its W/TFLOP / reference)^(1/3),
/// never above boost. 1 for embedded boards (their power modes give their clocks), specs without TDP or
/// FP32 rate, and chip families without a reference (the compute chips; see sustained_clock.cpp).
/// Under a power limit (GpuSpec::power_limit_w) below what the board draws flat out at its TDP
/// (min(TDP, fp32_power_demand_w)), that clock times clock_under_limit(limit, that draw), compute chips
/// included: V100 PCIe at 150 W: ((0.6 - 0.35) / 0.65)^(1/3) = 0.73; P100 PCIe at 225 W: 1 (its FP32 work
/// draws 212 W). This is the clock of FP32 work flat out (a single kernel); `predict` puts a whole
/// workload's own draw at the rated clock in place of that draw.
double sustained_clock_scale(const GpuSpec& gpu);

/// Speed-up over the fully loaded sustained clock of a kernel that keeps a share `busy` in (0, 1] of the
/// SMs busy on a card with sustained clock scale `clock_scale`: power goes with the busy SMs, so the clock
/// that share sustains applies, up to boost. 1 when `clock_scale` >= 1 or `busy` >= 1.
double partial_load_clock_gain(double busy, double clock_scale);

}  // namespace perfpred

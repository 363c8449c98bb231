#pragma once
/// A desktop or datacenter GPU run under a power limit below its TDP (`nvidia-smi -pl W`): the id suffix
/// "@<W>w" ("v100-pcie-32gb@150w", "my-gpu.json@200w"), as Jetson power modes are "@<mode>".
#include <optional>
#include <string>

#include "perfpred/hw/gpu_spec.hpp"

namespace perfpred {

/// The watts of a power-limit suffix ("150w", "137.5W"; the part after '@'), or nullopt when it is not one
/// (a Jetson mode name such as "maxn" or "5w" is looked up as a mode before this is asked).
std::optional<double> parse_power_limit_suffix(const std::string& suffix);

/// `gpu` under a power limit of `watts`: id "<id>@<W>w", parent_id the device, power_limit_w = watts (0 when
/// the limit is the TDP itself, which changes nothing). The allowed range is (idle_power_w, tdp_w]: the
/// published specs give no minimum limit, and a board cannot be held at or below its idle power. Throws
/// InputError naming `id` and the range otherwise, or for an embedded board (Jetsons have power modes), a MIG
/// slice, a power mode, a GPU already limited, or a spec without tdp_w.
GpuSpec with_power_limit(const GpuSpec& gpu, double watts, const std::string& id);

/// The board power the card may draw: its power limit, else its TDP.
double board_power_limit_w(const GpuSpec& gpu);

}  // namespace perfpred

// A GPU under a power limit below its TDP (perfpred/hw/power_limit.hpp).
#include "perfpred/hw/power_limit.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "perfpred/util/error.hpp"

namespace perfpred {
namespace {

std::string fmt(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

}  // namespace

std::optional<double> parse_power_limit_suffix(const std::string& suffix) {
  if (suffix.size() < 2 || std::tolower(static_cast<unsigned char>(suffix.back())) != 'w') return std::nullopt;
  const std::string number = suffix.substr(0, suffix.size() - 1);
  bool dot = false;
  for (char c : number) {
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  if (number == ".") return std::nullopt;
  return std::strtod(number.c_str(), nullptr);  // digits only: at worst inf, which the range check refuses
}

GpuSpec with_power_limit(const GpuSpec& gpu, double watts, const std::string& id) {
  const std::string syntax = " (a power limit is ID@<W>w, e.g. " + gpu.id + "@" + fmt(std::round(gpu.tdp_w * 0.6)) + "w)";
  if (gpu.segment == "embedded")
    throw InputError("'" + id + "': " + gpu.id + " is an embedded board; it has power modes, not power limits " +
                     "(run `perfpred devices show " + (gpu.parent_id.empty() ? gpu.id : gpu.parent_id) + "`)");
  if (!gpu.mig_profile.empty() || !gpu.power_mode.empty() || gpu.power_limit_w > 0)
    throw InputError("'" + id + "': a power limit applies to a whole GPU, not to " + gpu.id + syntax);
  if (!(gpu.tdp_w > 0))
    throw InputError("'" + id + "': " + gpu.id + " gives no tdp_w, so a power limit has no range; add tdp_w to the spec");
  if (!std::isfinite(watts) || !(watts > gpu.idle_power_w) || watts > gpu.tdp_w)
    throw InputError("'" + id + "': power limit " + fmt(watts) + " W is outside " + gpu.id + "'s range (" +
                     fmt(gpu.idle_power_w) + ", " + fmt(gpu.tdp_w) + "] W: above its idle power, at most its TDP" +
                     " (the specs give no minimum limit)");
  GpuSpec s = gpu;
  s.id = gpu.id + "@" + fmt(watts) + "w";
  s.name = gpu.name + " (" + fmt(watts) + " W limit)";
  s.parent_id = gpu.id;
  s.power_limit_w = watts < gpu.tdp_w ? watts : 0;
  s.assumptions.push_back("power limit " + fmt(watts) + " W of " + fmt(gpu.tdp_w) +
                          " W TDP: the board draws at most the limit, and math runs at the clock the limit sustains " +
                          "(sustained_clock_scale); tdp_w stays the board's.");
  return s;
}

double board_power_limit_w(const GpuSpec& gpu) {
  return gpu.power_limit_w > 0 && gpu.power_limit_w < gpu.tdp_w ? gpu.power_limit_w : gpu.tdp_w;
}

}  // namespace perfpred

// Which reader gives a Jetson's power, and one measurement window with it (see BoardPower in jetson.hpp).
#include "perfpred/profile/jetson.hpp"

namespace perfpred::jetson {

BoardPower open_board_power(const std::filesystem::path& sysfs_root, const TegrastatsSource::Options& fallback) {
  BoardPower b;
  auto rails = discover_rails(sysfs_root);
  bool readable = false;
  for (const auto& r : rails) readable = readable || read_power_mw(r).has_value();
  if (readable) {
    b.reader = "sysfs-ina3221";
    b.rails = std::move(rails);
  } else {
    // tegrastats reads the same monitors with its own privileges and prints them once per interval.
    std::string why;
    b.tegrastats = TegrastatsSource::start(fallback, why);
    if (b.tegrastats) {
      b.reader = "tegrastats";
      for (const auto& [name, role] : b.tegrastats->rails()) {
        Rail r;
        r.name = name;
        r.role = role;
        r.layout = "tegrastats";
        b.rails.push_back(r);
      }
    } else {
      b.why = std::string(rails.empty() ? "no INA3221 power rails under " : "no INA3221 power rail readable under ") +
              sysfs_root.string() + ", and tegrastats failed: " + why;
    }
  }
  std::vector<std::pair<std::string, RailRole>> named;
  for (const auto& r : b.rails) named.emplace_back(r.name, r.role);
  if (!named.empty()) b.choice = choose_rails(named);
  return b;
}

RailSampler::Result BoardPower::measure(const std::function<void()>& work, double sample_period_ms) {
  if (tegrastats) {
    const double t0 = tegrastats->now_ms();
    work();
    return tegrastats->measure_window(t0, tegrastats->now_ms(), choice);
  }
  if (rails.empty()) {
    work();
    return {};
  }
  const auto& rs = rails;
  RailSampler sampler(
      [&rs]() -> std::optional<RailSample> {
        RailSample s;
        for (const auto& r : rs)
          if (auto v = read_power_mw(r)) s.power_mw.emplace_back(r.name, *v);
        return s;
      },
      choice, sample_period_ms);
  sampler.start();
  work();
  return sampler.stop();
}

}  // namespace perfpred::jetson

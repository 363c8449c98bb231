// Progress on stderr. stdout carries only data, so the bar never mixes with results.
#include "perfpred/profile/progress.hpp"

#include <cmath>

namespace perfpred {

Progress::Progress(int64_t total, bool enabled, bool tty, double log_interval_s, std::FILE* out)
    : m_total(total), m_enabled(enabled), m_tty(tty), m_log_interval_s(log_interval_s), m_out(out) {
  m_start = m_last_log = std::chrono::steady_clock::now();
}

std::string Progress::format_duration(double seconds) {
  if (seconds < 0 || !std::isfinite(seconds)) return "?";
  auto s = static_cast<long long>(std::llround(seconds));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%llds", s);
  return buf;
}

double Progress::eta_seconds(int64_t done, int64_t total, double elapsed_s) {
  if (done <= 0 || total <= 0) return -1;
  return elapsed_s / static_cast<double>(done) * static_cast<double>(total - done);
}

void Progress::update(int64_t done, const std::string& label) {
  if (!m_enabled) return;
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - m_start).count();
  double eta = eta_seconds(done, m_total, elapsed);
  int pct = m_total > 0 ? static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(m_total)) : 100;
  if (m_tty) {
    constexpr int k_width = 30;
    int filled = m_total > 0 ? static_cast<int>(k_width * static_cast<double>(done) / static_cast<double>(m_total)) : k_width;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(k_width, '.');
    std::string shown = label.size() > 40 ? label.substr(0, 37) + "..." : label;
    std::fprintf(m_out, "\r\033[K[%s] %lld/%lld %3d%% ETA %s  %s", bar.c_str(), static_cast<long long>(done),
                 static_cast<long long>(m_total), pct, format_duration(eta).c_str(), shown.c_str());
    std::fflush(m_out);
    m_drawn = true;
    return;
  }
  if (done == m_total || std::chrono::duration<double>(now - m_last_log).count() >= m_log_interval_s) {
    m_last_log = now;
    std::fprintf(m_out, "perfpred: progress %lld/%lld (%d%%), elapsed %s, ETA %s\n", static_cast<long long>(done),
                 static_cast<long long>(m_total), pct, format_duration(elapsed).c_str(), format_duration(eta).c_str());
    std::fflush(m_out);
  }
}

void Progress::finish() {
  if (m_enabled && m_tty && m_drawn) {
    std::fprintf(m_out, "\n");
    std::fflush(m_out);
  }
  m_drawn = false;
}

}  // namespace perfpred

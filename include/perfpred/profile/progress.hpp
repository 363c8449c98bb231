#pragma once
/// Progress on stderr: a bar with ETA on a terminal, periodic log lines otherwise.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace perfpred {

class Progress {
 public:
  /// `tty`: draw a bar (redrawn in place); else one line every `log_interval_s` seconds.
  Progress(int64_t total, bool enabled, bool tty, double log_interval_s = 30, std::FILE* out = stderr);
  /// `done` entries finished of `total`; `label` names the current one.
  void update(int64_t done, const std::string& label);
  /// End the bar with a newline.
  void finish();
  /// "1h02m", "3m05s", "12s".
  static std::string format_duration(double seconds);
  /// Estimated seconds left, from the mean time per entry so far (negative when unknown).
  static double eta_seconds(int64_t done, int64_t total, double elapsed_s);

 private:
  int64_t m_total;
  bool m_enabled, m_tty;
  double m_log_interval_s;
  std::FILE* m_out;
  std::chrono::steady_clock::time_point m_start, m_last_log;
  bool m_drawn = false;
};

}  // namespace perfpred

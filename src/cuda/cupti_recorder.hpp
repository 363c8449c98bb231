#pragma once
// CUPTI activity records (kernels and copies) around one region. CUPTI callbacks are process-wide,
// so there is one recorder per process.
#include <cstdint>
#include <string>
#include <vector>

namespace perfpred::cuda {

struct KernelActivity {
  std::string name;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  double duration_ms = 0;
  bool is_memcpy = false;
  uint64_t bytes = 0;  ///< copies
};

class CuptiRecorder {
 public:
  /// The process's recorder.
  static CuptiRecorder& instance();
  /// Register the buffer callbacks once; false with `why` when CUPTI is unusable here.
  bool init(std::string& why);
  /// Start recording kernels and copies.
  void begin();
  /// Stop, flush and return what ran since begin().
  std::vector<KernelActivity> end();

 private:
  CuptiRecorder() = default;
  bool m_ready = false;
};

}  // namespace perfpred::cuda

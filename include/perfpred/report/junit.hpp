#pragma once
/// JUnit XML, the format CI systems (GitLab, Jenkins, GitHub test reporters) show as test results.
#include <string>
#include <vector>

namespace perfpred::report {

/// One test case. An empty `failure_message` means it passed.
struct JUnitCase {
  std::string classname;        ///< e.g. "perfpred.budget.resnet50-jetson"
  std::string name;             ///< e.g. "latency_ms"
  double time_s = 0;            ///< reported time (0 for a prediction)
  std::string failure_message;  ///< one line; empty when passed
  std::string failure_text;     ///< details in the element body
  std::string system_out;       ///< optional extra text
};

/// A whole document: one <testsuites> with one <testsuite>. Deterministic (no timestamp, no host).
std::string junit_xml(const std::string& suite_name, const std::vector<JUnitCase>& cases);

}  // namespace perfpred::report

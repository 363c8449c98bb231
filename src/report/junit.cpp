#include "perfpred/report/junit.hpp"

#include "perfpred/report/text.hpp"

namespace perfpred::report {

std::string junit_xml(const std::string& suite_name, const std::vector<JUnitCase>& cases) {
  size_t failures = 0;
  double total_s = 0;
  for (const auto& c : cases) {
    if (!c.failure_message.empty()) ++failures;
    total_s += c.time_s;
  }
  std::string head = "tests=\"" + std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
                     "\" errors=\"0\" skipped=\"0\" time=\"" + fmt_exact(total_s) + "\"";
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"" + xml_escape(suite_name) + "\" " + head + ">\n";
  out += "  <testsuite name=\"" + xml_escape(suite_name) + "\" " + head + ">\n";
  for (const auto& c : cases) {
    out += "    <testcase classname=\"" + xml_escape(c.classname) + "\" name=\"" + xml_escape(c.name) +
           "\" time=\"" + fmt_exact(c.time_s) + "\"";
    if (c.failure_message.empty() && c.system_out.empty()) {
      out += "/>\n";
      continue;
    }
    out += ">\n";
    if (!c.failure_message.empty()) {
      out += "      <failure type=\"BudgetExceeded\" message=\"" + xml_escape(c.failure_message) + "\">" +
             xml_escape(c.failure_text) + "</failure>\n";
    }
    if (!c.system_out.empty()) out += "      <system-out>" + xml_escape(c.system_out) + "</system-out>\n";
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace perfpred::report

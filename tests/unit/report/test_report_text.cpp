#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "perfpred/report/junit.hpp"
#include "perfpred/report/text.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
using namespace perfpred::report;

TEST(TextTable, AlignsColumns) {
  TextTable t({"device", "latency"}, {false, true});
  t.add_row({"t4", "12.5 ms"});
  t.add_row({"a100-sxm4-40gb", "1.2 ms"});
  EXPECT_EQ(t.str(),
            "device          latency\n"
            "t4              12.5 ms\n"
            "a100-sxm4-40gb   1.2 ms\n");
  EXPECT_THROW(t.add_row({"only one"}), InternalError);
}

TEST(Csv, QuotesWhenNeeded) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_line({"a", "b,c", ""}), "a,\"b,c\",\n");
}

TEST(Xml, Escapes) {
  EXPECT_EQ(xml_escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
  EXPECT_EQ(xml_escape(std::string("bell\x07tab\t")), "belltab\t");
}

TEST(Format, Numbers) {
  EXPECT_EQ(fmt_bytes(512), "512 B");
  EXPECT_EQ(fmt_bytes(1536), "1.50 KiB");
  EXPECT_EQ(fmt_bytes(3.0 * 1024 * 1024 * 1024), "3.00 GiB");
  EXPECT_EQ(fmt_ms(12.345), "12.35 ms");
  EXPECT_EQ(fmt_ms(0.01234), "0.0123 ms");
  EXPECT_EQ(fmt_pct(12.34), "+12.3%");
  EXPECT_EQ(fmt_pct(-4), "-4.0%");
  EXPECT_EQ(fmt_si(1234), "1.23k");
  EXPECT_EQ(fmt_exact(0.1), "0.1");
  EXPECT_EQ(fmt_exact(1e9), "1e+09");
  EXPECT_EQ(fmt_exact(1.0 / 3), "0.3333333333333333");  // shortest that round-trips
}

namespace {

// A small XML well-formedness checker: balanced tags, quoted attributes, escaped text. Enough for
// the documents perfpred writes (no CDATA, comments or DTDs).
bool well_formed(const std::string& x, std::string& why) {
  std::vector<std::string> stack;
  size_t i = 0;
  if (x.rfind("<?xml", 0) == 0) i = x.find("?>") + 2;
  bool root_seen = false;
  while (i < x.size()) {
    if (x[i] == '<') {
      size_t end = x.find('>', i);
      if (end == std::string::npos) return why = "unterminated tag", false;
      std::string tag = x.substr(i + 1, end - i - 1);
      if (tag.empty()) return why = "empty tag", false;
      if (tag[0] == '/') {
        if (stack.empty() || stack.back() != tag.substr(1)) return why = "mismatched </" + tag.substr(1) + ">", false;
        stack.pop_back();
      } else {
        bool self = tag.back() == '/';
        if (self) tag.pop_back();
        std::string name = tag.substr(0, tag.find(' '));
        // Attributes: name="value" pairs with no raw < or & inside values.
        size_t q = 0;
        for (char c : tag) q += c == '"';
        if (q % 2) return why = "unbalanced quotes in <" + name + ">", false;
        if (tag.find('<') != std::string::npos) return why = "raw < in <" + name + ">", false;
        if (stack.empty() && root_seen) return why = "two roots", false;
        root_seen = true;
        if (!self) stack.push_back(name);
      }
      i = end + 1;
    } else {
      if (x[i] == '&') {
        size_t semi = x.find(';', i);
        std::string ent = x.substr(i, semi - i + 1);
        if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
          return why = "bad entity " + ent, false;
      }
      if (x[i] == '>') return why = "raw > in text", false;
      ++i;
    }
  }
  if (!stack.empty()) return why = "unclosed <" + stack.back() + ">", false;
  return root_seen || (why = "no root", false);
}

}  // namespace

TEST(JUnit, WellFormedWithHostileNames) {
  std::vector<JUnitCase> cases(3);
  cases[0].classname = "perfpred.budget.resnet<50>&co";
  cases[0].name = "latency_ms";
  cases[1].classname = "perfpred.budget.\"quoted\"";
  cases[1].name = "peak_memory_bytes";
  cases[1].failure_message = "peak memory 3 GiB > 2 GiB & more <oops>";
  cases[1].failure_text = "entry 1 ('x')";
  cases[2].classname = "c";
  cases[2].name = "energy_mj";
  cases[2].system_out = "t4: predicted 1, limit 2";
  std::string x = junit_xml("perfpred budget b.json", cases);
  std::string why;
  EXPECT_TRUE(well_formed(x, why)) << why << "\n" << x;
  EXPECT_NE(x.find("tests=\"3\" failures=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("<failure type=\"BudgetExceeded\" message=\"peak memory 3 GiB &gt; 2 GiB &amp; more &lt;oops&gt;\""),
            std::string::npos) << x;
  EXPECT_NE(x.find("<testcase classname=\"perfpred.budget.resnet&lt;50&gt;&amp;co\" name=\"latency_ms\" time=\"0\"/>"),
            std::string::npos) << x;
  // The checker itself rejects broken documents.
  EXPECT_FALSE(well_formed("<a><b></a></b>", why));
  EXPECT_FALSE(well_formed("<a>x & y</a>", why));
  EXPECT_FALSE(well_formed("<a x=\"1></a>", why));
  // Deterministic: no timestamp or host name.
  EXPECT_EQ(x, junit_xml("perfpred budget b.json", cases));
  EXPECT_EQ(x.find("timestamp"), std::string::npos);
}

// fmt_exact starts its precision search at the shortest round-trip digit count: the output must be
// what the full search from 6 digits gives, for any double.
TEST(Format, ExactMatchesTheFullSearch) {
  auto reference = [](double v) {
    char buf[64];
    for (int prec = 6; prec <= 17; ++prec) {
      std::snprintf(buf, sizeof buf, "%.*g", prec, v);
      if (std::strtod(buf, nullptr) == v) break;
    }
    return std::string(buf);
  };
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double v;
    if (i % 2) {
      std::memcpy(&v, &x, sizeof v);  // any bit pattern
      if (!std::isfinite(v)) continue;
    } else {
      v = static_cast<double>(x % 1000000007) / static_cast<double>(1 + x % 9973);  // ratios like latencies
    }
    ASSERT_EQ(fmt_exact(v), reference(v)) << i;
  }
}

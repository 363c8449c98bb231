#include <gtest/gtest.h>

#include "perfpred/util/checked_math.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

using namespace perfpred;

TEST(Strings, SplitKeepsEmptyFields) {
  auto v = split("a,,b", ',');
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1], "");
  EXPECT_EQ(v[2], "b");
}

TEST(Strings, ParseIntRejectsGarbage) {
  EXPECT_EQ(parse_int64(" 42 ", "batch"), 42);
  EXPECT_THROW(parse_int64("4x", "batch"), InputError);
  EXPECT_THROW(parse_int64("", "batch"), InputError);
}

TEST(Strings, ParseDoubleRejectsNan) {
  EXPECT_DOUBLE_EQ(parse_double("1.5", "x"), 1.5);
  EXPECT_THROW(parse_double("nan", "x"), InputError);
  EXPECT_THROW(parse_double("inf", "x"), InputError);
}

TEST(CheckedMath, ProductOverflowIsDetected) {
  std::vector<int64_t> ok{2, 3, 4};
  EXPECT_EQ(checked_product(ok).value(), 24);
  std::vector<int64_t> big{int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_FALSE(checked_product(big).has_value());
  std::vector<int64_t> unknown{2, -1};
  EXPECT_FALSE(checked_product(unknown).has_value());
}

TEST(Strings, AlnumTokensLowerCaseRuns) {
  EXPECT_EQ(alnum_tokens("NVIDIA A100-SXM4-40GB"), (std::vector<std::string>{"nvidia", "a100", "sxm4", "40gb"}));
  EXPECT_EQ(alnum_tokens("  --  "), std::vector<std::string>{});
  EXPECT_EQ(alnum_tokens("MIG 3g.20gb"), (std::vector<std::string>{"mig", "3g", "20gb"}));
}

TEST(Strings, PrintableEscapesControlAndInvalidUtf8) {
  EXPECT_EQ(printable("a\nb\tc"), "a\\nb\\tc");
  EXPECT_EQ(printable("x\xff" "y"), "x\\xffy");
  EXPECT_EQ(printable("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");      // valid UTF-8 is kept
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");            // a UTF-16 surrogate is not UTF-8
  EXPECT_EQ(printable("\xe2\x82"), "\\xe2\\x82");                      // truncated sequence
  const std::string cut = printable(std::string(5000, 'q'), 100);
  EXPECT_EQ(cut.substr(0, 100), std::string(100, 'q'));
  EXPECT_NE(cut.find("(5000 bytes)"), std::string::npos);
  EXPECT_LT(cut.size(), 130u);
}

TEST(Strings, ValidUtf8ReplacesBadBytes) {
  EXPECT_EQ(valid_utf8("ok"), "ok");
  EXPECT_EQ(valid_utf8("a\x80" "b"), "a\xEF\xBF\xBD" "b");
}

TEST(Strings, ParseErrorsQuoteTheValueOnOneLine) {
  // Found by fuzz_cli_strings: `--vary sm_count=40:160:20\n)` printed the raw newline in its error.
  for (auto parse : {+[](std::string_view s) { return parse_double(s, "--vary sm_count STEP"); },
                     +[](std::string_view s) { return static_cast<double>(parse_int64(s, "--batch")); }}) {
    try {
      parse("20\n)");
      FAIL() << "expected InputError";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      EXPECT_NE(msg.find("20\\n)"), std::string::npos) << msg;
    }
  }
}

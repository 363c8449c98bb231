#pragma once
/// Plain-text printers: aligned tables, CSV fields, XML escaping and human number formats.
#include <cstddef>
#include <string>
#include <vector>

namespace perfpred::report {

/// A table printed with columns padded to their widest cell; numeric columns right-aligned.
class TextTable {
 public:
  /// Column headers; `right_aligned[i]` right-aligns column i (default: left).
  explicit TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned = {});
  /// Add a row; throws InternalError when the cell count differs from the header count.
  void add_row(std::vector<std::string> cells);
  /// The table as text, one line per row, two spaces between columns, no trailing spaces.
  std::string str() const;
  size_t rows() const { return m_rows.size(); }

 private:
  std::vector<std::string> m_headers;
  std::vector<bool> m_right;
  std::vector<std::vector<std::string>> m_rows;
};

/// RFC 4180 field: quoted when it contains a comma, quote, CR or LF; quotes doubled.
std::string csv_field(const std::string& s);
/// A CSV line (fields joined by commas, newline-terminated).
std::string csv_line(const std::vector<std::string>& fields);
/// Escape &, <, >, " and ' for XML/HTML text and attributes; drops control characters XML 1.0 forbids.
std::string xml_escape(const std::string& s);

/// Fixed-point with `digits` decimals ("12.35").
std::string fmt_fixed(double v, int digits);
/// Shortest round-trip decimal ("%.17g" trimmed): for CSV cells and exact limits.
std::string fmt_exact(double v);
/// A number as the user typed it, for error messages: fmt_exact, or nan / inf / -inf.
std::string fmt_given(double v);
/// Milliseconds with a precision that suits the magnitude ("0.0123 ms", "12.3 ms", "1234 ms").
std::string fmt_ms(double ms);
/// Bytes in binary units ("1.50 GiB", "312.0 MiB", "12.0 KiB", "512 B").
std::string fmt_bytes(double bytes);
/// Signed percentage ("+12.3%", "-4.0%").
std::string fmt_pct(double pct);
/// Three significant figures with an SI suffix when large ("1.23k", "45.6M").
std::string fmt_si(double v);

}  // namespace perfpred::report

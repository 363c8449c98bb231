#include "perfpred/report/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "perfpred/util/error.hpp"

namespace perfpred::report {

TextTable::TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned)
    : m_headers(std::move(headers)), m_right(std::move(right_aligned)) {
  m_right.resize(m_headers.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() != m_headers.size())
    throw InternalError("TextTable: row has " + std::to_string(cells.size()) + " cells, header has " +
                        std::to_string(m_headers.size()));
  m_rows.push_back(std::move(cells));
}

std::string TextTable::str() const {
  std::vector<size_t> width(m_headers.size(), 0);
  for (size_t c = 0; c < m_headers.size(); ++c) width[c] = m_headers[c].size();
  for (const auto& r : m_rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      const bool last = c + 1 == cells.size();
      std::string pad(width[c] - cells[c].size(), ' ');
      if (c) out += "  ";
      if (m_right[c]) out += pad + cells[c];
      else out += last ? cells[c] : cells[c] + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(m_headers);
  for (const auto& r : m_rows) out += line(r);
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += "\"\"";
    else out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  return out + "\n";
}

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows only tab, LF and CR below 0x20.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += static_cast<char>(c);
    }
  }
  return out;
}

std::string fmt_fixed(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string fmt_given(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt_exact(v);
}

std::string fmt_exact(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  // No precision below the digits of the shortest round-trip form can round-trip, so the search starts
  // there: one snprintf instead of up to twelve per value (a 1,000,000-row sweep CSV spent a minute here).
  char sh[64];
  const auto r = std::to_chars(sh, sh + sizeof sh, v, std::chars_format::scientific);
  int digits = 0;
  for (const char* c = sh; c < r.ptr && *c != 'e'; ++c) digits += (*c >= '0' && *c <= '9');
  for (int prec = std::max(6, std::min(digits, 17)); prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string fmt_ms(double ms) {
  if (!std::isfinite(ms)) return "n/a";
  double a = std::fabs(ms);
  int digits = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
  return fmt_fixed(ms, digits) + " ms";
}

std::string fmt_bytes(double bytes) {
  if (!std::isfinite(bytes)) return "n/a";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = bytes;
  int u = 0;
  while (std::fabs(v) >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt_fixed(v, 0) + " B";
  return fmt_fixed(v, std::fabs(v) >= 100 ? 1 : 2) + " " + units[u];
}

std::string fmt_pct(double pct) {
  if (!std::isfinite(pct)) return "n/a";
  return (pct >= 0 ? "+" : "") + fmt_fixed(pct, 1) + "%";
}

std::string fmt_si(double v) {
  if (!std::isfinite(v)) return "n/a";
  const char* suffix[] = {"", "k", "M", "G", "T", "P"};
  int s = 0;
  double a = v;
  while (std::fabs(a) >= 1000 && s < 5) {
    a /= 1000;
    ++s;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g%s", a, suffix[s]);
  return buf;
}

}  // namespace perfpred::report

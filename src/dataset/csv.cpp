// RFC 4180 CSV: quoting, and the dataset reader (first-line comment, header, records, torn tail).
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred {

std::string csv_quote(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_quote(fields[i]);
  }
  out += '\n';
  return out;
}

int RawDataset::column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

const std::string& RawDataset::field(size_t row, std::string_view name) const {
  static const std::string empty;
  int c = column(name);
  if (c < 0) return empty;
  return rows.at(row)[static_cast<size_t>(c)];
}

namespace {

struct Record {
  std::vector<std::string> fields;
  int64_t line = 0;
};

/// Parse records from `text` starting at `pos`. A record is complete only when its terminating
/// newline was seen; a partial record at the end sets `torn`.
std::vector<Record> parse_records(const std::string& text, size_t pos, int64_t line, const std::string& label,
                                  bool& torn, size_t& complete_end) {
  std::vector<Record> out;
  torn = false;
  complete_end = pos;
  while (pos < text.size()) {
    Record rec;
    rec.line = line;
    std::string field;
    bool in_quotes = false, was_quoted = false, complete = false;
    while (pos < text.size()) {
      char c = text[pos++];
      if (in_quotes) {
        if (c == '"') {
          if (pos < text.size() && text[pos] == '"') {
            field += '"';
            ++pos;
          } else {
            in_quotes = false;
            if (pos < text.size() && text[pos] != ',' && text[pos] != '\n' && text[pos] != '\r')
              throw InputError(label + ":" + std::to_string(line) + ": unexpected character after a closing quote "
                               "(double a quote inside a quoted field)");
          }
        } else {
          if (c == '\n') ++line;
          field += c;
        }
      } else if (c == '"' && field.empty() && !was_quoted) {
        in_quotes = was_quoted = true;
      } else if (c == ',') {
        rec.fields.push_back(std::move(field));
        field.clear();
        was_quoted = false;
      } else if (c == '\n') {
        if (!was_quoted && !field.empty() && field.back() == '\r') field.pop_back();
        rec.fields.push_back(std::move(field));
        ++line;
        complete = true;
        break;
      } else if (c == '\r' && was_quoted) {
        // CRLF after a quoted field.
      } else {
        field += c;
      }
    }
    if (!complete) {
      torn = true;
      break;
    }
    complete_end = pos;
    // A blank line carries no row.
    if (rec.fields.size() == 1 && rec.fields[0].empty()) continue;
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace

RawDataset read_dataset(const std::filesystem::path& path, std::optional<DatasetKind> expect) {
  const std::string label = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(label + ": cannot open dataset (check the path)");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  RawDataset d;
  d.path = path;
  size_t eol = text.find('\n');
  if (eol == std::string::npos)
    throw InputError(label + ":1: no complete first line; expected '#perfpred kernel-dataset schema_version=1'");
  std::string first = trim(text.substr(0, eol));
  auto words = split(first, ' ');
  if (words.size() != 3 || words[0] != "#perfpred" || words[2].rfind("schema_version=", 0) != 0)
    throw InputError(label + ":1: first line '" + first +
                     "' is not '#perfpred kernel-dataset schema_version=1' (or network-dataset)");
  if (words[1] == "kernel-dataset")
    d.kind = DatasetKind::kernel;
  else if (words[1] == "network-dataset")
    d.kind = DatasetKind::network;
  else
    throw InputError(label + ":1: unknown dataset kind '" + words[1] + "' (kernel-dataset, network-dataset)");
  d.schema_version = static_cast<int>(parse_int64(words[2].substr(15), label + ":1: schema_version"));
  if (d.schema_version != k_dataset_schema_version)
    throw InputError(label + ":1: schema_version " + std::to_string(d.schema_version) + " is not supported (this perfpred reads " +
                     std::to_string(k_dataset_schema_version) + "); use a matching perfpred version");
  if (expect && *expect != d.kind)
    throw InputError(label + ": is a " + to_string(d.kind) + " dataset, expected a " + to_string(*expect) + " dataset");

  bool torn = false;
  size_t complete_end = 0;
  auto records = parse_records(text, eol + 1, 2, label, torn, complete_end);
  d.complete_bytes = static_cast<int64_t>(complete_end);
  if (records.empty()) throw InputError(label + ":2: missing header line (column names)");
  if (records.front().line != 2) throw InputError(label + ":2: the header must be the second line");
  d.header = std::move(records.front().fields);
  for (size_t i = 0; i < d.header.size(); ++i) {
    if (d.header[i].empty()) throw InputError(label + ":2: column " + std::to_string(i + 1) + " has an empty name");
    for (size_t j = 0; j < i; ++j)
      if (d.header[j] == d.header[i]) throw InputError(label + ":2: column '" + d.header[i] + "' appears twice");
  }
  for (const auto& req : required_columns(d.kind))
    if (d.column(req) < 0)
      throw InputError(label + ":2: missing required column '" + req + "' (docs/formats.md lists the columns)");

  for (size_t r = 1; r < records.size(); ++r) {
    auto& rec = records[r];
    if (rec.fields.size() != d.header.size())
      throw InputError(label + ":" + std::to_string(rec.line) + ": " + std::to_string(rec.fields.size()) +
                       " fields, but the header has " + std::to_string(d.header.size()));
    d.rows.push_back(std::move(rec.fields));
    d.row_lines.push_back(rec.line);
  }
  if (torn) {
    int64_t line = d.row_lines.empty() ? 3 : d.row_lines.back() + 1;
    for (const auto& rec : records) line = std::max(line, rec.line + 1);
    std::string w = label + ":" + std::to_string(line) + ": last line has no newline (a writer was killed); skipped";
    spdlog::warn("{}", w);
    d.warnings.push_back(w);
    d.torn_tail = true;
  }
  return d;
}

}  // namespace perfpred

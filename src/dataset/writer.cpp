// Crash-safe appends: one write() per complete line on an O_APPEND descriptor, fsync at checkpoints.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {

namespace {

std::string first_line(DatasetKind k) {
  return "#perfpred " + to_string(k) + "-dataset schema_version=" + std::to_string(k_dataset_schema_version) + "\n";
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

DatasetWriter::DatasetWriter(const std::filesystem::path& path, DatasetKind kind) : m_path(path), m_kind(kind) {
  std::error_code ec;
  auto size = std::filesystem::exists(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  if (size > 0) {
    // An existing dataset: check it, then cut a torn tail so the next row starts on its own line.
    RawDataset d = read_dataset(path, kind);
    m_header = d.header;
    for (const auto& c : m_header) {
      bool known = false;
      for (const auto& k : (kind == DatasetKind::kernel ? kernel_columns() : network_columns())) known = known || k == c;
      if (!known) spdlog::debug("{}: column '{}' is not written by this version; appended rows leave it empty", path.string(), c);
    }
    if (d.torn_tail) {
      auto keep = static_cast<uintmax_t>(d.complete_bytes);
      if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0)
        throw InputError(path.string() + ": cannot cut the torn last line: " + errno_text());
      spdlog::warn("{}: removed a torn last line ({} bytes) left by a killed writer", path.string(), size - keep);
    }
  }
  m_fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw InputError(path.string() + ": cannot open for writing: " + errno_text());
  if (m_header.empty()) {
    m_header = kind == DatasetKind::kernel ? kernel_columns() : network_columns();
    write_line(first_line(kind) + csv_line(m_header));
    sync();
  }
}

DatasetWriter::~DatasetWriter() {
  if (m_fd >= 0) {
    ::fsync(m_fd);
    ::close(m_fd);
  }
}

void DatasetWriter::write_line(const std::string& line) {
  if (m_fd < 0) throw InternalError(m_path.string() + ": write after close");
  // One write() of the whole line: with O_APPEND a killed process leaves a prefix at worst,
  // which readers skip as a torn last line.
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InternalError(m_path.string() + ": write failed: " + errno_text());
    }
    done += static_cast<size_t>(n);
  }
}

void DatasetWriter::append_fields(const std::vector<std::string>& canonical,
                                  const std::map<std::string, std::string>& extra) {
  const auto& cols = m_kind == DatasetKind::kernel ? kernel_columns() : network_columns();
  std::vector<std::string> out(m_header.size());
  for (size_t i = 0; i < m_header.size(); ++i) {
    bool found = false;
    for (size_t c = 0; c < cols.size(); ++c)
      if (cols[c] == m_header[i]) {
        out[i] = canonical[c];
        found = true;
        break;
      }
    if (!found) {
      auto it = extra.find(m_header[i]);
      if (it != extra.end()) out[i] = it->second;
    }
  }
  write_line(csv_line(out));
  ++m_rows_written;
}

void DatasetWriter::append(const KernelRow& r) {
  if (m_kind != DatasetKind::kernel) throw InternalError(m_path.string() + ": kernel row appended to a network dataset");
  append_fields(to_fields(r), r.extra);
}

void DatasetWriter::append(const NetworkRow& r) {
  if (m_kind != DatasetKind::network) throw InternalError(m_path.string() + ": network row appended to a kernel dataset");
  append_fields(to_fields(r), r.extra);
}

void DatasetWriter::append_named(const std::map<std::string, std::string>& fields) {
  for (const auto& [k, v] : fields) {
    bool ok = false;
    for (const auto& h : m_header) ok = ok || h == k;
    if (!ok) throw InternalError(m_path.string() + ": no column '" + k + "'");
  }
  std::vector<std::string> out(m_header.size());
  for (size_t i = 0; i < m_header.size(); ++i) {
    auto it = fields.find(m_header[i]);
    if (it != fields.end()) out[i] = it->second;
  }
  write_line(csv_line(out));
  ++m_rows_written;
}

void DatasetWriter::sync() {
  if (m_fd >= 0 && ::fsync(m_fd) != 0 && errno != EINVAL)
    throw InternalError(m_path.string() + ": fsync failed: " + errno_text());
}

void DatasetWriter::close() {
  if (m_fd < 0) return;
  sync();
  ::close(m_fd);
  m_fd = -1;
}

}  // namespace perfpred

// Kernel and network rows: column lists, enum names, and conversion between rows and text fields.
#include <charconv>
#include <cmath>
#include <cstdio>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred {

std::string to_string(DatasetKind k) { return k == DatasetKind::kernel ? "kernel" : "network"; }

DatasetKind dataset_kind_from_string(std::string_view s, std::string_view what) {
  if (s == "kernel") return DatasetKind::kernel;
  if (s == "network") return DatasetKind::network;
  throw InputError(std::string(what) + ": '" + printable(s, 60) + "' is not a dataset kind (kernel, network)");
}

std::string to_string(RowStatus s) {
  switch (s) {
    case RowStatus::ok: return "ok";
    case RowStatus::failed: return "failed";
    case RowStatus::unsupported: return "unsupported";
    case RowStatus::oom: return "oom";
    case RowStatus::skipped: return "skipped";
  }
  return "failed";
}

RowStatus row_status_from_string(std::string_view s, std::string_view what) {
  for (RowStatus v : {RowStatus::ok, RowStatus::failed, RowStatus::unsupported, RowStatus::oom, RowStatus::skipped})
    if (s == to_string(v)) return v;
  throw InputError(std::string(what) + ": '" + printable(s, 60) +
                   "' is not a status (ok, failed, unsupported, oom, skipped)");
}

const std::vector<std::string>& kernel_columns() {
  static const std::vector<std::string> cols = {
      "id",      "status",     "reason", "source", "synthetic", "gpu_id",     "runtime",     "runtime_version",
      "precision", "op_family", "op",    "phase",  "inputs",    "attrs",      "gemm_batch",  "gemm_m",
      "gemm_n",  "gemm_k",     "flops",  "bytes",  "time_ms",   "time_ms_min", "repeats",    "power_w",
      "energy_mj", "kernel_names", "notes", "model_family"};
  return cols;
}

const std::vector<std::string>& network_columns() {
  static const std::vector<std::string> cols = {
      "id",     "status",       "reason",  "source", "synthetic", "gpu_id",       "runtime",   "runtime_version",
      "precision", "model",     "model_family", "recipe", "mode", "batch",        "includes_h2d", "latency_ms",
      "energy_mj", "power_w",   "power_source", "power_limit_w", "peak_memory_bytes", "notes"};
  return cols;
}

const std::vector<std::string>& required_columns(DatasetKind k) {
  static const std::vector<std::string> kernel = {"id", "status", "gpu_id", "precision", "op_family", "op", "time_ms"};
  static const std::vector<std::string> network = {"id", "status", "gpu_id", "precision", "model", "mode", "batch",
                                                   "latency_ms"};
  return k == DatasetKind::kernel ? kernel : network;
}

std::string format_number(double v) {
  if (!std::isfinite(v)) throw InternalError("format_number: non-finite value");
  if (v == 0) return "0";
  if (std::fabs(v) < 9.0e15 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  // Six significant digits is far below the noise of any timing, and keeps files small.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  double r = std::strtod(buf, nullptr);
  char out[400];
  auto res = std::to_chars(out, out + sizeof out, r, std::chars_format::fixed);
  if (res.ec != std::errc()) throw InternalError("format_number: cannot format value");
  return std::string(out, res.ptr);
}

namespace {

std::string opt(const std::optional<double>& v) { return v ? format_number(*v) : std::string(); }
std::string opt(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string(); }

}  // namespace

std::vector<std::string> to_fields(const KernelRow& r) {
  return {r.id,        to_string(r.status),
          r.reason,    r.source,
          r.synthetic ? "1" : "0",
          r.gpu_id,    r.runtime,
          r.runtime_version, r.precision,
          r.op_family, r.op,
          r.phase,     r.inputs,
          r.attrs,     opt(r.gemm_batch),
          opt(r.gemm_m), opt(r.gemm_n),
          opt(r.gemm_k), opt(r.flops),
          opt(r.bytes), opt(r.time_ms),
          opt(r.time_ms_min), opt(r.repeats),
          opt(r.power_w), opt(r.energy_mj),
          r.kernel_names, r.notes,
          r.model_family};
}

std::vector<std::string> to_fields(const NetworkRow& r) {
  return {r.id,          to_string(r.status),
          r.reason,      r.source,
          r.synthetic ? "1" : "0",
          r.gpu_id,      r.runtime,
          r.runtime_version, r.precision,
          r.model,       r.model_family,
          r.recipe,      r.mode,
          opt(r.batch),  r.includes_h2d ? (*r.includes_h2d ? "1" : "0") : "",
          opt(r.latency_ms), opt(r.energy_mj),
          opt(r.power_w), r.power_source,
          opt(r.power_limit_w), opt(r.peak_memory_bytes), r.notes};
}

namespace {

std::string str_of(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// Typed access to one row of a RawDataset with errors naming file, line and column.
class RowView {
 public:
  RowView(const RawDataset& d, size_t i) : m_d(d), m_i(i) {}
  const std::string& str(std::string_view col) const { return m_d.field(m_i, col); }
  std::string where(std::string_view col) const {
    return m_d.path.string() + ":" + std::to_string(m_d.row_lines[m_i]) + ": column '" + std::string(col) + "'";
  }
  std::optional<double> num(std::string_view col) const {
    const std::string& s = str(col);
    if (s.empty()) return std::nullopt;
    return parse_double(s, where(col));
  }
  /// A measured quantity (time, energy, power, bytes): empty, or a finite number of at least `min`
  /// (1e-30 by default: a denormal such as 1e-320 is no measurement, and its ratio to a prediction
  /// underflows to zero, whose log a learner cannot take).
  std::optional<double> measured(std::string_view col, double min = 1e-30) const {
    auto v = num(col);
    if (v && !(std::isfinite(*v) && *v > 0))
      throw InputError(where(col) + ": '" + printable(str(col), 60) + "' is not a measurement (a positive number, or empty)");
    if (v && *v < min)
      throw InputError(where(col) + ": '" + printable(str(col), 60) + "' is below " + (min == 1 ? std::string("one") : str_of(min)) +
                       "; no measurement is that small (check the unit)");
    return v;
  }
  std::optional<int64_t> integer(std::string_view col) const {
    const std::string& s = str(col);
    if (s.empty()) return std::nullopt;
    // Converted files may write integral counts as "8.0".
    double v = parse_double(s, where(col));
    if (v != std::floor(v) || std::fabs(v) > 9.0e18) throw InputError(where(col) + ": '" + printable(s, 60) + "' is not an integer");
    return static_cast<int64_t>(v);
  }
  std::optional<bool> flag(std::string_view col) const {
    const std::string& s = str(col);
    if (s.empty()) return std::nullopt;
    if (s == "1" || s == "true") return true;
    if (s == "0" || s == "false") return false;
    throw InputError(where(col) + ": '" + printable(s, 60) + "' is not 0 or 1");
  }
  RowStatus status() const {
    const std::string& s = str("status");
    if (s.empty()) throw InputError(where("status") + ": empty (ok, failed, unsupported, oom, skipped)");
    return row_status_from_string(s, where("status"));
  }
  std::string required(std::string_view col) const {
    const std::string& s = str(col);
    if (s.empty()) throw InputError(where(col) + ": empty, but every row needs it");
    return s;
  }
  std::map<std::string, std::string> extra(const std::vector<std::string>& known) const {
    std::map<std::string, std::string> out;
    for (size_t c = 0; c < m_d.header.size(); ++c) {
      bool is_known = false;
      for (const auto& k : known) is_known = is_known || k == m_d.header[c];
      if (!is_known) out[m_d.header[c]] = m_d.rows[m_i][c];
    }
    return out;
  }

 private:
  const RawDataset& m_d;
  size_t m_i;
};

}  // namespace

std::vector<KernelRow> kernel_rows(const RawDataset& d) {
  if (d.kind != DatasetKind::kernel)
    throw InputError(d.path.string() + ": is a " + to_string(d.kind) + " dataset, expected a kernel dataset");
  std::vector<KernelRow> out;
  out.reserve(d.rows.size());
  for (size_t i = 0; i < d.rows.size(); ++i) {
    RowView v(d, i);
    KernelRow r;
    r.id = v.required("id");
    r.status = v.status();
    r.reason = v.str("reason");
    r.source = v.str("source");
    r.synthetic = v.flag("synthetic").value_or(false);
    r.gpu_id = v.required("gpu_id");
    r.runtime = v.str("runtime");
    r.runtime_version = v.str("runtime_version");
    r.precision = v.str("precision");
    r.op_family = v.str("op_family");
    r.op = v.str("op");
    r.phase = v.str("phase");
    r.inputs = v.str("inputs");
    r.attrs = v.str("attrs");
    r.gemm_batch = v.integer("gemm_batch");
    r.gemm_m = v.integer("gemm_m");
    r.gemm_n = v.integer("gemm_n");
    r.gemm_k = v.integer("gemm_k");
    r.flops = v.num("flops");
    r.bytes = v.num("bytes");
    r.time_ms = v.measured("time_ms");
    r.time_ms_min = v.measured("time_ms_min");
    r.repeats = v.integer("repeats");
    r.power_w = v.measured("power_w");
    r.energy_mj = v.measured("energy_mj");
    r.kernel_names = v.str("kernel_names");
    r.notes = v.str("notes");
    r.model_family = v.str("model_family");
    if (r.status == RowStatus::ok && !r.time_ms)
      throw InputError(v.where("time_ms") + ": empty in an 'ok' row (give a time or a non-ok status)");
    r.extra = v.extra(kernel_columns());
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<NetworkRow> network_rows(const RawDataset& d) {
  if (d.kind != DatasetKind::network)
    throw InputError(d.path.string() + ": is a " + to_string(d.kind) + " dataset, expected a network dataset");
  std::vector<NetworkRow> out;
  out.reserve(d.rows.size());
  for (size_t i = 0; i < d.rows.size(); ++i) {
    RowView v(d, i);
    NetworkRow r;
    r.id = v.required("id");
    r.status = v.status();
    r.reason = v.str("reason");
    r.source = v.str("source");
    r.synthetic = v.flag("synthetic").value_or(false);
    r.gpu_id = v.required("gpu_id");
    r.runtime = v.str("runtime");
    r.runtime_version = v.str("runtime_version");
    r.precision = v.str("precision");
    r.model = v.str("model");
    r.model_family = v.str("model_family");
    r.recipe = v.str("recipe");
    r.mode = v.str("mode");
    r.batch = v.integer("batch");
    r.includes_h2d = v.flag("includes_h2d");
    r.latency_ms = v.measured("latency_ms");
    r.energy_mj = v.measured("energy_mj");
    r.power_w = v.measured("power_w");
    r.power_source = v.str("power_source");
    r.power_limit_w = v.measured("power_limit_w");
    r.peak_memory_bytes = v.measured("peak_memory_bytes", 1);
    r.notes = v.str("notes");
    // An 'ok' row is a measurement: it needs at least one measured target. Memory-only rows
    // (training peak memory) and energy/power-only rows are valid; each consumer filters the
    // rows per target.
    if (r.status == RowStatus::ok && !r.latency_ms && !r.energy_mj && !r.power_w && !r.peak_memory_bytes)
      throw InputError(v.where("latency_ms") +
                       ": an 'ok' row has none of latency_ms, energy_mj, power_w, peak_memory_bytes "
                       "(give at least one measured value or a non-ok status)");
    r.extra = v.extra(network_columns());
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<KernelRow> read_kernel_rows(const std::filesystem::path& path) {
  return kernel_rows(read_dataset(path, DatasetKind::kernel));
}

std::vector<NetworkRow> read_network_rows(const std::filesystem::path& path) {
  return network_rows(read_dataset(path, DatasetKind::network));
}

}  // namespace perfpred

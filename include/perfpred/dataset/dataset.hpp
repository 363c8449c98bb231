#pragma once
/// Datasets of measured kernels and networks: CSV rows plus a JSON sidecar (docs/formats.md).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfpred {

/// Version written into the first-line comment and the sidecar; readers reject other versions.
inline constexpr int k_dataset_schema_version = 1;

/// Kernel rows (one operator execution) or network rows (one whole model run).
enum class DatasetKind { kernel, network };
/// Outcome of one measurement; only `ok` rows train.
enum class RowStatus { ok, failed, unsupported, oom, skipped };

std::string to_string(DatasetKind k);
/// Inverse of to_string; throws InputError naming `what` and the accepted values.
DatasetKind dataset_kind_from_string(std::string_view s, std::string_view what = "kind");
std::string to_string(RowStatus s);
/// Inverse of to_string; throws InputError naming `what` and the accepted values.
RowStatus row_status_from_string(std::string_view s, std::string_view what = "status");

/// One operator execution (`#perfpred kernel-dataset`). Empty optionals are written as empty fields.
struct KernelRow {
  std::string id;
  RowStatus status = RowStatus::ok;
  std::string reason;
  std::string source;
  bool synthetic = false;
  std::string gpu_id;
  std::string runtime;
  std::string runtime_version;
  std::string precision;
  std::string op_family;
  std::string op;
  std::string phase;
  std::string inputs;  ///< "8x64x56x56;64x64x3x3"
  std::string attrs;   ///< "kernel_h=3;stride_h=1"
  std::optional<int64_t> gemm_batch, gemm_m, gemm_n, gemm_k;
  std::optional<double> flops;
  std::optional<double> bytes;
  std::optional<double> time_ms;
  std::optional<double> time_ms_min;
  std::optional<int64_t> repeats;
  std::optional<double> power_w;
  std::optional<double> energy_mj;
  std::string kernel_names;  ///< "|"-separated
  std::string notes;
  /// The family of networks (application) the kernel's shape comes from (DeepBench: `deepspeech`, `vision`,
  /// ...), empty when not known; `--holdout-family` matches it as it matches an op family.
  std::string model_family;
  /// Columns this version does not know, kept by name so a merge or rewrite loses nothing.
  std::map<std::string, std::string> extra;
};

/// One whole model run (`#perfpred network-dataset`).
struct NetworkRow {
  std::string id;
  RowStatus status = RowStatus::ok;
  std::string reason;
  std::string source;
  bool synthetic = false;
  std::string gpu_id;
  std::string runtime;
  std::string runtime_version;
  std::string precision;
  std::string model;         ///< ONNX path relative to the CSV's directory
  std::string model_family;
  std::string recipe;
  std::string mode;          ///< "inference" or "training"
  std::optional<int64_t> batch;
  std::optional<bool> includes_h2d;
  std::optional<double> latency_ms;
  std::optional<double> energy_mj;
  std::optional<double> power_w;
  std::string power_source;
  std::optional<double> power_limit_w;  ///< power limit set below the TDP during the run (nvidia-smi -pl); empty = TDP
  std::optional<double> peak_memory_bytes;
  std::string notes;
  std::map<std::string, std::string> extra;
};

/// Column names in file order, and the subset a reader requires.
const std::vector<std::string>& kernel_columns();
const std::vector<std::string>& network_columns();
const std::vector<std::string>& required_columns(DatasetKind k);

/// Field values in kernel_columns()/network_columns() order (numbers formatted as plain decimals).
std::vector<std::string> to_fields(const KernelRow& r);
std::vector<std::string> to_fields(const NetworkRow& r);

/// Plain decimal text of a number: integers without a point, others with up to 6 significant
/// digits, never an exponent. NaN/inf throw InternalError.
std::string format_number(double v);

/// RFC 4180: quote a field that contains a comma, a quote, CR or LF, doubling quotes.
std::string csv_quote(std::string_view field);
/// One CSV line (fields quoted as needed) with its trailing "\n".
std::string csv_line(const std::vector<std::string>& fields);

/// A dataset file as read, before typing: header, records with the line each starts on.
struct RawDataset {
  std::filesystem::path path;
  DatasetKind kind = DatasetKind::kernel;
  int schema_version = 0;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int64_t> row_lines;     ///< 1-based line where each row starts
  std::vector<std::string> warnings;  ///< torn last line, ...
  bool torn_tail = false;             ///< the file ended inside a row (a killed writer)
  int64_t complete_bytes = 0;         ///< file offset just after the last complete line

  /// Index of a column by name, or -1.
  int column(std::string_view name) const;
  /// Field of row i by column name; "" when the column is absent.
  const std::string& field(size_t row, std::string_view name) const;
};

/// Read and validate a dataset CSV: the first-line comment (kind, schema_version), the header,
/// required columns, and that every row has as many fields as the header. Errors are InputError
/// naming the file, line and column. A torn last line is skipped with a warning (logged and kept
/// in `warnings`). `expect` checks the kind when given.
RawDataset read_dataset(const std::filesystem::path& path, std::optional<DatasetKind> expect = std::nullopt);

/// Typed rows. Bad numbers and statuses throw InputError naming file, line and column.
std::vector<KernelRow> kernel_rows(const RawDataset& d);
std::vector<NetworkRow> network_rows(const RawDataset& d);
/// Convenience: read_dataset + kernel_rows / network_rows.
std::vector<KernelRow> read_kernel_rows(const std::filesystem::path& path);
std::vector<NetworkRow> read_network_rows(const std::filesystem::path& path);

/// Appends rows to a dataset CSV crash-safely: O_APPEND, one write() per complete line including
/// its newline, fsync at sync() and close(). Opening an existing file checks its first line and
/// header and writes later rows in that header's column order; a torn last line left by a killed
/// writer is cut off (with a warning) so the next row starts on a line of its own.
class DatasetWriter {
 public:
  DatasetWriter(const std::filesystem::path& path, DatasetKind kind);
  ~DatasetWriter();
  DatasetWriter(const DatasetWriter&) = delete;
  DatasetWriter& operator=(const DatasetWriter&) = delete;

  void append(const KernelRow& r);
  void append(const NetworkRow& r);
  /// Append fields given by column name (merge); unknown names are an InternalError.
  void append_named(const std::map<std::string, std::string>& fields);
  /// fsync the file: rows written so far survive a power loss.
  void sync();
  /// sync and close; further appends throw.
  void close();

  const std::filesystem::path& path() const { return m_path; }
  DatasetKind kind() const { return m_kind; }
  int64_t rows_written() const { return m_rows_written; }
  /// Column order of the file.
  const std::vector<std::string>& header() const { return m_header; }

 private:
  void write_line(const std::string& line);
  void append_fields(const std::vector<std::string>& canonical, const std::map<std::string, std::string>& extra);

  std::filesystem::path m_path;
  DatasetKind m_kind;
  int m_fd = -1;
  std::vector<std::string> m_header;
  int64_t m_rows_written = 0;
};

/// The sidecar `<file>.csv.meta.json`.
struct DatasetMeta {
  int schema_version = k_dataset_schema_version;
  DatasetKind kind = DatasetKind::kernel;
  nlohmann::json sources = nlohmann::json::array();   ///< [{name, repository, commit, licence}]
  std::string licence;                                ///< MIT, Apache-2.0, perfpred-measured, ...
  std::string created_by;
  nlohmann::json devices = nlohmann::json::object();  ///< gpu_id -> GpuSpec JSON (catalog format)
  nlohmann::json environment = nlohmann::json::object();  ///< driver, cuda, cudnn, ...
  nlohmann::json plan;                                ///< the profiling plan, or null
  std::vector<std::string> notes;
  /// Keys this version does not know, kept for a rewrite.
  nlohmann::json extra = nlohmann::json::object();
};

/// Path of the sidecar of a CSV: "<file>.csv.meta.json".
std::filesystem::path sidecar_path(const std::filesystem::path& csv);
nlohmann::json to_json(const DatasetMeta& m);
/// Parse a sidecar; InputError naming `label` and the field when malformed.
DatasetMeta dataset_meta_from_json(const nlohmann::json& j, const std::string& label);
/// Read a sidecar file; InputError when missing or malformed.
DatasetMeta read_dataset_meta(const std::filesystem::path& path);
/// Write a sidecar atomically (temporary file, fsync, rename).
void write_dataset_meta(const std::filesystem::path& path, const DatasetMeta& m);

/// What `perfpred dataset merge` did.
struct MergeResult {
  DatasetKind kind = DatasetKind::kernel;
  int64_t rows_in = 0;
  int64_t rows_out = 0;
  int64_t duplicates = 0;           ///< rows dropped because their id was already taken
  int64_t conflicting_duplicates = 0;  ///< of those, rows whose fields differed from the kept one
  std::vector<std::string> warnings;
};

/// Join shards of one kind and schema into `out` (which must not exist): rows deduplicated by id
/// (first occurrence wins, in argument order), columns the union of the inputs' (first file's
/// order, then new ones), sidecars merged when present (devices, sources and notes united,
/// environment and plan kept when equal, else recorded per shard under `shards`).
MergeResult merge_datasets(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs);

/// Summary for `perfpred dataset info`.
struct DatasetInfo {
  std::filesystem::path path;
  DatasetKind kind = DatasetKind::kernel;
  int schema_version = 0;
  int64_t rows = 0;
  std::map<std::string, int64_t> by_status;
  std::map<std::string, int64_t> by_gpu;
  std::map<std::string, int64_t> by_family;  ///< op_family (kernel) or model_family (network)
  int64_t synthetic_rows = 0;
  bool has_sidecar = false;
  std::string licence;
  std::vector<std::string> warnings;
};

DatasetInfo dataset_info(const std::filesystem::path& path);
nlohmann::json to_json(const DatasetInfo& i);

}  // namespace perfpred

// Reading the small constants a model keeps in external data files (external_data.hpp).
#include "external_data.hpp"

#include <cerrno>
#include <cstring>
#include <optional>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfpred/util/checked_math.hpp"
#include "limits.hpp"
#include "shape_rules.hpp"

namespace perfpred::onnx_import::detail {

bool keeps_values(DType dt, int64_t numel) {
  if (is_integral(dt)) return numel <= k_max_fold_elems;
  const bool fl = dt == DType::f32 || dt == DType::f64 || dt == DType::f16 || dt == DType::bf16;
  return fl && numel <= k_max_float_values;
}

namespace {

// A decimal byte count or offset as external_data writes it; nullopt for anything else.
std::optional<int64_t> parse_count(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Why `location` may not be opened, or "" when it may: the file must lie in the model's folder or below it.
std::string location_problem(const std::string& loc) {
  if (loc.empty()) return "no location";
  if (loc.find('\0') != std::string::npos) return "a location with a NUL byte";
  if (loc.front() == '/' || loc.front() == '\\') return "an absolute location, not read (only files beside the model are)";
  size_t start = 0;
  while (start <= loc.size()) {
    size_t end = loc.find_first_of("/\\", start);
    if (end == std::string::npos) end = loc.size();
    if (loc.compare(start, end - start, "..") == 0)
      return "a location outside the model's folder (..), not read (only files beside the model are)";
    start = end + 1;
  }
  return "";
}

class Reader {
 public:
  explicit Reader(std::filesystem::path dir) : m_dir(std::move(dir)) {}
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader() {
    for (auto& [loc, f] : m_files)
      if (f.fd >= 0) ::close(f.fd);
  }

  // Read tensor `tp` into raw_data; "" on success, else why not (prefixed with its location).
  std::string load(onnx::TensorProto& tp, int64_t bytes) {
    std::string loc;
    std::optional<int64_t> offset = 0, length;
    for (const auto& kv : tp.external_data()) {
      if (kv.key() == "location") loc = kv.value();
      else if (kv.key() == "offset") offset = parse_count(kv.value());
      else if (kv.key() == "length") length = parse_count(kv.value());
    }
    if (std::string bad = location_problem(loc); !bad.empty()) return loc.empty() ? bad : "'" + loc + "': " + bad;
    const std::string where = "'" + loc + "'";
    if (!offset) return where + ": an offset that is not a byte count";
    if (length && *length != bytes)
      return where + ": its length says " + std::to_string(*length) + " bytes, its dims and type make " + std::to_string(bytes);
    File& f = open(loc);
    if (f.fd < 0) return where + ": " + f.error;
    if (*offset > f.size || bytes > f.size - *offset)
      return where + ": bytes " + std::to_string(*offset) + "-" + std::to_string(*offset + bytes) +
             " lie beyond the file's end (" + std::to_string(f.size) + " bytes)";
    std::string raw(static_cast<size_t>(bytes), '\0');
    size_t got = 0;
    while (got < raw.size()) {
      const ssize_t r = ::pread(f.fd, raw.data() + got, raw.size() - got, static_cast<off_t>(*offset) + static_cast<off_t>(got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return where + ": cannot read (" + (r < 0 ? std::string(std::strerror(errno)) : "short file") + ")";
      got += static_cast<size_t>(r);
    }
    tp.set_raw_data(std::move(raw));
    tp.clear_external_data();
    tp.set_data_location(onnx::TensorProto::DEFAULT);
    return "";
  }

 private:
  struct File {
    int fd = -1;
    int64_t size = 0;
    std::string error;
  };

  File& open(const std::string& loc) {
    auto it = m_files.find(loc);
    if (it != m_files.end()) return it->second;
    File f;
    const std::filesystem::path p = m_dir / loc;
    f.fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the import
    struct stat st {};
    if (f.fd < 0) {
      f.error = errno == ENOENT ? "no such file beside the model" : "cannot open (" + std::string(std::strerror(errno)) + ")";
    } else if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(f.fd);
      f.fd = -1;
      f.error = "not a regular file";
    } else {
      f.size = static_cast<int64_t>(st.st_size);
    }
    return m_files.emplace(loc, std::move(f)).first->second;
  }

  std::filesystem::path m_dir;
  std::unordered_map<std::string, File> m_files;
};

// `name`: what the graph calls the tensor (a Constant's value is its node's output).
void load_tensor(onnx::TensorProto& tp, const std::string& name, Reader& reader, std::map<std::string, std::string>& unread) {
  if (tp.data_location() != onnx::TensorProto::EXTERNAL) return;
  const DType dt = dtype_from_onnx(tp.data_type());
  const int64_t esize = dtype_size(dt);
  if (esize <= 0) return;
  const auto n = checked_product(std::span<const int64_t>(tp.dims().data(), static_cast<size_t>(tp.dims_size())));
  if (!n) return;  // negative or overflowing dims: the importer reports them
  if (!keeps_values(dt, *n)) return;  // a weight: its values are never needed
  if (std::string why = reader.load(tp, *n * esize); !why.empty()) unread.emplace(name, std::move(why));
}

void load_graph(onnx::GraphProto& g, Reader& reader, std::map<std::string, std::string>& unread, int depth) {
  if (depth > k_max_subgraph_depth) return;  // the importer refuses deeper nesting with its own message
  for (auto& t : *g.mutable_initializer()) load_tensor(t, t.name(), reader, unread);
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_t())
        load_tensor(*a.mutable_t(), n.op_type() == "Constant" && n.output_size() > 0 ? n.output(0) : a.t().name(), reader, unread);
      if (a.has_g()) load_graph(*a.mutable_g(), reader, unread, depth + 1);
      for (auto& sub : *a.mutable_graphs()) load_graph(sub, reader, unread, depth + 1);
    }
}

}  // namespace

std::map<std::string, std::string> load_small_external_data(onnx::ModelProto& model, const std::filesystem::path& model_dir) {
  std::map<std::string, std::string> unread;
  if (!model.has_graph()) return unread;
  Reader reader(model_dir.empty() ? std::filesystem::path(".") : model_dir);
  load_graph(*model.mutable_graph(), reader, unread, 0);
  return unread;
}

}  // namespace perfpred::onnx_import::detail

// The profiling run. Every row is appended as soon as it is measured, so a kill loses at most the
// entry in flight; --resume skips ids already in the files (rows of any status).
#include "perfpred/profile/runner.hpp"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <csignal>
#include <set>

#include <spdlog/spdlog.h>

#include "perfpred/hw/catalog.hpp"
#include "perfpred/profile/mig.hpp"
#include "perfpred/profile/progress.hpp"
#include "perfpred/util/json_file.hpp"
#include "perfpred/util/error.hpp"
#include "perfpred/util/strings.hpp"

namespace perfpred {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

/// Installs SIGINT/SIGTERM handlers for the duration of a run and restores the previous ones.
class SignalScope {
 public:
  SignalScope() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, &m_old_int);
    sigaction(SIGTERM, &sa, &m_old_term);
  }
  ~SignalScope() {
    sigaction(SIGINT, &m_old_int, nullptr);
    sigaction(SIGTERM, &m_old_term, nullptr);
  }

 private:
  struct sigaction m_old_int {}, m_old_term {};
};

std::string normalize(const std::string& s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Ids already in a dataset, checking that its rows belong to this device.
std::set<std::string> existing_ids(const std::filesystem::path& csv, const std::string& gpu_id, DatasetKind kind) {
  std::set<std::string> ids;
  RawDataset d = read_dataset(csv, kind);
  for (size_t r = 0; r < d.rows.size(); ++r) {
    const std::string& g = d.field(r, "gpu_id");
    if (g != gpu_id)
      throw InputError(csv.string() + ":" + std::to_string(d.row_lines[r]) + ": holds rows of gpu '" + g +
                       "' but this run measures '" + gpu_id + "'; use another --out for another device");
    ids.insert(d.field(r, "id"));
  }
  return ids;
}

}  // namespace

void request_profile_stop(int signal) { g_stop_signal = signal; }

std::filesystem::path kernel_dataset_path(const std::filesystem::path& out_dir) { return out_dir / "kernels.csv"; }
std::filesystem::path microbench_dataset_path(const std::filesystem::path& out_dir) { return out_dir / "microbench.csv"; }
std::filesystem::path network_dataset_path(const std::filesystem::path& out_dir) { return out_dir / "networks.csv"; }

namespace {

/// Inside a MIG instance CUDA names the device "<parent name> MIG <profile>" ("NVIDIA A100-SXM4-40GB
/// MIG 3g.20gb") and reports the slice's SMs and memory: key it as the catalog's slice id.
std::string match_mig_slice(const DeviceDescription& d) {
  auto pos = d.name.find(" MIG ");
  if (pos == std::string::npos) return "";
  mig::MigInstance m;
  m.in_mig = true;
  m.profile = m.gpu_instance_profile = trim(d.name.substr(pos + 5));
  m.parent_name = d.name.substr(0, pos);
  try {
    return mig::catalog_slice_id(m, GpuCatalog::instance());
  } catch (const std::exception& e) {
    spdlog::warn("GPU catalog unavailable ({}); the MIG slice is recorded by its spec", e.what());
  }
  return "";
}

}  // namespace

std::string match_catalog_id(const DeviceDescription& d) {
  if (auto slice = match_mig_slice(d); !slice.empty()) return slice;
  int sms = d.spec.value("sm_count", 0);
  double mem_gb = d.spec.value("memory_gb", 0.0);
  std::vector<const GpuSpec*> candidates;
  try {
    for (const auto& g : GpuCatalog::instance().devices()) {
      bool sm_ok = sms > 0 && g.sm_count == sms;
      bool mem_ok = mem_gb > 0 && std::fabs(g.memory_gb - mem_gb) <= 0.12 * g.memory_gb;
      if (sm_ok && mem_ok) candidates.push_back(&g);
    }
  } catch (const std::exception& e) {
    spdlog::warn("GPU catalog unavailable ({}); the device is recorded by its spec", e.what());
  }
  const GpuSpec* best = nullptr;
  int best_score = -1;
  auto have = alnum_tokens(d.name);
  for (const auto* g : candidates) {
    int score = 0;
    for (const auto& t : alnum_tokens(g->name))
      if (std::find(have.begin(), have.end(), t) != have.end()) score += static_cast<int>(t.size());
    if (normalize(d.name).find(normalize(g->name)) != std::string::npos) score += 100;
    if (score > best_score) best = g, best_score = score;
  }
  if (best && best_score > 0) return best->id;
  return "spec:" + (d.name.empty() ? std::string("unknown") : d.name);
}

KernelRow to_kernel_row(const PlanEntry& e, const Measurement& m, const DeviceDescription& d) {
  KernelRow r;
  r.id = e.id;
  r.status = m.status;
  r.reason = m.reason;
  r.source = d.source;
  r.synthetic = d.synthetic;
  r.gpu_id = d.gpu_id;
  r.runtime = m.runtime;
  r.runtime_version = m.runtime_version;
  r.precision = e.has_precision ? to_string(e.precision) : "";
  r.op_family = e.op_family;
  r.op = e.op;
  r.phase = e.phase;
  r.inputs = e.inputs_text();
  r.attrs = e.attrs_text();
  if (e.gemm_m > 0) {
    r.gemm_batch = e.gemm_batch;
    r.gemm_m = e.gemm_m;
    r.gemm_n = e.gemm_n;
    r.gemm_k = e.gemm_k;
  }
  r.flops = e.flops;
  r.bytes = e.bytes;
  if (m.status == RowStatus::ok) {
    r.time_ms = m.time_ms;
    if (m.time_ms_min > 0) r.time_ms_min = m.time_ms_min;
    r.repeats = m.repeats;
    r.power_w = m.power_w;
    r.energy_mj = m.energy_mj;
  }
  r.kernel_names = join(m.kernel_names, "|");
  std::vector<std::string> notes;
  if (!e.model.empty())
    notes.push_back("model=" + e.model + "; node=" + e.node + "; layer=" + std::to_string(e.layer_index) + "; sweep=" + e.sweep);
  notes.insert(notes.end(), e.notes.begin(), e.notes.end());
  notes.insert(notes.end(), m.notes.begin(), m.notes.end());
  r.notes = join(notes, "; ");
  return r;
}

namespace {

std::string fmt_ms(double v) { return format_number(v); }

/// "a, b, c" with at most `max` items, then "... (N more)".
std::string listing(const std::vector<std::string>& items, size_t max = 400) {
  std::vector<std::string> head(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(std::min(max, items.size())));
  std::string out = join(head, ", ");
  if (items.size() > max) out += ", ... (" + std::to_string(items.size() - max) + " more)";
  return out;
}

}  // namespace

NetworkRow to_network_row(const PlanEntry& e, const SequenceMeasurement& sm, const DeviceDescription& d,
                          const std::filesystem::path& out_dir) {
  if (!e.network) throw InternalError("network entry " + e.id + " has no model run");
  const ModelRun& run = *e.network;
  NetworkRow r;
  r.id = e.id;
  r.source = d.source;
  r.synthetic = d.synthetic;
  r.gpu_id = d.gpu_id;
  r.runtime = sm.total.runtime.empty() ? "cudnn" : sm.total.runtime;
  r.runtime_version = sm.total.runtime_version;
  r.precision = to_string(run.precision);
  std::error_code ec;
  auto base = std::filesystem::absolute(out_dir, ec).lexically_normal();
  auto rel = std::filesystem::relative(run.model_path, base, ec);
  r.model = (ec || rel.empty()) ? run.model_path.string() : rel.string();
  r.model_family = run.model_family;
  r.recipe = "layer by layer: cuDNN/cuBLAS/perfpred kernels per ONNX node (perfpred profile)";
  r.mode = run.mode;
  r.batch = run.batch;
  r.includes_h2d = false;

  std::vector<std::string> notes;
  const bool partial = !run.unsupported.empty() || !sm.failed.empty() || !run.not_measured.empty();
  if (sm.total.status != RowStatus::ok) {
    r.status = sm.total.status;
    r.reason = sm.total.reason;
  } else {
    r.latency_ms = sm.total.time_ms;
    r.power_w = sm.total.power_w;
    r.energy_mj = sm.total.energy_mj;
    if (r.power_w || r.energy_mj) r.power_source = d.power_source;
    if (partial) {
      r.status = sm.failed_status == RowStatus::oom ? RowStatus::oom : RowStatus::unsupported;
      std::vector<std::string> parts;
      if (!run.unsupported.empty()) parts.push_back(std::to_string(run.unsupported.size()) + " node(s) not executable");
      if (!sm.failed.empty()) parts.push_back(std::to_string(sm.failed.size()) + " layer(s) failed");
      if (!run.not_measured.empty()) parts.push_back(std::to_string(run.not_measured.size()) + " backward kernel(s) not measured");
      r.reason = "partial: " + join(parts, ", ") + "; latency_ms covers the executed layers only (see notes)";
    }
  }
  if (sm.total.status == RowStatus::ok) {
    notes.push_back(std::string(sm.sequence_timed ? "sequence_ms=" : "sum of layers: sequence_ms=") + fmt_ms(sm.total.time_ms));
    notes.push_back("layer_sum_ms=" + fmt_ms(sm.layer_sum_ms));
    if (sm.sequence_timed) notes.push_back("launch_gap_ms=" + fmt_ms(sm.total.time_ms - sm.layer_sum_ms));
  }
  notes.push_back("layers=" + std::to_string(sm.layers_run) + " of " + std::to_string(run.layers.size()) +
                  "; nodes=" + std::to_string(run.nodes) + "; parameters=" + std::to_string(run.parameters));
  if (run.mode == "training") {
    notes.push_back("optimizer=sgd (one update over every parameter)");
    bool bn = false, lstm = false;
    for (const auto& l : run.layers) {
      bn = bn || (l.op_kind == "batch_norm" && l.phase == "forward");
      lstm = lstm || (l.op_kind == "lstm" && l.phase == "forward");
    }
    if (bn) notes.push_back("batch_norm forward runs the inference kernel (running statistics), as the op sweeps do");
    if (lstm) notes.push_back("lstm forward runs in inference mode; its backward kernels run after a training forward of their own");
  }
  for (const auto& n : sm.total.notes) notes.push_back(n);
  if (!run.unsupported.empty()) notes.push_back("not executed: " + listing(run.unsupported));
  if (!sm.failed.empty()) notes.push_back("failed layers: " + listing(sm.failed));
  if (!run.not_measured.empty()) notes.push_back("not measured: " + listing(run.not_measured));
  if (!run.views.empty()) {
    // Transformers have a thousand Unsqueeze/Constant leftovers: counted by op, the first names listed.
    std::map<std::string, int> by_op;
    for (const auto& v : run.views) {
      auto open = v.rfind(" (");
      ++by_op[open == std::string::npos ? v : v.substr(open + 2, v.size() - open - 3)];
    }
    std::vector<std::string> counts;
    for (const auto& [op, c] : by_op) counts.push_back(op + " x" + std::to_string(c));
    notes.push_back("views skipped (no kernel): " + std::to_string(run.views.size()) + " (" + join(counts, ", ") +
                    "): " + listing(run.views, 100));
  }
  r.notes = join(notes, "; ");
  return r;
}

nlohmann::json to_json(const RunSummary& s) {
  std::vector<std::string> files;
  for (const auto& f : s.files) files.push_back(f.string());
  return {{"gpu_id", s.gpu_id},
          {"planned", s.planned},
          {"already_done", s.already_done},
          {"written", s.written},
          {"by_status", s.by_status},
          {"complete", s.complete},
          {"stopped_by_signal", s.stopped_by_signal},
          {"stopped_by_time_limit", s.stopped_by_time_limit},
          {"stopped_by_fatal_error", s.stopped_by_fatal_error},
          {"fatal_reason", s.fatal_reason},
          {"elapsed_s", s.elapsed_s},
          {"files", files}};
}

RunSummary run_profile(const Plan& plan, ProfileBackend& backend, const RunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  RunSummary sum;
  auto entries = filter_precisions(select_shard(plan.entries, o.shard), o.precisions);
  sum.planned = static_cast<int64_t>(entries.size());
  if (entries.empty()) throw InputError("--shard/--precision leave no entries of plan '" + plan.name + "' to run");

  DeviceDescription dev = backend.describe();
  if (!o.gpu_id.empty()) dev.gpu_id = o.gpu_id;
  if (dev.gpu_id.empty()) dev.gpu_id = match_catalog_id(dev);
  sum.gpu_id = dev.gpu_id;

  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) throw InputError("--out " + o.out_dir.string() + ": cannot create (" + ec.message() + ")");

  struct Sink {
    EntryKind kind;
    std::filesystem::path path;
    std::unique_ptr<DatasetWriter> writer;
    std::set<std::string> done;
    DatasetMeta meta;
  };
  std::vector<Sink> sinks;
  for (EntryKind k : {EntryKind::kernel, EntryKind::microbench, EntryKind::network}) {
    bool used = std::any_of(entries.begin(), entries.end(), [&](const PlanEntry& e) { return e.kind == k; });
    if (!used) continue;
    const DatasetKind dk = k == EntryKind::network ? DatasetKind::network : DatasetKind::kernel;
    Sink s;
    s.kind = k;
    s.path = k == EntryKind::kernel       ? kernel_dataset_path(o.out_dir)
             : k == EntryKind::microbench ? microbench_dataset_path(o.out_dir)
                                          : network_dataset_path(o.out_dir);
    bool exists = std::filesystem::exists(s.path, ec);
    if (exists && !o.resume)
      throw InputError(s.path.string() + " exists; pass --resume to continue it, or choose a new --out");
    if (exists) s.done = existing_ids(s.path, dev.gpu_id, dk);
    auto sp = sidecar_path(s.path);
    if (exists && std::filesystem::exists(sp, ec)) {
      s.meta = read_dataset_meta(sp);
      // --resume continues the run that wrote the folder: another plan or shard would mix rows of two
      // runs under one sidecar that describes only the second.
      const std::string shard = std::to_string(o.shard.index) + "/" + std::to_string(o.shard.count);
      if (!s.meta.plan.is_null() && s.meta.plan != plan.source)
        throw InputError(sp.string() + ": this folder was profiled with another plan (" +
                         json_string(s.meta.plan, "name", "unnamed", sp.string()) +
                         "); --resume continues the same plan: pass that plan, or choose a new --out");
      if (auto it = s.meta.extra.find("shard"); it != s.meta.extra.end() && it->is_string() && *it != shard)
        throw InputError(sp.string() + ": this folder holds shard " + it->get<std::string>() + ", not " + shard +
                         "; --resume continues the same shard: give --shard " + it->get<std::string>() +
                         ", or choose a new --out");
    } else {
      s.meta.kind = dk;
      s.meta.sources = nlohmann::json::array({{{"name", dev.source}, {"repository", ""}, {"commit", ""},
                                               {"licence", dev.synthetic ? "synthetic" : "perfpred-measured"}}});
      s.meta.licence = dev.synthetic ? "synthetic" : "perfpred-measured";
      s.meta.created_by = "perfpred profile";
    }
    s.meta.devices[dev.gpu_id] = dev.spec;
    s.meta.environment = dev.environment;
    s.meta.plan = plan.source;
    for (const auto& n : dev.notes)
      if (std::find(s.meta.notes.begin(), s.meta.notes.end(), n) == s.meta.notes.end()) s.meta.notes.push_back(n);
    s.meta.extra["shard"] = std::to_string(o.shard.index) + "/" + std::to_string(o.shard.count);
    s.meta.extra["power_source"] = dev.power_source;
    s.meta.extra["command_line"] = o.command_line;
    s.meta.extra["contents"] = k == EntryKind::kernel       ? "kernel sweeps and model layers"
                               : k == EntryKind::microbench ? "microbenchmarks (copies, launch, bandwidth, peak FMA)"
                                                            : "whole models executed layer by layer (latency_ms: the sequence in one timed region)";
    s.meta.extra["run_status"] = "running";
    write_dataset_meta(sp, s.meta);
    s.writer = std::make_unique<DatasetWriter>(s.path, dk);
    sum.files.push_back(s.path);
    sinks.push_back(std::move(s));
  }
  auto sink_of = [&](const PlanEntry& e) -> Sink& {
    for (auto& s : sinks)
      if (s.kind == e.kind) return s;
    throw InternalError("no sink for entry " + e.id);
  };
  for (const auto& e : entries)
    if (sink_of(e).done.count(e.id)) ++sum.already_done;
  if (sum.already_done)
    spdlog::info("resume: {} of {} entries already have rows", sum.already_done, sum.planned);

  MeasureSettings settings{plan.warmup, plan.repeats, plan.flush_l2};
  SignalScope signals;
  Progress progress(sum.planned, o.progress, ::isatty(STDERR_FILENO) == 1);
  int64_t done = sum.already_done, since_sync = 0;
  progress.update(done, "");
  for (const auto& e : entries) {
    Sink& sink = sink_of(e);
    if (sink.done.count(e.id)) continue;
    if (g_stop_signal) break;
    if (o.max_minutes > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= o.max_minutes * 60) {
      sum.stopped_by_time_limit = true;
      break;
    }
    progress.update(done, e.id);
    Measurement m;
    if (e.kind == EntryKind::network) {
      SequenceMeasurement sm;
      try {
        sm = backend.measure_sequence(e.network ? e.network->layers : std::vector<PlanEntry>{}, settings);
      } catch (const BackendUnavailable&) {
        throw;
      } catch (const std::exception& ex) {
        sm = SequenceMeasurement{};
        sm.total.status = RowStatus::failed;
        sm.total.reason = ex.what();
      }
      m = sm.total;
      NetworkRow row = to_network_row(e, sm, dev, o.out_dir);
      m.status = row.status;
      sink.writer->append(row);
    } else {
      try {
        m = backend.measure(e, settings);
      } catch (const BackendUnavailable&) {
        throw;
      } catch (const std::exception& ex) {
        // A backend should turn failures into statuses; anything escaping is recorded, not fatal.
        m = Measurement{};
        m.status = RowStatus::failed;
        m.reason = ex.what();
      }
      sink.writer->append(to_kernel_row(e, m, dev));
    }
    sink.done.insert(e.id);
    ++sum.written;
    ++sum.by_status[to_string(m.status)];
    ++done;
    if (++since_sync >= o.sync_every_rows) {
      for (auto& s : sinks) s.writer->sync();
      since_sync = 0;
    }
    if (m.fatal) {
      sum.stopped_by_fatal_error = true;
      sum.fatal_reason = m.reason;
      break;
    }
  }
  progress.update(done, "");
  progress.finish();
  sum.complete = done == sum.planned;
  if (g_stop_signal && !sum.complete) {
    sum.stopped_by_signal = true;
    sum.signal = g_stop_signal;
  }
  for (auto& s : sinks) {
    s.writer->close();
    s.meta.extra["run_status"] = sum.complete ? "complete" : "incomplete";
    write_dataset_meta(sidecar_path(s.path), s.meta);
  }
  sum.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum;
}

}  // namespace perfpred

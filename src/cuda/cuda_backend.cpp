// The CUDA harness behind make_cuda_backend(): device description, and per entry: prepare the op,
// warm up, time repeats with CUDA events (L2 flushed before each), take the median, record the
// kernels with CUPTI, sample power with NVML. Failures become row statuses; a sticky CUDA error
// marks the measurement fatal so the runner stops with every earlier row intact.
#include <cudnn.h>
#include <cupti.h>

#include <cstdio>
#include <cstdlib>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <sstream>

#include <spdlog/spdlog.h>

#include "check.hpp"
#include "context.hpp"
#include "cupti_recorder.hpp"
#include "perfpred/cuda/device_info.hpp"
#include "perfpred/cuda/nvml.hpp"
#include "perfpred/hw/catalog.hpp"
#include "perfpred/profile/backend.hpp"
#include "perfpred/profile/jetson.hpp"
#include "perfpred/profile/mig.hpp"
#include "perfpred/profile/nvml_mig.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred {

namespace {

using namespace perfpred::cuda;

std::string version_text(int v, int major_div, int minor_div, int minor_mod) {
  return std::to_string(v / major_div) + "." + std::to_string((v / minor_div) % minor_mod);
}

std::string cudnn_version_text(size_t v) {
#if CUDNN_MAJOR >= 9
  // cuDNN 9 encodes MAJOR*10000 + MINOR*100 + PATCH.
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
#else
  return std::to_string(v / 1000) + "." + std::to_string((v / 100) % 10) + "." + std::to_string(v % 100);
#endif
}

DeviceProperties read_properties(int device) {
  cudaDeviceProp prop{};
  PERFPRED_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceProperties p;
  p.name = prop.name;
  p.cc_major = prop.major;
  p.cc_minor = prop.minor;
  p.sm_count = prop.multiProcessorCount;
  int clock_khz = 0, mem_khz = 0;
  // clockRate and memoryClockRate left cudaDeviceProp in CUDA 13; the attributes exist in every version.
  PERFPRED_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  PERFPRED_CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device));
  p.sm_clock_khz = clock_khz;
  p.mem_clock_khz = mem_khz;
  p.mem_bus_width_bits = prop.memoryBusWidth;
  p.total_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  p.l2_cache_bytes = prop.l2CacheSize;
  p.shared_mem_per_sm_bytes = static_cast<int64_t>(prop.sharedMemPerMultiprocessor);
  p.registers_per_sm = prop.regsPerMultiprocessor;
  p.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  p.integrated = prop.integrated != 0;
  p.ecc_enabled = prop.ECCEnabled != 0;
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) p.pci_bus_id = bus;
  return p;
}

/// stdout of a read-only query command (nvpmodel -q, jetson_clocks --show); "" when it fails.
std::string command_output(const char* cmd) {
  std::string out;
  FILE* f = popen(cmd, "r");
  if (!f) return out;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

class CudaBackend final : public ProfileBackend {
 public:
  explicit CudaBackend(const CudaBackendOptions& o) : m_o(o) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess)
      throw BackendUnavailable(std::string("no usable CUDA GPU: cudaGetDeviceCount failed with ") + cudaGetErrorName(err) +
                               " (is the NVIDIA driver loaded? use --backend simulated --gpu ID without a GPU)");
    if (count == 0) throw BackendUnavailable("no CUDA GPU on this machine (use --backend simulated --gpu ID without a GPU)");
    if (o.device < 0 || o.device >= count)
      throw InputError("--device " + std::to_string(o.device) + ": this machine has " + std::to_string(count) +
                       " CUDA device(s) (0.." + std::to_string(count - 1) + ")");
    m_ctx.device = o.device;
    PERFPRED_CUDA_CHECK(cudaSetDevice(o.device));
    m_props = read_properties(o.device);
    PERFPRED_CUDA_CHECK(cudaStreamCreateWithFlags(&m_ctx.stream, cudaStreamNonBlocking));
    PERFPRED_CUDNN_CHECK(cudnnCreate(&m_ctx.cudnn));
    PERFPRED_CUDNN_CHECK(cudnnSetStream(m_ctx.cudnn, m_ctx.stream));
    PERFPRED_CUBLAS_CHECK(cublasCreate(&m_ctx.cublas));
    PERFPRED_CUBLAS_CHECK(cublasSetStream(m_ctx.cublas, m_ctx.stream));
    PERFPRED_CUDA_CHECK(cudaEventCreate(&m_start));
    PERFPRED_CUDA_CHECK(cudaEventCreate(&m_stop));
    m_ctx.sm_count = m_props.sm_count;
    m_ctx.integrated = m_props.integrated;
    m_ctx.l2_bytes = m_props.l2_cache_bytes;
    // Writing twice the L2 size evicts every line an earlier repeat left there.
    m_ctx.flush = DeviceBuffer(std::max<int64_t>(2 * m_props.l2_cache_bytes, 1 << 20));
    m_ctx.cudnn_version = cudnn_version_text(cudnnGetVersion());
    int v = 0;
    PERFPRED_CUBLAS_CHECK(cublasGetVersion(m_ctx.cublas, &v));
    m_ctx.cublas_version = std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
    PERFPRED_CUDA_CHECK(cudaRuntimeGetVersion(&v));
    m_ctx.cuda_version = version_text(v, 1000, 10, 100);
    size_t free_b = 0, total_b = 0;
    PERFPRED_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    m_ctx.workspace_limit_bytes = std::min<int64_t>(static_cast<int64_t>(free_b) / 4, int64_t(4) << 30);

    if (o.use_cupti) {
      std::string why;
      m_cupti = CuptiRecorder::instance().init(why);
      if (!m_cupti) {
        spdlog::warn("CUPTI unavailable ({}); measuring with CUDA events only, without kernel names", why);
        m_notes.push_back("CUPTI unavailable: " + why);
      }
    }
    if (o.use_nvml) {
      std::string why;
      m_nvml = Nvml::load(why, mig::nvml_library_path());  // $PERFPRED_NVML_LIBRARY overrides
      if (m_nvml && !m_nvml->select_device(m_props.pci_bus_id)) {
        why = "NVML has no device for PCI bus " + m_props.pci_bus_id;
        m_nvml.reset();
      }
      if (!m_nvml) {
        spdlog::warn("NVML unavailable ({}); no power or energy in the rows", why);
        m_notes.push_back("NVML unavailable: " + why);
      }
    }
    // MIG: NVML's answers (MIG mode, the instances with their UUIDs, SMs, memory and profiles, read
    // by src/profile/nvml_mig.cpp through dlopen), CUDA_VISIBLE_DEVICES=MIG-... and CUDA's device name
    // "<GPU> MIG <profile>" decide whether this device is an instance and which catalog slice it is.
    const char* cvd_env = std::getenv("CUDA_VISIBLE_DEVICES");
    const std::string cvd = cvd_env ? cvd_env : "";
    std::optional<mig::NvmlMigReading> reading;
    if (o.use_nvml)
      reading = mig::read_nvml_mig(mig::nvml_library_path(), m_props.pci_bus_id, mig::first_visible_mig_uuid(cvd));
    const GpuCatalog* catalog = nullptr;
    std::string catalog_error;
    try {
      catalog = &GpuCatalog::instance();
    } catch (const std::exception& e) {
      catalog_error = e.what();
    }
    m_mig_desc = mig::describe_mig(reading ? &*reading : nullptr,
                                   mig::CudaView{m_props.name, m_props.sm_count, m_props.total_memory_bytes, cvd}, catalog);
    m_mig_info = m_mig_desc.instance;
    m_mig = m_mig_info.in_mig;
    if (m_mig && !catalog_error.empty()) m_mig_info.notes.push_back("GPU catalog unavailable: " + catalog_error);
    if (!m_mig && reading && reading->answers.value("mig_mode", nlohmann::json()) == true)
      m_notes.push_back("NVML reports MIG mode enabled, but CUDA's device is not a MIG instance");
    if (m_props.integrated && o.use_nvml) setup_jetson();
  }

  ~CudaBackend() override {
    m_ctx.flush = DeviceBuffer();
    if (m_start) cudaEventDestroy(m_start);
    if (m_stop) cudaEventDestroy(m_stop);
    if (m_ctx.cublas) cublasDestroy(m_ctx.cublas);
    if (m_ctx.cudnn) cudnnDestroy(m_ctx.cudnn);
    if (m_ctx.stream) cudaStreamDestroy(m_ctx.stream);
  }

  DeviceDescription describe() override {
    DeviceDescription d;
    d.name = m_props.name;
    d.spec = spec_json(m_props);
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    uint32_t cupti_v = 0;
    cuptiGetVersion(&cupti_v);
    nlohmann::json env = {{"backend", "cuda"},
                          {"device_name", m_props.name},
                          {"pci_bus_id", m_props.pci_bus_id},
                          {"compute_capability", std::to_string(m_props.cc_major) + "." + std::to_string(m_props.cc_minor)},
                          {"cuda_driver", version_text(drv, 1000, 10, 100)},
                          {"cuda_runtime", version_text(rt, 1000, 10, 100)},
                          {"cudnn", m_ctx.cudnn_version},
                          {"cublas", m_ctx.cublas_version},
                          {"cupti_api", cupti_v},
                          {"cupti_enabled", m_cupti},
                          {"nvml_enabled", m_nvml != nullptr},
                          {"workspace_limit_bytes", m_ctx.workspace_limit_bytes},
                          {"l2_flush_bytes", m_ctx.flush.bytes()}};
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
      env["memory_free_bytes"] = free_b;
      env["memory_total_bytes"] = total_b;
    }
    if (m_nvml) {
      env["driver"] = m_nvml->driver_version();
      if (auto v = m_nvml->sm_clock_mhz()) env["sm_clock_mhz_at_start"] = *v;
      if (auto v = m_nvml->mem_clock_mhz()) env["mem_clock_mhz_at_start"] = *v;
      if (auto v = m_nvml->temperature_c()) env["temperature_c_at_start"] = *v;
      if (auto v = m_nvml->power_limit_w()) env["power_limit_w"] = *v;
      if (auto v = m_nvml->mig_enabled()) env["mig_enabled"] = *v;
      d.power_source = m_mig ? "" : "nvml-board";
    }
    if (m_mig) {
      d.notes.push_back("MIG instance: NVML power and energy describe the whole GPU, so rows carry no power or energy");
      std::optional<double> whole_w;
      if (m_nvml) whole_w = m_nvml->power_w();
      nlohmann::json mj = mig::mig_metadata(m_mig_info, whole_w, std::nullopt);
      if (m_mig_desc.metadata.contains("nvml")) mj["nvml"] = m_mig_desc.metadata["nvml"];
      env["mig"] = mj;
      if (!m_mig_info.catalog_id.empty()) d.gpu_id = m_mig_info.catalog_id;
      for (const auto& n : m_mig_info.notes) d.notes.push_back("MIG: " + n);
    }
    if (!m_mig && m_mig_desc.metadata.contains("nvml")) env["mig"] = m_mig_desc.metadata;  // MIG mode as NVML saw it
    if (m_props.integrated) {
      env["integrated_gpu"] = true;
      d.notes.push_back("integrated GPU: CPU and GPU share DRAM; copy microbenchmarks are DRAM-to-DRAM copies "
                        "(pageable: through a driver staging buffer, pinned: cudaMallocHost, mapped: zero-copy), not PCIe");
      if (!m_jetson.is_null()) env["jetson"] = m_jetson;
      if (!m_rail_choice.gpu_rail.empty())
        d.power_source = "jetson-gpu-rail";
      else if (!m_rail_choice.total_rails.empty())
        d.power_source = "jetson-total";
    }
    d.environment = env;
    for (const auto& n : m_notes) d.notes.push_back(n);
    return d;
  }

  Measurement measure(const PlanEntry& e, const MeasureSettings& s) override {
    Measurement m;
    try {
      size_t free_b = 0, total_b = 0;
      PERFPRED_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
      if (e.device_bytes > static_cast<int64_t>(free_b)) {
        m.status = RowStatus::oom;
        m.reason = "needs " + std::to_string(e.device_bytes) + " bytes of device memory, " + std::to_string(free_b) + " free";
        return m;
      }
      Prepared p = prepare(e);
      // The runtime column takes perfpred's Runtime names: direct library calls with no framework
      // around them are "cudnn"; the library that ran is named in runtime_version.
      m.runtime = "cudnn";
      m.runtime_version = p.runtime + " " + p.runtime_version;
      m.notes = p.notes;
      time_prepared(p, s, m);
      if (m_cupti) record_kernels(p, m);
      // Under MIG, NVML power and energy are the whole GPU's: never attributed to one slice's rows.
      if (m_nvml && !m_mig && e.kind == EntryKind::kernel) sample_power(p, m);
      else if (!m_board.reader.empty() && e.kind == EntryKind::kernel) sample_rails(p, m);
      if (e.flops > 0 && m.time_ms > 0) m.notes.push_back("achieved_tflops=" + fmt(e.flops / (m.time_ms * 1e-3) / 1e12));
      if (e.bytes > 0 && m.time_ms > 0) m.notes.push_back("achieved_gbps=" + fmt(e.bytes / (m.time_ms * 1e-3) / 1e9));
      PERFPRED_CUDA_CHECK(cudaStreamSynchronize(m_ctx.stream));
    } catch (const Unsupported& ex) {
      m = failure(RowStatus::unsupported, ex.what());
    } catch (const CudaError& ex) {
      m = failure(ex.out_of_memory() ? RowStatus::oom : ex.not_supported() ? RowStatus::unsupported : RowStatus::failed,
                  ex.what());
      m.fatal = context_is_broken();
    }
    return m;
  }

 private:
  static std::string fmt(double v) {
    std::ostringstream o;
    o.precision(4);
    o << v;
    return o.str();
  }

  Measurement failure(RowStatus st, const std::string& why) {
    Measurement m;
    m.status = st;
    m.reason = why;
    return m;
  }

  /// After a failure: clear a non-sticky error; a sticky one (illegal address, launch failure)
  /// makes every later call fail, which the synchronize shows.
  bool context_is_broken() {
    cudaGetLastError();
    cudaError_t e = cudaStreamSynchronize(m_ctx.stream);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    cudaGetLastError();
    if (e == cudaSuccess) return false;
    spdlog::error("CUDA context unusable after {}: the run stops", cudaGetErrorName(e));
    return true;
  }

  Prepared prepare(const PlanEntry& e) {
    const std::string& k = e.op_kind;
    Prepared p;
    if (k == "conv" || k == "pool" || k == "batch_norm" || k == "lstm")
      p = prepare_cudnn(m_ctx, e);
    else if (k == "gemm" || k == "attention")
      p = prepare_cublas(m_ctx, e);
    else if (k == "activation" || k == "elementwise" || k == "softmax" || k == "layer_norm")
      p = prepare_kernels(m_ctx, e);
    else if (k == "bandwidth")  // model layers that only move data run as a device copy
      p = prepare_microbench(m_ctx, e);
    else if (e.kind == EntryKind::microbench)
      p = prepare_microbench(m_ctx, e);
    else
      throw Unsupported("op kind '" + k + "' is not measured by the CUDA harness");
    PERFPRED_CUDA_CHECK(cudaStreamSynchronize(m_ctx.stream));
    return p;
  }

  /// A model layer by layer: every layer prepared (buffers, descriptors, algorithm choice) once
  /// before timing, each layer timed alone (its median summed), then the whole sequence enqueued
  /// back to back between two CUDA events: launch gaps and host dispatch between the library calls
  /// are inside the timed region. A layer that cannot be prepared is left out and named.
  SequenceMeasurement measure_sequence(const std::vector<PlanEntry>& layers, const MeasureSettings& s) override {
    SequenceMeasurement out;
    out.total.runtime = "cudnn";
    out.total.runtime_version = "cudnn " + m_ctx.cudnn_version + ", cublas " + m_ctx.cublas_version;
    std::vector<Prepared> prepared;
    auto fail_layer = [&](const PlanEntry& e, RowStatus st, const std::string& why) {
      out.failed.push_back(e.node + " (" + e.op + ") " + e.phase + ": " + to_string(st) + ": " + why);
      if (out.failed_status == RowStatus::ok || st == RowStatus::oom) out.failed_status = st;
    };
    try {
      size_t free_b = 0, total_b = 0;
      PERFPRED_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
      int64_t need = 0;
      for (const auto& e : layers) need += e.device_bytes;
      if (need > static_cast<int64_t>(free_b)) {
        out.total.status = RowStatus::oom;
        out.total.reason = "the layers' buffers need " + std::to_string(need) + " bytes of device memory, " +
                           std::to_string(free_b) + " free";
        return out;
      }
      prepared.reserve(layers.size());
      for (const auto& e : layers) {
        try {
          prepared.push_back(prepare(e));
        } catch (const Unsupported& ex) {
          fail_layer(e, RowStatus::unsupported, ex.what());
        } catch (const CudaError& ex) {
          if (!ex.out_of_memory() && !ex.not_supported()) throw;
          fail_layer(e, ex.out_of_memory() ? RowStatus::oom : RowStatus::unsupported, ex.what());
          cudaGetLastError();
        }
      }
      if (prepared.empty()) {
        out.total.status = out.failed_status == RowStatus::ok ? RowStatus::failed : out.failed_status;
        out.total.reason = "no layer of the sequence could be prepared";
        return out;
      }
      for (auto& p : prepared) {
        Measurement lm;
        time_prepared(p, s, lm);
        out.layer_sum_ms += lm.time_ms;
      }
      Prepared seq;
      seq.run = [&prepared] {
        for (auto& p : prepared) p.run();
      };
      // One cold L2 at the start of each repeat, as a model's first layer finds it; inside the
      // sequence each layer sees what its predecessor left, as in a real forward/backward pass.
      seq.flush_l2 = true;
      time_prepared(seq, s, out.total);
      out.layers_run = static_cast<int64_t>(prepared.size());
      if (m_cupti) {
        Measurement km;
        record_kernels(seq, km);
        for (const auto& n : km.notes)
          if (n.rfind("cupti_kernels=", 0) == 0) out.total.notes.push_back(n);
      }
      if (m_nvml && !m_mig) sample_power(seq, out.total);
      else if (!m_board.reader.empty()) sample_rails(seq, out.total);
      PERFPRED_CUDA_CHECK(cudaStreamSynchronize(m_ctx.stream));
      out.sequence_timed = true;
      out.total.notes.push_back("sequence timed with CUDA events: " + std::to_string(s.warmup) + " warm-up, median of " +
                                std::to_string(s.repeats) + ", L2 flushed before each repeat");
    } catch (const CudaError& ex) {
      out.total = failure(ex.out_of_memory() ? RowStatus::oom : ex.not_supported() ? RowStatus::unsupported : RowStatus::failed,
                          ex.what());
      out.total.fatal = context_is_broken();
      out.sequence_timed = false;
    }
    return out;
  }

  void time_prepared(Prepared& p, const MeasureSettings& s, Measurement& m) {
    // Warm-up: first calls pay for lazy module loading, cuBLAS heuristics and clock ramp-up.
    for (int i = 0; i < s.warmup; ++i) p.run();
    PERFPRED_CUDA_CHECK(cudaStreamSynchronize(m_ctx.stream));
    std::vector<double> times;
    for (int r = 0; r < s.repeats; ++r) {
      // A cold L2 for each repeat: a layer in a network rarely finds its inputs cached.
      if (s.flush_l2 && p.flush_l2) launch_l2_flush(m_ctx.flush.get(), m_ctx.flush.bytes(), m_ctx.stream);
      PERFPRED_CUDA_CHECK(cudaEventRecord(m_start, m_ctx.stream));
      p.run();
      PERFPRED_CUDA_CHECK(cudaEventRecord(m_stop, m_ctx.stream));
      PERFPRED_CUDA_CHECK(cudaEventSynchronize(m_stop));
      float ms = 0;
      PERFPRED_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start, m_stop));
      times.push_back(static_cast<double>(ms) / static_cast<double>(p.calls_per_run));
    }
    // The median resists the occasional repeat hit by a clock change or a context switch.
    m.time_ms = median(times);
    m.time_ms_min = *std::min_element(times.begin(), times.end());
    m.repeats = s.repeats;
    m.status = RowStatus::ok;
  }

  void record_kernels(Prepared& p, Measurement& m) {
    try {
      if (p.flush_l2) launch_l2_flush(m_ctx.flush.get(), m_ctx.flush.bytes(), m_ctx.stream);
      PERFPRED_CUDA_CHECK(cudaStreamSynchronize(m_ctx.stream));
      CuptiRecorder::instance().begin();
      if (p.calls_per_run == 1) p.run();
      else launch_empty(m_ctx.stream);
      PERFPRED_CUDA_CHECK(cudaStreamSynchronize(m_ctx.stream));
      auto acts = CuptiRecorder::instance().end();
      double kernel_ms = 0;
      std::ostringstream launch;
      for (const auto& a : acts) {
        kernel_ms += a.duration_ms;
        if (std::find(m.kernel_names.begin(), m.kernel_names.end(), a.name) == m.kernel_names.end())
          m.kernel_names.push_back(a.name);
        if (!a.is_memcpy)
          launch << (launch.tellp() > 0 ? " " : "") << a.grid[0] << "x" << a.grid[1] << "x" << a.grid[2] << "/" << a.block[0]
                 << "x" << a.block[1] << "x" << a.block[2];
      }
      m.notes.push_back("cupti_kernels=" + std::to_string(acts.size()) + "; cupti_busy_ms=" + fmt(kernel_ms));
      if (launch.tellp() > 0) m.notes.push_back("grid/block=" + launch.str());
    } catch (const CudaError& ex) {
      if (ex.library() != CudaLibrary::cupti) throw;
      spdlog::warn("CUPTI failed ({}); continuing with CUDA events only", ex.what());
      m_cupti = false;
    }
  }

  /// Jetson: INA3221 rails from sysfs, else `tegrastats` as a child process (jetson::open_board_power);
  /// the power mode and clock state (read only; nothing is changed).
  void setup_jetson() {
    jetson::TegrastatsSource::Options to;
    to.interval_ms = std::max(m_o.power_sample_ms, 20.0);
    m_board = jetson::open_board_power("/sys", to);
    m_rail_choice = m_board.choice;
    if (m_board.tegrastats) {
      spdlog::info("INA3221 rails not readable under /sys: power from {} --interval {} ms", m_board.tegrastats->program(),
                   m_board.tegrastats->interval_ms());
    } else if (m_board.reader.empty()) {
      spdlog::warn("integrated GPU without power readings ({}): no power or energy in the rows", m_board.why);
      m_notes.push_back(m_board.why + ": rows carry no power");
    }
    auto mode = jetson::parse_nvpmodel(command_output("nvpmodel -q 2>/dev/null"));
    auto clocks = jetson::parse_jetson_clocks(command_output("jetson_clocks --show 2>/dev/null"));
    m_jetson = jetson::board_metadata(m_board.rails, mode, clocks, jetson::read_sysfs_clocks("/sys"));
    m_jetson["power_reader"] = m_board.reader;
    if (m_board.tegrastats)
      m_jetson["tegrastats"] = {{"program", m_board.tegrastats->program()}, {"interval_ms", m_board.tegrastats->interval_ms()}};
    if (!clocks || !clocks->pinned)
      spdlog::warn("Jetson clocks are not pinned (run `sudo jetson_clocks` first for stable timings); recorded in the metadata");
  }

  /// Rows get the GPU rail's energy (power_source jetson-gpu-rail); the total-board figure is a note.
  void sample_rails(Prepared& p, Measurement& m) {
    // INA3221 averages over ~ms; sysfs reads are slower than NVML's. tegrastats prints one line per
    // interval, so its window spans at least five of them.
    const double window_ms = m_board.tegrastats ? std::max(200.0, 5 * m_board.tegrastats->interval_ms()) : 200.0;
    int64_t runs = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(window_ms / std::max(m.time_ms * p.calls_per_run, 1e-3))), 1, 100000);
    auto r = m_board.measure(
        [&] {
          for (int64_t i = 0; i < runs; ++i) p.run();
          PERFPRED_CUDA_CHECK(cudaStreamSynchronize(m_ctx.stream));
        },
        std::max(m_o.power_sample_ms, 5.0));
    const double per = static_cast<double>(runs * p.calls_per_run);
    auto primary_e = m_rail_choice.gpu_rail.empty() ? r.total_energy_mj : r.gpu_energy_mj;
    auto primary_w = m_rail_choice.gpu_rail.empty() ? r.total_mean_power_w : r.gpu_mean_power_w;
    if (primary_e) m.energy_mj = *primary_e / per;
    if (primary_w) m.power_w = *primary_w;
    std::ostringstream n;
    n << "power_reader=" << m_board.reader << "; power_window_ms=" << fmt(r.window_ms)
      << "; power_samples=" << r.samples;
    if (!m_rail_choice.gpu_rail.empty() && r.total_energy_mj)
      n << "; jetson_total_energy_mj=" << fmt(*r.total_energy_mj / per) << "; jetson_total_power_w=" << fmt(*r.total_mean_power_w);
    m.notes.push_back(n.str());
  }

  void sample_power(Prepared& p, Measurement& m) {
    // Run back to back for a window long enough for NVML's power readings to reflect the op.
    constexpr double k_window_ms = 100;
    int64_t runs = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(k_window_ms / std::max(m.time_ms * p.calls_per_run, 1e-3))), 1, 100000);
    PowerSampler sampler(m_nvml.get(), m_o.power_sample_ms);
    sampler.start();
    for (int64_t i = 0; i < runs; ++i) p.run();
    PERFPRED_CUDA_CHECK(cudaStreamSynchronize(m_ctx.stream));
    auto r = sampler.stop();
    if (r.mean_power_w) m.power_w = *r.mean_power_w;
    if (r.energy_mj && runs > 0) {
      m.energy_mj = *r.energy_mj / static_cast<double>(runs * p.calls_per_run);
      m.notes.push_back("energy_source=" + r.energy_source + "; power_window_ms=" + fmt(r.window_ms) +
                        "; power_samples=" + std::to_string(r.samples));
    } else if (m.power_w) {
      m.energy_mj = *m.power_w * m.time_ms;
      m.notes.push_back("energy_source=mean-power-x-time");
    }
  }

  CudaBackendOptions m_o;
  Context m_ctx;
  DeviceProperties m_props;
  cudaEvent_t m_start = nullptr, m_stop = nullptr;
  bool m_cupti = false;
  bool m_mig = false;
  mig::MigInstance m_mig_info;
  mig::MigDescription m_mig_desc;
  jetson::BoardPower m_board;
  jetson::RailChoice m_rail_choice;
  nlohmann::json m_jetson;
  std::unique_ptr<Nvml> m_nvml;
  std::vector<std::string> m_notes;
};

}  // namespace

// The plugin's entry points (src/cuda/plugin/plugin_entry.cpp) call these; the executable reaches
// them through make_cuda_backend() in src/profile/cuda_plugin_loader.cpp.
namespace cuda {

int harness_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

std::unique_ptr<ProfileBackend> make_harness(const CudaBackendOptions& o) {
  try {
    return std::make_unique<CudaBackend>(o);
  } catch (const CudaError& e) {
    throw BackendUnavailable(std::string("the CUDA harness could not start: ") + e.what());
  }
}

}  // namespace cuda

}  // namespace perfpred

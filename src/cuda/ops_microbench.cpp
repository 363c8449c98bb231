// Microbenchmarks: host<->device copies (pageable and pinned), kernel launch overhead, achieved
// DRAM bandwidth and peak FMA throughput.
#include <cstring>

#include "check.hpp"
#include "context.hpp"

namespace perfpred::cuda {

Prepared prepare_microbench(Context& c, const PlanEntry& e) {
  Prepared p;
  p.runtime = "cuda";
  p.runtime_version = c.cuda_version;
  cudaStream_t s = c.stream;
  if (e.op_kind == "copy") {
    const int64_t bytes = e.param("bytes");
    void* dev = alloc(p, bytes);
    void* host = nullptr;
    const std::string memory = e.label("memory");
    const bool h2d = e.label("direction") == "h2d";
    p.flush_l2 = false;
    if (memory == "mapped") {
      // Zero-copy: the kernel reads or writes host memory through its device alias. On an integrated
      // GPU (Jetson) this is the same DRAM with no copy at all; on a discrete GPU it crosses PCIe per access.
      PERFPRED_CUDA_CHECK(cudaHostAlloc(&host, static_cast<size_t>(bytes), cudaHostAllocMapped));
      p.keep.push_back(std::shared_ptr<void>(host, [](void* h) { cudaFreeHost(h); }));
      std::memset(host, 1, static_cast<size_t>(bytes));
      void* alias = nullptr;
      PERFPRED_CUDA_CHECK(cudaHostGetDevicePointer(&alias, host, 0));
      p.notes.push_back(c.integrated ? "memory=mapped (zero-copy: the GPU kernel reads/writes the shared DRAM, no copy)"
                                     : "memory=mapped (zero-copy: a GPU kernel reads/writes host memory over the bus)");
      p.run = [=] { h2d ? launch_device_copy(dev, alias, bytes, s) : launch_device_copy(alias, dev, bytes, s); };
      return p;
    }
    if (memory == "pinned") {
      PERFPRED_CUDA_CHECK(cudaMallocHost(&host, static_cast<size_t>(bytes)));
      p.keep.push_back(std::shared_ptr<void>(host, [](void* h) { cudaFreeHost(h); }));
    } else {
      auto buf = std::shared_ptr<char[]>(new char[static_cast<size_t>(bytes)]);
      host = buf.get();
      p.keep.push_back(std::shared_ptr<void>(buf, buf.get()));
    }
    std::memset(host, 1, static_cast<size_t>(bytes));  // touch every page before timing
    std::string note = "memory=" + memory + (memory == "pageable" ? " (staged through a driver pinned buffer)" : "");
    // Integrated GPUs share DRAM with the CPU: cudaMemcpy is a DRAM-to-DRAM copy by the copy engine, not PCIe.
    if (c.integrated) note += "; integrated GPU: DRAM-to-DRAM copy, no PCIe";
    p.notes.push_back(note);
    p.run = [=] {
      PERFPRED_CUDA_CHECK(h2d ? cudaMemcpyAsync(dev, host, static_cast<size_t>(bytes), cudaMemcpyHostToDevice, s)
                              : cudaMemcpyAsync(host, dev, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost, s));
    };
    return p;
  }
  if (e.op_kind == "launch") {
    const int64_t n = e.param("kernels", 1000);
    p.flush_l2 = false;
    p.calls_per_run = n;
    p.notes.push_back("time_ms is per launch: " + std::to_string(n) + " empty kernels back to back, timed with events");
    p.run = [=] {
      for (int64_t i = 0; i < n; ++i) launch_empty(s);
    };
    return p;
  }
  if (e.op_kind == "bandwidth") {
    const int64_t bytes = e.param("bytes");
    void* src = alloc(p, bytes);
    void* dst = alloc(p, bytes);
    PERFPRED_CUDA_CHECK(cudaMemsetAsync(src, 1, static_cast<size_t>(bytes), s));
    p.run = [=] { launch_device_copy(dst, src, bytes, s); };
    return p;
  }
  if (e.op_kind == "peak_flops") {
    const int64_t threads = e.param("elements"), iters = e.param("iterations");
    void* out = alloc(p, threads * 4);
    const ElemType et = e.precision == Precision::fp16 ? ElemType::f16 : ElemType::f32;
    p.flush_l2 = false;
    p.run = [=] { launch_peak_fma(out, et, threads, iters, s); };
    return p;
  }
  throw Unsupported("no microbenchmark '" + e.op_kind + "'");
}

}  // namespace perfpred::cuda

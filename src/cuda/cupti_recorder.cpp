// CUPTI host code is plain C++. Activity buffers are handed to CUPTI on request and parsed when
// completed; records are kept until end() collects them.
#include "cupti_recorder.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>

#include "check.hpp"

namespace perfpred::cuda {

namespace {

// The record layouts change between CUPTI releases and each library emits its newest version, so
// the struct must match the CUPTI the harness links. CUPTI_API_VERSION per toolkit (cupti_version.h):
// 18 = CUDA 11.8, 19 = 12.0, 26 = 12.8, then 130000 = 13.0 and 130200 = 13.2. CMake turns the harness
// off below CUDA 11.8 (cmake/Cuda.cmake); the #error is for builds that bypass it.
#if CUPTI_API_VERSION < 18
#error "perfpred's CUDA harness needs CUDA 11.8 or newer (CUPTI API 18); older record layouts are not handled"
#elif CUPTI_API_VERSION >= 130200
using KernelRecord = CUpti_ActivityKernel11;
using MemcpyRecord = CUpti_ActivityMemcpy6;
#elif CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
#elif CUPTI_API_VERSION >= 26
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy6;
#elif CUPTI_API_VERSION >= 19
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
#else
using KernelRecord = CUpti_ActivityKernel8;
using MemcpyRecord = CUpti_ActivityMemcpy5;
#endif

constexpr size_t k_buffer_bytes = 8 * 1024 * 1024;
constexpr size_t k_align = 8;

std::mutex g_mutex;
std::vector<KernelActivity> g_records;

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(k_align, k_buffer_bytes));
  *size = *buffer ? k_buffer_bytes : 0;
  *max_records = 0;
}

const char* copy_kind(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "MemcpyHtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "MemcpyDtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "MemcpyDtoD";
    default: return "Memcpy";
  }
}

void CUPTIAPI on_buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  std::vector<KernelActivity> got;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const KernelRecord*>(rec);
      KernelActivity a;
      a.name = k->name ? k->name : "?";
      a.grid[0] = static_cast<unsigned>(k->gridX), a.grid[1] = static_cast<unsigned>(k->gridY), a.grid[2] = static_cast<unsigned>(k->gridZ);
      a.block[0] = static_cast<unsigned>(k->blockX), a.block[1] = static_cast<unsigned>(k->blockY), a.block[2] = static_cast<unsigned>(k->blockZ);
      a.duration_ms = static_cast<double>(k->end - k->start) / 1e6;
      got.push_back(std::move(a));
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const MemcpyRecord*>(rec);
      KernelActivity a;
      a.name = copy_kind(m->copyKind);
      a.is_memcpy = true;
      a.bytes = m->bytes;
      a.duration_ms = static_cast<double>(m->end - m->start) / 1e6;
      got.push_back(std::move(a));
    }
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& a : got) g_records.push_back(std::move(a));
}

}  // namespace

CuptiRecorder& CuptiRecorder::instance() {
  static CuptiRecorder r;
  return r;
}

bool CuptiRecorder::init(std::string& why) {
  if (m_ready) return true;
  try {
    PERFPRED_CUPTI_CHECK(cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed));
  } catch (const CudaError& e) {
    why = e.what();
    return false;
  }
  m_ready = true;
  return true;
}

void CuptiRecorder::begin() {
  if (!m_ready) return;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_records.clear();
  }
  PERFPRED_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  PERFPRED_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
}

std::vector<KernelActivity> CuptiRecorder::end() {
  if (!m_ready) return {};
  PERFPRED_CUPTI_CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  PERFPRED_CUPTI_CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY));
  PERFPRED_CUPTI_CHECK(cuptiActivityFlushAll(1));  // CUPTI_ACTIVITY_FLAG_FLUSH_FORCED
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<KernelActivity> out;
  out.swap(g_records);
  return out;
}

}  // namespace perfpred::cuda

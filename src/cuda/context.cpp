#include "context.hpp"

#include "check.hpp"

namespace perfpred::cuda {

DeviceBuffer::DeviceBuffer(int64_t bytes) : m_bytes(bytes) {
  if (bytes > 0) PERFPRED_CUDA_CHECK(cudaMalloc(&m_ptr, static_cast<size_t>(bytes)));
}

DeviceBuffer::~DeviceBuffer() {
  if (m_ptr) cudaFree(m_ptr);  // no check: destructors must not throw
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (m_ptr) cudaFree(m_ptr);
    m_ptr = o.m_ptr;
    m_bytes = o.m_bytes;
    o.m_ptr = nullptr;
  }
  return *this;
}

void* alloc(Prepared& p, int64_t bytes) {
  auto b = std::make_shared<DeviceBuffer>(std::max<int64_t>(bytes, 16));
  p.keep.push_back(b);
  return b->get();
}

void* alloc_filled(Prepared& p, ElemType t, int64_t count, uint32_t seed, cudaStream_t s) {
  void* ptr = alloc(p, count * elem_size(t));
  launch_fill(ptr, t, count, seed, s);
  return ptr;
}

void* alloc_filled_i8(Prepared& p, int64_t count, uint32_t seed, cudaStream_t s) {
  void* ptr = alloc(p, count);
  launch_fill_i8(ptr, count, seed, s);
  return ptr;
}

ElemType elem_type(Precision p) {
  switch (p) {
    case Precision::fp16: return ElemType::f16;
    case Precision::bf16: return ElemType::bf16;
    case Precision::fp32:
    case Precision::tf32: return ElemType::f32;
    case Precision::int8: break;
  }
  // The plan sends int8 only to the conv and GEMM paths, which allocate with alloc_filled_i8.
  throw Unsupported(std::string("precision ") + to_string(p) + " has no kernel of this op (int8 runs for conv and gemm forward)");
}

int64_t elem_size(ElemType t) { return t == ElemType::f32 ? 4 : 2; }

}  // namespace perfpred::cuda

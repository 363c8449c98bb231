// A fake libnvidia-ml for the tests, built only in tests/ (never installed). It exports the NVML
// entry points src/profile/nvml_mig.cpp resolves, with NVML's C signatures, and answers from
// recorded machines chosen at nvmlInit time by $FAKE_NVML_SCENARIO:
//   "a100-mig"        (default) an A100-SXM4-40GB in MIG mode with a 3g.20gb and a 4g.20gb instance;
//   "a100-mig-plain"  the same, but the driver names MIG devices like their GPU (no "MIG <profile>"),
//                     so the profile must come from the attributes;
//   "a100-mig-unprivileged"  MIG on, and the whole GPU's memory info refused (No Permission), as
//                     NVML does for unprivileged callers in MIG mode;
//   "a100-no-mig"     the same GPU with MIG disabled.
// Built with FAKE_NVML_NO_MIG it is a driver from before MIG (R418): none of the MIG entry points,
// nvmlDeviceGetAttributes*, nvmlDeviceGetHandleByUUID or nvmlDeviceIsMigDeviceHandle exist.
// Values follow NVIDIA's MIG user guide (A100-40GB: 3g.20gb = 42 SMs, 4g.20gb = 56 SMs, 19968 MiB each).
#include <cstdlib>
#include <cstring>
#include <string>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using nvmlReturn_t = int;
constexpr nvmlReturn_t k_success = 0, k_uninitialized = 1, k_invalid_argument = 2, k_not_supported = 3,
                       k_no_permission = 4, k_not_found = 6, k_insufficient_size = 7;

struct Device {
  const char* name;
  const char* uuid;
  const char* pci;
  bool is_mig;
  unsigned sm_count, gi_slices, ci_slices;
  unsigned long long memory_mb;
  unsigned gi_id, ci_id;
  Device* parent;
};

Device g_gpu{"NVIDIA A100-SXM4-40GB", "GPU-5e6f7a8b-9c0d-1e2f-3a4b-5c6d7e8f9a0b", "00000000:07:00.0", false, 108, 8, 8,
             40960, 0, 0, nullptr};
Device g_mig3{"NVIDIA A100-SXM4-40GB MIG 3g.20gb", "MIG-4f1a2b3c-0d9e-5a6b-8c7d-112233445566", "", true, 42, 3, 3,
              19968, 1, 0, &g_gpu};
Device g_mig4{"NVIDIA A100-SXM4-40GB MIG 4g.20gb", "MIG-9e8d7c6b-5a4f-5e3d-9c2b-aabbccddeeff", "", true, 56, 4, 4,
              19968, 2, 0, &g_gpu};

int g_inits = 0;
bool g_mig_enabled = true;
bool g_unprivileged = false;

struct NvmlMemory {
  unsigned long long total, free, used;
};
struct NvmlDeviceAttributes {
  unsigned multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount, sharedJpegCount,
      sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
  unsigned long long memorySizeMB;
};

Device* dev(void* h) {
  if (h == &g_gpu || h == &g_mig3 || h == &g_mig4) return static_cast<Device*>(h);
  return nullptr;
}

nvmlReturn_t copy(const char* s, char* out, unsigned n) {
  if (!out) return k_invalid_argument;
  if (std::strlen(s) + 1 > n) return k_insufficient_size;
  std::strcpy(out, s);
  return k_success;
}

}  // namespace

FAKE_EXPORT nvmlReturn_t nvmlInit_v2() {
  const char* s = std::getenv("FAKE_NVML_SCENARIO");
  std::string scenario = s ? s : "a100-mig";
  g_mig_enabled = scenario != "a100-no-mig";
  g_unprivileged = scenario == "a100-mig-unprivileged";
  bool plain = scenario == "a100-mig-plain";
  g_mig3.name = plain ? "NVIDIA A100-SXM4-40GB" : "NVIDIA A100-SXM4-40GB MIG 3g.20gb";
  g_mig4.name = plain ? "NVIDIA A100-SXM4-40GB" : "NVIDIA A100-SXM4-40GB MIG 4g.20gb";
  ++g_inits;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlShutdown() {
  if (g_inits == 0) return k_uninitialized;
  --g_inits;
  return k_success;
}
/// Test hook: nvmlInit calls not yet matched by nvmlShutdown.
FAKE_EXPORT int fake_nvml_open_inits() { return g_inits; }
FAKE_EXPORT const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case k_success: return "Success";
    case k_uninitialized: return "Uninitialized";
    case k_invalid_argument: return "Invalid Argument";
    case k_not_supported: return "Not Supported";
    case k_no_permission: return "Insufficient Permissions";
    case k_not_found: return "Not Found";
    case k_insufficient_size: return "Insufficient Size";
  }
  return "Unknown Error";
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  if (!g_inits) return k_uninitialized;
  *n = 1;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, void** h) {
  if (!g_inits) return k_uninitialized;
  if (i != 0 || !h) return k_invalid_argument;
  *h = &g_gpu;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* bus, void** h) {
  if (!g_inits) return k_uninitialized;
  if (!bus || !h) return k_invalid_argument;
  // CUDA writes "0000:07:00.0", NVML "00000000:07:00.0": compare the bus/device/function part.
  const char* tail = std::strchr(bus, ':');
  if (!tail || std::strcmp(tail, std::strchr(g_gpu.pci, ':')) != 0) return k_not_found;
  *h = &g_gpu;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(void* h, char* name, unsigned n) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d) return k_invalid_argument;
  return copy(d->name, name, n);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUUID(void* h, char* uuid, unsigned n) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d) return k_invalid_argument;
  return copy(d->uuid, uuid, n);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(void* h, NvmlMemory* m) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || !m) return k_invalid_argument;
  if (g_unprivileged && g_mig_enabled && !d->is_mig) return k_no_permission;
  m->total = d->memory_mb * 1024ull * 1024ull;
  m->used = 512ull << 20;
  m->free = m->total - m->used;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(void* h, unsigned* mw) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || !mw) return k_invalid_argument;
  if (d->is_mig) return k_not_supported;  // power is a whole-GPU figure
  *mw = 187500;
  return k_success;
}

#ifndef FAKE_NVML_NO_MIG
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, void** h) {
  if (!g_inits) return k_uninitialized;
  if (!uuid || !h) return k_invalid_argument;
  for (Device* d : {&g_gpu, &g_mig3, &g_mig4})
    if (std::strcmp(d->uuid, uuid) == 0 && (!d->is_mig || g_mig_enabled)) {
      *h = d;
      return k_success;
    }
  return k_not_found;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(void* h, unsigned* current, unsigned* pending) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || d->is_mig || !current || !pending) return k_invalid_argument;
  *current = *pending = g_mig_enabled ? 1 : 0;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(void* h, unsigned* is_mig) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || !is_mig) return k_invalid_argument;
  *is_mig = d->is_mig ? 1 : 0;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(void* h, unsigned* count) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || d->is_mig || !count) return k_invalid_argument;
  *count = 7;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(void* h, unsigned i, void** mig) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (d != &g_gpu || !mig || i >= 7) return k_invalid_argument;
  if (!g_mig_enabled) return k_not_found;
  // Slots 0 and 2 hold instances; the others are empty, as on a partly partitioned GPU.
  if (i == 0) *mig = &g_mig3;
  else if (i == 2) *mig = &g_mig4;
  else return k_not_found;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(void* h, void** parent) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || !d->is_mig || !parent) return k_invalid_argument;
  *parent = d->parent;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(void* h, unsigned* id) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || !id) return k_invalid_argument;
  if (!d->is_mig) return k_not_supported;
  *id = d->gi_id;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(void* h, unsigned* id) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || !id) return k_invalid_argument;
  if (!d->is_mig) return k_not_supported;
  *id = d->ci_id;
  return k_success;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(void* h, NvmlDeviceAttributes* a) {
  Device* d = dev(h);
  if (!g_inits) return k_uninitialized;
  if (!d || !a) return k_invalid_argument;
  std::memset(a, 0, sizeof *a);
  a->multiprocessorCount = d->sm_count;
  a->gpuInstanceSliceCount = d->gi_slices;
  a->computeInstanceSliceCount = d->ci_slices;
  a->memorySizeMB = d->memory_mb;
  a->sharedCopyEngineCount = d->is_mig ? d->gi_slices : 7;
  return k_success;
}
#endif

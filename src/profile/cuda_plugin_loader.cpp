// make_cuda_backend() and friends: load the CUDA harness plugin (libperfpred_cuda_backend.so) on first
// use. The perfpred executable links no CUDA library, so commands other than `profile --backend cuda`
// start in milliseconds; this file is the same whether or not the harness was built, and reports
// the plugin missing when it was not.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "perfpred/profile/backend.hpp"
#include "perfpred/profile/cuda_plugin.hpp"

namespace perfpred {

namespace {

namespace fs = std::filesystem;

constexpr const char* k_not_built =
    "CUDA harness not built (configure with nvcc, cuDNN and CUPTI): no libperfpred_cuda_backend.so next to "
    "perfpred or in ../lib/perfpred; --backend simulated --gpu ID runs without a GPU";

fs::path executable_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return self.parent_path();
}

/// Where the plugin may be: $PERFPRED_CUDA_PLUGIN alone when set, else next to the executable,
/// then ../lib/perfpred relative to it (an install prefix).
std::vector<fs::path> candidates() {
  if (const char* env = std::getenv(k_cuda_plugin_env); env && *env) return {fs::path(env)};
  std::vector<fs::path> out;
  fs::path dir = executable_dir();
  if (!dir.empty()) {
    out.push_back(dir / k_cuda_plugin_file);
    out.push_back(dir.parent_path() / "lib" / "perfpred" / k_cuda_plugin_file);
  }
  return out;
}

struct Plugin {
  bool found = false;        ///< a file exists at one of the candidates
  std::string error;         ///< why it cannot be used ("" when usable)
  perfpred_cuda_plugin_device_count_fn device_count = nullptr;
  perfpred_cuda_plugin_make_backend_fn make_backend = nullptr;
};

const Plugin& plugin() {
  static Plugin p;
  static std::once_flag once;
  std::call_once(once, [] {
    fs::path file;
    for (const auto& c : candidates()) {
      std::error_code ec;
      if (fs::exists(c, ec)) {
        file = c;
        break;
      }
    }
    if (file.empty()) {
      const char* env = std::getenv(k_cuda_plugin_env);
      p.error = env && *env ? std::string("CUDA harness not found: ") + k_cuda_plugin_env + "=" + env +
                                  " does not exist (unset it or point it at libperfpred_cuda_backend.so)"
                            : k_not_built;
      return;
    }
    p.found = true;
    // Never closed: backends it creates live until exit.
    void* h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = dlerror();
      p.error = "CUDA harness " + file.string() + " could not be loaded (" + (why ? why : "unknown error") +
                "); are the CUDA runtime, cuDNN, cuBLAS and CUPTI libraries on the library path?";
      return;
    }
    auto abi = reinterpret_cast<perfpred_cuda_plugin_abi_fn>(dlsym(h, "perfpred_cuda_plugin_abi"));
    p.device_count = reinterpret_cast<perfpred_cuda_plugin_device_count_fn>(dlsym(h, "perfpred_cuda_plugin_device_count"));
    p.make_backend = reinterpret_cast<perfpred_cuda_plugin_make_backend_fn>(dlsym(h, "perfpred_cuda_plugin_make_backend"));
    if (!abi || !p.device_count || !p.make_backend) {
      p.error = "CUDA harness " + file.string() + " is not a perfpred plugin (entry points missing); rebuild perfpred";
      return;
    }
    if (abi() != k_cuda_plugin_abi) {
      p.error = "CUDA harness " + file.string() + " has plugin ABI " + std::to_string(abi()) + ", this perfpred expects " +
                std::to_string(k_cuda_plugin_abi) + "; rebuild both from one tree";
    }
  });
  return p;
}

}  // namespace

bool cuda_backend_built() { return plugin().found; }

int cuda_device_count() {
  const Plugin& p = plugin();
  if (!p.error.empty()) return 0;
  return p.device_count();
}

std::unique_ptr<ProfileBackend> make_cuda_backend(const CudaBackendOptions& o) {
  const Plugin& p = plugin();
  if (!p.error.empty()) throw BackendUnavailable(p.error);
  char error[1024] = {0};
  ProfileBackend* b = p.make_backend(&o, error, sizeof error);
  if (!b) throw BackendUnavailable(error[0] ? error : "the CUDA harness could not start (no reason given)");
  return std::unique_ptr<ProfileBackend>(b);
}

}  // namespace perfpred

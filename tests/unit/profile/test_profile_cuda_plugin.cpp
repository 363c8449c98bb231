// The CUDA plugin loader when no plugin is reachable: this test binary is not next to perfpred and
// has no ../lib/perfpred, so the loader must say "not built" in one line and report no devices.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "perfpred/profile/backend.hpp"
#include "perfpred/profile/cuda_plugin.hpp"

using namespace perfpred;

TEST(ProfileCudaPlugin, MissingPluginIsOneClearLine) {
  unsetenv(k_cuda_plugin_env);
  EXPECT_FALSE(cuda_backend_built());
  EXPECT_EQ(cuda_device_count(), 0);
  try {
    make_cuda_backend({});
    FAIL() << "make_cuda_backend succeeded without a plugin";
  } catch (const BackendUnavailable& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("CUDA harness not built (configure with nvcc, cuDNN and CUPTI)", 0), 0u) << m;
  }
}

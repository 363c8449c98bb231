#include "perfpred/util/paths.hpp"

#include <cstdlib>
#include <system_error>

#ifndef PERFPRED_SOURCE_ROOT
#define PERFPRED_SOURCE_ROOT "."
#endif

namespace perfpred {
namespace {

std::filesystem::path exe_dir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return p.parent_path();
}

std::filesystem::path locate(const char* env, const char* sub) {
  if (const char* v = std::getenv(env); v && *v) return v;
  auto installed = exe_dir() / ".." / "share" / "perfpred" / sub;
  std::error_code ec;
  if (std::filesystem::is_directory(installed, ec)) return installed.lexically_normal();
  return std::filesystem::path(PERFPRED_SOURCE_ROOT) / sub;
}

}  // namespace

std::filesystem::path data_dir() { return locate("PERFPRED_DATA_DIR", "data"); }
std::filesystem::path model_dir() { return locate("PERFPRED_MODEL_DIR", "models"); }

}  // namespace perfpred

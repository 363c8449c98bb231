#pragma once
// Shared by the libFuzzer targets: what a run may end in. perfpred's contract for bad input is an
// InputError (exit 2) with one line; anything else that escapes (an internal error, std::bad_alloc, a
// vendor exception) or a multi-line message is a finding, reported by aborting so libFuzzer saves the input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "perfpred/util/error.hpp"

namespace fuzz {

/// ImportOptions::max_unrolled_nodes for the ONNX targets: a kilobyte Loop whose trip count a mutation made huge
/// unrolls to the product's 500,000-node limit in about 3 s, past libFuzzer's timeout under the sanitizers.
/// Every import path is reached long before that size.
inline constexpr int64_t k_max_unrolled_nodes = 20000;

/// Run f; return normally on success or an InputError whose message is one line. Abort otherwise.
inline void expect_clean(const std::function<void()>& f) {
  try {
    f();
  } catch (const perfpred::InputError& e) {
    const std::string msg = e.what();
    if (msg.find('\n') != std::string::npos) {
      std::fprintf(stderr, "multi-line InputError: %.500s\n", msg.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not an InputError: %.500s\n", e.what());
    std::abort();
  }
}

/// A scratch file of this process holding `data`, named "input" + `suffix` (or `name` when given), in a folder
/// of this process's own.
inline std::filesystem::path scratch_file(const uint8_t* data, size_t size, const std::string& suffix,
                                          const std::string& name = "") {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("perfpred-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const auto p = dir / (name.empty() ? "input" + suffix : name);
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return p;
}

}  // namespace fuzz

#pragma once
// Test support shared by the unit test folders: the message of the InputError a call throws.
#include <string>

#include "perfpred/util/error.hpp"

namespace perfpred::test {

/// The message of the InputError `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace perfpred::test

#pragma once
/// Error types shared by every module. Exceptions are used inside; main() turns them into exit codes.
#include <stdexcept>
#include <string>
#include <string_view>

#include "perfpred/util/strings.hpp"

namespace perfpred {

/// Bad user input (file, field, node, option): exit code 2 at the CLI boundary.
/// The message is made printable (util/strings.hpp): a name from a file that carries a newline, a NUL or
/// another control byte cannot split the one-line error or cut it short, whichever site built it.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::string_view what) : std::runtime_error(printable(what)) {}
  explicit InputError(const std::string& what) : InputError(std::string_view(what)) {}
  explicit InputError(const char* what) : InputError(std::string_view(what)) {}
};

/// An operator the analysis does not know; carries the node and op for the message.
class UnsupportedOpError : public InputError {
 public:
  using InputError::InputError;
};

/// A failure inside perfpred or its environment that is not the user's input: exit code 1.
class InternalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace perfpred

#pragma once
/// Error types shared by every module. Exceptions are used inside; main() turns them into exit codes.
#include <stdexcept>
#include <string>

namespace perfpred {

/// Bad user input (file, field, node, option): exit code 2 at the CLI boundary.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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

// Recoverable errors as values (modelled on LLVM Support/Error.h, much smaller).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tsr {

// What went wrong, as a kind the pipeline decides on (never by reading the
// message). exit_code maps the kinds onto the CLI's exit codes (docs/cli.md).
enum class ErrorKind {
  invalid_input,   // bad spec, bad receipt, verification failure
  usage,           // bad command line
  toolchain,       // a tool that ran and failed (a compiler's diagnostics)
  unavailable,     // no toolchain (or no tool) for a target on this machine
  internal,        // tesserac broke its own contract (an ABI mismatch, a malformed artifact)
};

// 1 invalid input, 2 usage, 3 toolchain, unavailable or internal.
constexpr int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_input: return 1;
    case ErrorKind::usage: return 2;
    case ErrorKind::toolchain:
    case ErrorKind::unavailable:
    case ErrorKind::internal: return 3;
  }
  return 3;
}

class [[nodiscard]] Error {
 public:
  Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

 private:
  ErrorKind kind_;
  std::string message_;
};

inline Error invalid_input(std::string message) { return Error(ErrorKind::invalid_input, std::move(message)); }
inline Error toolchain_error(std::string message) { return Error(ErrorKind::toolchain, std::move(message)); }
inline Error unavailable(std::string message) { return Error(ErrorKind::unavailable, std::move(message)); }
inline Error internal_error(std::string message) { return Error(ErrorKind::internal, std::move(message)); }

// A value or an Error. Accessing the wrong alternative is a programming error.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Error error) : storage_(std::move(error)) {}

  explicit operator bool() const { return std::holds_alternative<T>(storage_); }
  bool ok() const { return std::holds_alternative<T>(storage_); }

  T& operator*() { assert(ok() && "dereferencing an Expected that holds an error"); return std::get<T>(storage_); }
  const T& operator*() const { assert(ok() && "dereferencing an Expected that holds an error"); return std::get<T>(storage_); }
  T* operator->() { return &**this; }
  const T* operator->() const { return &**this; }

  const Error& error() const { assert(!ok() && "no error in this Expected"); return std::get<Error>(storage_); }
  Error take_error() { assert(!ok() && "no error in this Expected"); return std::move(std::get<Error>(storage_)); }

 private:
  std::variant<T, Error> storage_;
};

// Expected<void>: success or an Error.
struct Ok {};
using Status = Expected<Ok>;
inline Status ok() { return Ok{}; }

}  // namespace tsr

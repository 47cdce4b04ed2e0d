// Recoverable errors as values (modelled on LLVM Support/Error.h, much smaller).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tsr {

// Categories map onto the CLI exit codes documented in docs/cli.md.
enum class ErrorKind {
  invalid_input = 1,   // bad spec, bad receipt, verification failure
  usage = 2,           // bad command line
  toolchain = 3,       // missing tool, compiler failure, internal failure
};

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

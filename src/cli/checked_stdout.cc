#include "cli/checked_stdout.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string>

#include "cli/commands.h"

namespace tsr::cli {

namespace {

// A write(2) buffer on fd 1. After the first error it drops further output:
// the command goes on (its other outputs may still matter) and fails at exit.
class CheckedStdoutBuffer final : public std::streambuf {
 public:
  CheckedStdoutBuffer() { setp(buffer_, buffer_ + sizeof buffer_); }
  int first_error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* next = pbase();
    size_t left = static_cast<size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = write(STDOUT_FILENO, next, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        break;
      }
      next += n;
      left -= static_cast<size_t>(n);
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_ == 0;
  }

  char buffer_[8192];
  int error_ = 0;
};

// Never destroyed: std::cout may still be flushed during static destruction.
CheckedStdoutBuffer& checked_buffer() {
  static CheckedStdoutBuffer* buffer = new CheckedStdoutBuffer;
  return *buffer;
}

}  // namespace

void check_standard_output() { std::cout.rdbuf(&checked_buffer()); }

int finish_standard_output(int exit_code) {
  std::cout.flush();
  const int error = checked_buffer().first_error();
  if (error == 0) return exit_code;
  report_error(std::string("cannot write standard output: ") + std::strerror(error), kExitToolchain);
  return exit_code == kExitOk ? kExitToolchain : exit_code;
}

}  // namespace tsr::cli

/* Status strings and dtype facts; the numbers are pinned in tesserart.h. */
#include <stdarg.h>
#include <stdio.h>

#include "tsr_internal.h"

const char* tsr_status_string(tsr_status status) {
  switch (status) {
    case TSR_OK: return "ok";
    case TSR_ERROR_GENERIC: return "error";
    case TSR_ERROR_NULL_ARGUMENT: return "null argument";
    case TSR_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case TSR_ERROR_OUT_OF_MEMORY: return "out of memory";
    case TSR_ERROR_IO: return "i/o error";
    case TSR_ERROR_BAD_MAGIC: return "not a tesserac archive (bad magic)";
    case TSR_ERROR_UNSUPPORTED_VERSION: return "unsupported archive format version";
    case TSR_ERROR_TRUNCATED: return "archive truncated";
    case TSR_ERROR_CORRUPT: return "archive corrupt";
    case TSR_ERROR_CHECKSUM: return "archive checksum mismatch";
    case TSR_ERROR_NOT_FOUND: return "not found";
    case TSR_ERROR_NO_VARIANT: return "no variant for this machine";
    case TSR_ERROR_NO_DEVICE: return "no device";
    case TSR_ERROR_NOT_QUALIFIED: return "not qualified";
    case TSR_ERROR_ARG_COUNT: return "wrong argument count";
    case TSR_ERROR_ROLE_MISMATCH: return "argument role mismatch";
    case TSR_ERROR_DTYPE_MISMATCH: return "argument dtype mismatch";
    case TSR_ERROR_BUFFER_TOO_SMALL: return "buffer too small";
    case TSR_ERROR_MISALIGNED: return "buffer misaligned";
    case TSR_ERROR_INVALID_SCALAR: return "invalid runtime scalar";
    case TSR_ERROR_LOAD_FAILED: return "artifact load failed";
    case TSR_ERROR_LAUNCH_FAILED: return "launch failed";
    case TSR_ERROR_UNSUPPORTED: return "unsupported";
    case TSR_ERROR_PROCESS_FATAL: return "process state changed by a failed backend: start a fresh process";
    case TSR_ERROR_DELEGATE_UNAVAILABLE: return "delegate library unavailable";
  }
  return "unknown status";
}

size_t tsr_dtype_size(tsr_dtype dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32: return 4;
    case TSR_DTYPE_F16: return 2;
    case TSR_DTYPE_BF16: return 2;
    case TSR_DTYPE_I64: return 8;
    default: return 0;
  }
}

const char* tsr_dtype_name(tsr_dtype dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_F16: return "f16";
    case TSR_DTYPE_BF16: return "bf16";
    case TSR_DTYPE_I64: return "i64";
    default: return "?";
  }
}

tsr_dtype tsr_dtype_from_name(const char* name) {
  for (int t = TSR_DTYPE_F32; t <= TSR_DTYPE_BF16; ++t)
    if (strcmp(name, tsr_dtype_name((tsr_dtype)t)) == 0) return (tsr_dtype)t;
  return TSR_DTYPE_INVALID;
}

void tsr_set_message(char* buf, size_t size, const char* fmt, ...) {
  if (!buf || size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}

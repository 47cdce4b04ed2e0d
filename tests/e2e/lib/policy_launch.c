/* An application's view of the runtime policy (issue 10 item 7): loads every
 * kernel of an archive with default select options (so TSR_REQUIRE_QUALIFIED
 * in the environment decides), launches it once on buffers sized from its ABI
 * with every runtime scalar set to 8, and prints one line per kernel:
 *   NAME: ran VARIANT (receipts N)   or   NAME: STATUS: MESSAGE
 * Exit 0 when every kernel ran, 1 otherwise.
 * usage: policy_launch ARCHIVE.tfat */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tesserart.h"

static int launch_one(tsr_archive* a, size_t k) {
  tsr_kernel_info info;
  if (tsr_archive_kernel_at(a, k, &info) != TSR_OK) return 1;
  tsr_kernel* kernel = NULL;
  tsr_status st = tsr_kernel_load(a, info.name, NULL, &kernel);
  if (st != TSR_OK) {
    printf("%s: %s: %s\n", info.name, tsr_status_string(st), tsr_archive_last_message(a));
    return 1;
  }
  tsr_buffer_arg buffers[8];
  int64_t scalars[8];
  void* memory[8] = {0};
  for (size_t s = 0; s < info.scalar_count && s < 8; ++s) scalars[s] = 8;
  size_t b = 0;
  for (size_t i = 0; i < info.binding_count && b < 8; ++i) {
    tsr_binding_info bi;
    tsr_kernel_binding_at(a, k, i, &bi);
    if (bi.role == TSR_ROLE_SCALAR) continue;
    size_t elements = 1;
    for (size_t d = 0; d < bi.dim_count; ++d) {
      tsr_dim_info di;
      tsr_kernel_dim_at(a, k, i, d, &di);
      elements *= di.is_scalar ? 8u : (size_t)di.value;
    }
    const size_t bytes = elements * tsr_dtype_size(bi.dtype);
    memory[b] = calloc(bytes ? bytes : 1, 1);
    buffers[b] = (tsr_buffer_arg){memory[b], bytes, bi.dtype, bi.role};
    ++b;
  }
  tsr_selection sel;
  st = tsr_kernel_launch(kernel, buffers, b, scalars, info.scalar_count, &sel);
  if (st == TSR_OK)
    printf("%s: ran %s:%s (receipts %zu)\n", info.name, sel.target_kind, sel.arch, info.receipt_count);
  else
    printf("%s: launch %s: %s\n", info.name, tsr_status_string(st), tsr_archive_last_message(a));
  for (size_t i = 0; i < b; ++i) free(memory[i]);
  tsr_kernel_unload(kernel);
  return st == TSR_OK ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: policy_launch ARCHIVE.tfat\n");
    return 2;
  }
  char message[512] = "";
  tsr_open_options options = {0, message, sizeof message};
  tsr_archive* a = NULL;
  if (tsr_archive_open_file(argv[1], &options, &a) != TSR_OK) {
    printf("open: %s\n", message);
    return 1;
  }
  tsr_archive_info ai;
  tsr_archive_get_info(a, &ai);
  int failed = 0;
  for (size_t k = 0; k < ai.kernel_count; ++k) failed |= launch_one(a, k);
  tsr_archive_close(a);
  return failed;
}

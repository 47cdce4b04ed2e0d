/* AMD XDNA backend (XRT C API, loaded with dlopen: backend_xrt_driver.c;
 * docs/targets-xdna.md, "Runtime"). A variant is an xclbin whose
 * USER_METADATA section "npu_insts" holds the NPU instruction stream. Load
 * registers the xclbin on the NPU, opens the kernel and writes the
 * instruction stream into its BO; a launch (tsr_kernel_launch, host
 * pointers) copies the three buffers (in0, in1, out) into BOs and runs
 * opcode 3 with the instruction stream. Admission: an xdna variant is
 * selected only with a hardware receipt bound to it, unless the caller
 * opts out (require_qualified = -1: the oracle qualifying it).
 *
 * XRT changes process-global state when it registers an xclbin; a failure
 * after that point cannot be undone from here, so it is reported as
 * TSR_ERROR_PROCESS_FATAL (start a fresh process) and every later xdna
 * load in this process is refused the same way, never rolled back. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_xrt.h"

typedef struct xrt_kernel {
  xrt_handle kernel;
  xrt_handle instructions;   /* BO holding the instruction stream */
  uint32_t words;            /* its length in 32-bit words */
  int groups[3];             /* memory group of in0, in1, out (arguments 3, 4, 5) */
} xrt_kernel;

static void xdna_unload(struct tsr_kernel* k);

static tsr_status fatal(tsr_xrt* x, const char* call, char* msg, size_t msg_size) {
  x->fatal = 1;
  tsr_set_message(msg, msg_size, "XRT: %s failed after the xclbin was registered on the NPU; process state "
                  "changed and is not rolled back: start a fresh process", call);
  return TSR_ERROR_PROCESS_FATAL;
}

static tsr_status xdna_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o,
                              size_t* out_variant, const char** out_route) {
  const tsr_xrt* x = tsr_xrt_get();
  if (x->status != TSR_OK) return TSR_ERROR_NO_DEVICE;
  tsr_kernel_info ki;
  if (tsr_archive_kernel_at(a, kernel, &ki) != TSR_OK) return TSR_ERROR_CORRUPT;
  long unqualified = -1;
  for (size_t v = 0; v < ki.variant_count; ++v) {
    tsr_variant_info vi;
    if (tsr_kernel_variant_at(a, kernel, v, &vi) != TSR_OK || strcmp(vi.target_kind, "xdna") != 0 ||
        strcmp(vi.arch, x->arch) != 0 || vi.artifact_kind != TSR_ARTIFACT_XCLBIN ||
        !tsr_select_wants_variant(o, a, kernel, v, vi.arch))
      continue;
    const int opted_out = o && o->require_qualified < 0;
    if (!opted_out && !tsr_variant_qualified(a, kernel, tsr_variant_rec(a, kernel, v, NULL))) {
      if (unqualified < 0) unqualified = (long)v;
      continue;
    }
    *out_variant = v;
    *out_route = "xclbin";
    return TSR_OK;
  }
  if (unqualified < 0) return TSR_ERROR_NO_VARIANT;
  *out_variant = (size_t)unqualified;   /* admission refused it: named in the message */
  return TSR_ERROR_NOT_QUALIFIED;
}

static tsr_status xdna_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi,
                            char* msg, size_t msg_size) {
  tsr_xrt* x = tsr_xrt_get();
  if (x->status != TSR_OK) return TSR_ERROR_NO_DEVICE;
  if (x->fatal) return fatal(x, "an earlier xdna load", msg, msg_size);
  size_t insts_size = 0;
  const uint8_t* insts = tsr_xclbin_instructions((const uint8_t*)blob, size, &insts_size);
  if (!insts) {
    tsr_set_message(msg, msg_size, "xclbin for '%s' has no NPU instruction stream (section npu_insts): "
                    "a run without it would do nothing", vi->entry);
    return TSR_ERROR_LOAD_FAILED;
  }
  tsr_status s = tsr_xrt_open_device(x, msg, msg_size);
  if (s != TSR_OK) return s;
  if (x->api.xrtDeviceLoadXclbin(x->device, blob) != 0) {   /* nothing registered yet: an ordinary failure */
    tsr_set_message(msg, msg_size, "XRT: xrtDeviceLoadXclbin failed for '%s'", vi->entry);
    return TSR_ERROR_LOAD_FAILED;
  }
  unsigned char uuid[16];
  if (x->api.xrtDeviceGetXclbinUUID(x->device, uuid) != 0) return fatal(x, "xrtDeviceGetXclbinUUID", msg, msg_size);
  xrt_kernel* xk = (xrt_kernel*)calloc(1, sizeof *xk);
  if (!xk) return fatal(x, "allocating the kernel state", msg, msg_size);
  xk->words = (uint32_t)(insts_size / 4);
  if (!(xk->kernel = x->api.xrtPLKernelOpen(x->device, uuid, vi->entry))) {
    free(xk);
    return fatal(x, "xrtPLKernelOpen", msg, msg_size);
  }
  const char* failed = NULL;
  int group = x->api.xrtKernelArgGroupId(xk->kernel, 1);
  for (int i = 0; i < 3 && group >= 0; ++i)
    if ((xk->groups[i] = x->api.xrtKernelArgGroupId(xk->kernel, 3 + i)) < 0) failed = "xrtKernelArgGroupId";
  if (group < 0) failed = "xrtKernelArgGroupId";
  if (!failed && !(xk->instructions = x->api.xrtBOAlloc(x->device, insts_size, TSR_XRT_BO_CACHEABLE, (unsigned)group)))
    failed = "xrtBOAlloc (instruction stream)";
  if (!failed && x->api.xrtBOWrite(xk->instructions, insts, insts_size, 0) != 0) failed = "xrtBOWrite (instruction stream)";
  if (!failed && x->api.xrtBOSync(xk->instructions, TSR_XRT_SYNC_TO_DEVICE, insts_size, 0) != 0)
    failed = "xrtBOSync (instruction stream)";
  if (!failed) {
    k->backend_state = xk;
    return TSR_OK;
  }
  /* The handles this load made are released; the registered xclbin stays. */
  k->backend_state = xk;
  xdna_unload(k);
  return fatal(x, failed, msg, msg_size);
}

/* One launch: BOs of its own (launches may run concurrently), freed on every path. */
static tsr_status xdna_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg, size_t msg_size) {
  tsr_xrt* x = tsr_xrt_get();
  const xrt_kernel* xk = (const xrt_kernel*)k->backend_state;
  xrt_handle bo[3] = {NULL, NULL, NULL};
  const char* failed = NULL;
  tsr_status s = TSR_ERROR_LAUNCH_FAILED;
  for (int i = 0; i < 3 && !failed; ++i) {
    size_t n = (size_t)args->required_bytes[i];
    if (!(bo[i] = x->api.xrtBOAlloc(x->device, n, TSR_XRT_BO_HOST_ONLY, (unsigned)xk->groups[i]))) {
      failed = "xrtBOAlloc";
      s = TSR_ERROR_OUT_OF_MEMORY;
    } else if (i < 2 && (x->api.xrtBOWrite(bo[i], args->host[i], n, 0) != 0 ||
                         x->api.xrtBOSync(bo[i], TSR_XRT_SYNC_TO_DEVICE, n, 0) != 0)) {
      failed = "xrtBOWrite/xrtBOSync";
    }
  }
  if (!failed) {
    xrt_handle run = x->api.xrtKernelRun(xk->kernel, (uint64_t)TSR_XRT_OPCODE_TRANSACTION, xk->instructions,
                                       xk->words, bo[0], bo[1], bo[2]);
    if (!run) {
      failed = "xrtKernelRun";
    } else {
      int state = x->api.xrtRunWait(run);
      x->api.xrtRunClose(run);
      if (state != TSR_XRT_RUN_COMPLETED) failed = "xrtRunWait (the run did not complete)";
    }
  }
  const size_t out_bytes = (size_t)args->required_bytes[2];
  if (!failed && (x->api.xrtBOSync(bo[2], TSR_XRT_SYNC_FROM_DEVICE, out_bytes, 0) != 0 ||
                  x->api.xrtBORead(bo[2], args->host[2], out_bytes, 0) != 0))
    failed = "xrtBOSync/xrtBORead (out)";
  for (int i = 0; i < 3; ++i)
    if (bo[i]) x->api.xrtBOFree(bo[i]);
  if (!failed) return TSR_OK;
  tsr_set_message(msg, msg_size, "XRT: %s failed", failed);
  return s;
}

static void xdna_unload(struct tsr_kernel* k) {
  tsr_xrt* x = tsr_xrt_get();
  xrt_kernel* xk = (xrt_kernel*)k->backend_state;
  if (!xk) return;
  if (xk->instructions) x->api.xrtBOFree(xk->instructions);
  if (xk->kernel) x->api.xrtKernelClose(xk->kernel);
  free(xk);
  k->backend_state = NULL;
}

const tsr_backend tsr_backend_xdna = {
    "xdna", "tsr_kernel_launch", 0, xdna_select, xdna_load, xdna_launch, xdna_unload,
};

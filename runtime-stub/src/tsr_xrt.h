/* The XRT C API as libtesserart uses it (XRT 2.13: xrt/xrt_device.h,
 * xrt/xrt_kernel.h, xrt/xrt_bo.h), loaded with dlopen; the constants are
 * XRT's own values, checked against its headers by XrtConstants.* (tests). */
#ifndef TSR_XRT_H
#define TSR_XRT_H

#include "tsr_dl.h"
#include "tsr_internal.h"

enum {
  TSR_XRT_BO_CACHEABLE = 1 << 24,     /* XCL_BO_FLAGS_CACHEABLE: the instruction stream's BO */
  TSR_XRT_BO_HOST_ONLY = 1 << 29,     /* XCL_BO_FLAGS_HOST_ONLY: the NPU's data BOs */
  TSR_XRT_SYNC_TO_DEVICE = 0,         /* XCL_BO_SYNC_BO_TO_DEVICE */
  TSR_XRT_SYNC_FROM_DEVICE = 1,       /* XCL_BO_SYNC_BO_FROM_DEVICE */
  TSR_XRT_RUN_COMPLETED = 4,          /* ERT_CMD_STATE_COMPLETED */
  TSR_XRT_OPCODE_TRANSACTION = 3      /* the opcode mlir-aie's hosts pass first: run the instruction stream */
};

typedef void* xrt_handle;
/* XRT's entry points, X(symbol, return, parameters) (tsr_dl.h); all required. */
#define TSR_XRT_SYMBOLS(X)                                                                 \
  X(xrtDeviceOpen, xrt_handle, (unsigned index))                                            \
  X(xrtDeviceLoadXclbin, int, (xrt_handle device, const void* axlf))                        \
  X(xrtDeviceGetXclbinUUID, int, (xrt_handle device, unsigned char out[16]))                \
  X(xrtPLKernelOpen, xrt_handle, (xrt_handle device, const unsigned char uuid[16], const char* name)) \
  X(xrtKernelClose, int, (xrt_handle kernel))                                               \
  X(xrtKernelArgGroupId, int, (xrt_handle kernel, int argno))                               \
  X(xrtKernelRun, xrt_handle, (xrt_handle kernel, ...))                                     \
  X(xrtRunWait, int, (xrt_handle run))                                                      \
  X(xrtRunClose, int, (xrt_handle run))                                                     \
  X(xrtBOAlloc, xrt_handle, (xrt_handle device, size_t size, unsigned flags, unsigned group)) \
  X(xrtBOFree, int, (xrt_handle bo))                                                        \
  X(xrtBOSync, int, (xrt_handle bo, int direction, size_t size, size_t offset))            \
  X(xrtBOWrite, int, (xrt_handle bo, const void* src, size_t size, size_t seek))           \
  X(xrtBORead, int, (xrt_handle bo, void* dst, size_t size, size_t skip))

typedef struct tsr_xrt_api {
  TSR_XRT_SYMBOLS(TSR_DL_MEMBER)
} tsr_xrt_api;

typedef struct tsr_xrt {
  tsr_status status;        /* TSR_OK: XRT and an NPU are here */
  char why[160];            /* the reason when not, or the NPU's description */
  char arch[8];             /* "npu1" | "npu4" */
  void* library;
  tsr_xrt_api api;
  xrt_handle device;        /* opened on the first load, kept for the process */
  int fatal;                /* 1 after a failure that left process state changed */
} tsr_xrt;

/* XRT loaded once per process (or per tsr_xrt_use_library_for_tests). */
tsr_xrt* tsr_xrt_get(void);
/* Under the loader's lock: opens device 0 once. */
tsr_status tsr_xrt_open_device(tsr_xrt* x, char* msg, size_t msg_size);
/* The USER_METADATA section "npu_insts" of an xclbin (bounds-checked), or NULL. */
const uint8_t* tsr_xclbin_instructions(const uint8_t* xclbin, size_t size, size_t* out_size);

#endif /* TSR_XRT_H */

/* Loading XRT (libxrt_coreutil.so.2, whose C API is xrt/xrt_device.h,
 * xrt_kernel.h and xrt_bo.h) once per process, finding the NPU
 * (/dev/accel/accel0, the amdxdna driver's node) and its generation from the
 * PCI device id (docs/targets-xdna.md, "Runtime"). Nothing here runs until a
 * kernel with xdna variants is selected or the compiler asks about devices. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tsr_xrt.h"

#define DEFAULT_XRT "libxrt_coreutil.so.2"
#define NPU_NODE "/dev/accel/accel0"

static const char symbol_names[] = TSR_XRT_SYMBOLS(TSR_DL_NAME);
enum { SYMBOLS = 0 TSR_XRT_SYMBOLS(TSR_DL_COUNT) };
_Static_assert(sizeof(tsr_xrt_api) == SYMBOLS * sizeof(void*), "one pointer per symbol");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ready;
static tsr_xrt xrt;
static char test_library[256];   /* tests only: a double of XRT and the arch it stands for */
static char test_arch[8];

/* Phoenix and Hawk Point (0x1502) are npu1, Strix and later (0x17f0) npu4. */
static const char* arch_of_pci_device(void) {
  FILE* f = fopen("/sys/class/accel/accel0/device/device", "r");
  unsigned id = 0;
  if (f) {
    if (fscanf(f, "%x", &id) != 1) id = 0;
    fclose(f);
  }
  return id == 0x1502 ? "npu1" : id == 0x17f0 ? "npu4" : NULL;
}

static void load(tsr_xrt* x) {
  x->status = TSR_ERROR_NO_DEVICE;
  /* The device first: a machine without an NPU never maps XRT into the process. */
  const char* arch = test_arch;
  if (!test_library[0]) {
    if (access(NPU_NODE, R_OK | W_OK) != 0) {
      snprintf(x->why, sizeof x->why, "no NPU (%s absent or not accessible)", NPU_NODE);
      return;
    }
    if (!(arch = arch_of_pci_device())) {
      snprintf(x->why, sizeof x->why, "an NPU of an unknown generation at %s", NPU_NODE);
      return;
    }
  }
  const char* path = test_library[0] ? test_library : DEFAULT_XRT;
  x->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!x->library) {
    snprintf(x->why, sizeof x->why, "no XRT (%.100s not found)", path);
    return;
  }
  const char* missing = tsr_dl_resolve(x->library, symbol_names, SYMBOLS, SYMBOLS, &x->api);
  if (missing) {
    snprintf(x->why, sizeof x->why, "XRT %.80s lacks %s", path, missing);
    return;
  }
  snprintf(x->arch, sizeof x->arch, "%s", arch);
  snprintf(x->why, sizeof x->why, "AMD XDNA NPU (%s) at %s", x->arch, NPU_NODE);
  x->status = TSR_OK;
}

tsr_xrt* tsr_xrt_get(void) {
  if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&lock);
    if (!ready) {
      load(&xrt);
      __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
  }
  return &xrt;
}

tsr_status tsr_xrt_open_device(tsr_xrt* x, char* msg, size_t msg_size) {
  pthread_mutex_lock(&lock);
  if (!x->device) x->device = x->api.xrtDeviceOpen(0);
  const int opened = x->device != NULL;
  pthread_mutex_unlock(&lock);
  if (!opened) tsr_set_message(msg, msg_size, "XRT: xrtDeviceOpen(0) failed");
  return opened ? TSR_OK : TSR_ERROR_NO_DEVICE;
}

tsr_status tsr_xrt_probe(char* out_npu, size_t npu_size) {
  tsr_xrt* x = tsr_xrt_get();
  if (out_npu && npu_size) snprintf(out_npu, npu_size, "%s", x->why);
  return x->status;
}

void tsr_xrt_use_library_for_tests(const char* path, const char* arch) {
  pthread_mutex_lock(&lock);
  if (xrt.library) dlclose(xrt.library);
  memset(&xrt, 0, sizeof xrt);
  snprintf(test_library, sizeof test_library, "%s", path ? path : "");
  snprintf(test_arch, sizeof test_arch, "%s", arch ? arch : "");
  __atomic_store_n(&ready, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

/* The axlf layout of xrt/xclbin.h: header 456 bytes, section headers of 40
 * (kind u32, name[16], offset u64, size u64) from byte 456, their count at
 * 448 and the file's length at 304. Every offset and size is checked. */
const uint8_t* tsr_xclbin_instructions(const uint8_t* b, size_t size, size_t* out_size) {
  if (size < 456 || memcmp(b, "xclbin2", 8) != 0) return NULL;
  uint64_t count = tsr_le32(b + 448);
  if (count > (size - 456) / 40) return NULL;
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* h = b + 456 + i * 40;
    uint64_t off = tsr_le64(h + 24), len = tsr_le64(h + 32);
    if (tsr_le32(h) != 16 || memcmp(h + 4, "npu_insts", 10) != 0) continue;
    if (!tsr_range_ok(off, len, size) || len == 0 || len % 4) return NULL;
    *out_size = (size_t)len;
    return b + off;
  }
  return NULL;
}

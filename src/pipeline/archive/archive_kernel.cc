#include "archive/archive_kernel.h"

#include "identity/identity.h"
#include "spec/abi.h"

namespace tsr {

ArchiveKernel archive_kernel(const KernelSpec& spec) {
  ArchiveKernel k;
  k.name = spec.name;
  k.identity = kernel_identity(spec);
  k.family = family_name(spec.family);
  k.dtype = spec.dtype;
  k.abi = kernel_abi(spec);
  return k;
}

}  // namespace tsr

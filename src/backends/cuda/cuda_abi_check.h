// ABI check of compiled artifacts against the spec's ABI (PTX ISA §"Kernel
// function parameters"; ELF-64 object format for the cubin symbol table and
// the .nv.info.<entry> attribute section). A mismatch is an internal error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/abi.h"
#include "support/error.h"

namespace tsr::cuda {

struct PtxParam {
  std::string type;        // ".u64", ".b32", ...
  bool is_pointer = false; // carries the .ptr qualifier
  std::string name;
};

struct PtxEntry {
  std::string name;
  std::vector<PtxParam> params;
};

// Every `.entry` in a PTX module, in order of appearance.
std::vector<PtxEntry> parse_ptx_entries(const std::string& ptx);

// The entry must exist, with one 64-bit parameter per binding (pointers for
// buffers, non-pointers for the int64 scalars).
Status check_ptx_abi(const std::string& ptx, const std::string& entry, const KernelAbi& abi);

struct CubinKernel {
  std::string name;
  std::optional<std::vector<uint32_t>> param_sizes;   // from EIATTR_KPARAM_INFO, in ordinal order
};

// The function symbols of an ELF cubin; an error when the ELF is malformed.
Expected<std::vector<CubinKernel>> read_cubin_kernels(const std::vector<uint8_t>& cubin);

// The entry must be a function symbol; where the cubin records parameter
// sizes, they must be one 8-byte parameter per binding.
Status check_cubin_abi(const std::vector<uint8_t>& cubin, const std::string& entry, const KernelAbi& abi);

}  // namespace tsr::cuda

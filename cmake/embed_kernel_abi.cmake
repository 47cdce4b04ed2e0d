# Embeds the x86 kernel ABI (the text of runtime-stub/include/tesserart_kernel.h
# between its TSR_KERNEL_ABI_BEGIN and TSR_KERNEL_ABI_END markers) into a C++
# header, so the emitter pastes into every kernel the bytes the stub compiles.
# Run at build time: cmake -DIN=<header> -DOUT=<generated .h> -P embed_kernel_abi.cmake
file(READ "${IN}" text)
set(begin_marker "/* TSR_KERNEL_ABI_BEGIN */\n")
set(end_marker "/* TSR_KERNEL_ABI_END */")
string(FIND "${text}" "${begin_marker}" begin)
string(FIND "${text}" "${end_marker}" end)
if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "${IN}: TSR_KERNEL_ABI_BEGIN / TSR_KERNEL_ABI_END markers missing or out of order")
endif()
string(LENGTH "${begin_marker}" marker_length)
math(EXPR first "${begin} + ${marker_length}")
math(EXPR length "${end} - ${first}")
string(SUBSTRING "${text}" ${first} ${length} abi)
string(FIND "${abi}" ")tsr_abi\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN}: the ABI text contains the raw-string delimiter )tsr_abi\"")
endif()
set(content "// Generated from runtime-stub/include/tesserart_kernel.h by cmake/embed_kernel_abi.cmake: do not edit.
#pragma once

namespace tsr::x86 {

// The kernel ABI declarations (tsr_kernel_context, tsr_task_fn, ...), verbatim.
inline constexpr const char kKernelAbiText[] = R\"tsr_abi(${abi})tsr_abi\";

}  // namespace tsr::x86
")
# Rewrite only on change, so an edit elsewhere in the header rebuilds nothing.
file(WRITE "${OUT}.tmp" "${content}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")

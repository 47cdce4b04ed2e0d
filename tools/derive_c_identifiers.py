#!/usr/bin/env python3
"""Derives src/core/support/c_identifiers_table.inc: the identifiers a kernel name
(the stem of exported C symbols and of the CUDA entry) may not be.

Run from the repository root on a machine with clang and the CUDA toolkit:
    python3 tools/derive_c_identifiers.py > src/core/support/c_identifiers_table.inc

Sources, in the order a name's class is chosen:
  c_keyword        C11 and C23 keywords (ISO/IEC 9899:2011 and :2024, 6.4.1),
                   plus the GNU C keywords of -std=gnu11 (asm, typeof)
  cpp_keyword      C++20 keywords and alternative tokens (ISO/IEC 14882:2020,
                   [lex.key] tables 5 and 6)
  special          names C gives a meaning to outside the headers (main)
  libc_function    every function, variable and type declared by the headers
  libc_macro       every macro defined by them or predefined by the compiler,
                   both from clang -std=gnu11, with and without _GNU_SOURCE,
                   over HEADERS (the emitted x86 C includes math.h, stdint.h,
                   stdlib.h and string.h; tesserart.h and the embed output
                   stddef.h)
  cuda_builtin     every identifier NVRTC refuses as the name of an
                   `extern "C" __global__` function (the form of the emitted
                   CUDA entry) under the options the cuda target compiles
                   with; the candidates are every identifier in the CUDA
                   toolkit's top-level and crt/ headers, in the text of
                   libnvrtc-builtins, and in the lists above.
Identifiers starting with '_' are left out: C reserves them at file scope and
the kernel-name rule refuses them by prefix.
"""
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile

CLANG = os.environ.get("CLANG", "clang-14")
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
HEADERS = ["math.h", "stdint.h", "stdlib.h", "string.h", "stddef.h"]
NVRTC_OPTIONS = ["--gpu-architecture=compute_80", "--std=c++17", "--prec-div=true", "--prec-sqrt=true",
                 "--ftz=false"]

C_KEYWORDS = """auto break case char const continue default do double else enum extern float for goto if inline
int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile
while alignas alignof bool constexpr false nullptr static_assert thread_local true typeof typeof_unqual asm""".split()

CPP_KEYWORDS = """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq""".split()

SPECIAL = ["main"]

IDENT = re.compile(r"\b[A-Za-z][A-Za-z0-9_]*\b")


def clang_names(gnu_source):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "h.c")
        with open(src, "w") as f:
            if gnu_source:
                f.write("#define _GNU_SOURCE 1\n")
            f.writelines(f"#include <{h}>\n" for h in HEADERS)
        macros = subprocess.run([CLANG, "-std=gnu11", "-dM", "-E", src], check=True, capture_output=True,
                                text=True).stdout
        ast = subprocess.run([CLANG, "-std=gnu11", "-fsyntax-only", "-Xclang", "-ast-dump=json", src], check=True,
                             capture_output=True, text=True).stdout
    macro_names = {line.split()[1].split("(")[0] for line in macros.splitlines() if line.startswith("#define ")}
    decl_names = set()
    for node in json.loads(ast).get("inner", []):
        if node.get("isImplicit"):
            continue
        if node.get("name"):
            decl_names.add(node["name"])
        if node.get("kind") == "EnumDecl":   # enumerators are file-scope names too
            decl_names.update(c["name"] for c in node.get("inner", []) if c.get("name"))
        if node.get("kind") == "TypedefDecl" and node.get("name"):
            decl_names.add(node["name"])
    public = lambda names: {n for n in names if not n.startswith("_")}
    return public(decl_names), public(macro_names)


def cuda_candidates(extra):
    names = set(extra)
    include = os.path.join(CUDA, "include")
    for sub in ["", "crt"]:
        d = os.path.join(include, sub)
        for f in os.listdir(d):
            if f.endswith((".h", ".hpp")):
                with open(os.path.join(d, f), errors="replace") as fh:
                    names.update(IDENT.findall(fh.read()))
    builtins = os.path.join(CUDA, "lib64", "libnvrtc-builtins.so")
    text = subprocess.run(["strings", "-n", "3", builtins], check=True, capture_output=True, text=True).stdout
    names.update(IDENT.findall(text))
    return sorted(n for n in names if not n.startswith("_") and len(n) <= 128)


class Nvrtc:
    def __init__(self):
        self.lib = ctypes.CDLL(os.path.join(CUDA, "lib64", "libnvrtc.so"))

    def refused_lines(self, source):
        prog = ctypes.c_void_p()
        assert self.lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"probe.cu", 0, None, None) == 0
        opts = (ctypes.c_char_p * len(NVRTC_OPTIONS))(*[o.encode() for o in NVRTC_OPTIONS])
        result = self.lib.nvrtcCompileProgram(prog, len(NVRTC_OPTIONS), opts)
        size = ctypes.c_size_t()
        self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        self.lib.nvrtcGetProgramLog(prog, log)
        self.lib.nvrtcDestroyProgram(ctypes.byref(prog))
        lines = {int(m) for m in re.findall(r"probe\.cu\((\d+)\): error", log.value.decode(errors="replace"))}
        return result, lines


def cuda_refused(candidates):
    """Names NVRTC refuses as an extern "C" __global__ entry, one per line,
    retried without the refused ones until a batch compiles cleanly."""
    nvrtc = Nvrtc()
    decl = 'extern "C" __global__ void {}(const float* __restrict__ tsr_p, long long tsr_s) {{}}\n'
    refused = set()
    chunk = 1500
    for start in range(0, len(candidates), chunk):
        pending = candidates[start:start + chunk]
        while pending:
            result, lines = nvrtc.refused_lines("".join(decl.format(n) for n in pending))
            if result == 0:
                break
            bad = {pending[i - 1] for i in lines if 1 <= i <= len(pending)}
            if not bad:   # an error not on a declaration line: bisect
                if len(pending) == 1:
                    refused.add(pending[0])
                    break
                half = len(pending) // 2
                for part in (pending[:half], pending[half:]):
                    refused.update(cuda_refused_exact(nvrtc, decl, part))
                break
            refused |= bad
            pending = [n for n in pending if n not in bad]
    # An error can be reported on a neighbouring line; only a name refused on
    # its own counts.
    return {n for n in refused if nvrtc.refused_lines(decl.format(n))[0] != 0}


def cuda_refused_exact(nvrtc, decl, names):
    result, _ = nvrtc.refused_lines("".join(decl.format(n) for n in names))
    if result == 0:
        return set()
    if len(names) == 1:
        return set(names)
    half = len(names) // 2
    return cuda_refused_exact(nvrtc, decl, names[:half]) | cuda_refused_exact(nvrtc, decl, names[half:])


def main():
    decls, macros = set(), set()
    for gnu in (False, True):
        d, m = clang_names(gnu)
        decls |= d
        macros |= m
    classes = {}
    for cls, names in [("c_keyword", C_KEYWORDS), ("cpp_keyword", CPP_KEYWORDS), ("special", SPECIAL),
                       ("libc_function", sorted(decls)), ("libc_macro", sorted(macros))]:
        for n in names:
            classes.setdefault(n, cls)
    for n in cuda_refused(cuda_candidates(classes.keys())):
        classes.setdefault(n, "cuda_builtin")
    clang_version = subprocess.run([CLANG, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print("// Generated by tools/derive_c_identifiers.py; do not edit (rerun it instead).")
    print(f"// clang: {clang_version}; headers: {', '.join(HEADERS)} (-std=gnu11, with and without _GNU_SOURCE)")
    print(f"// NVRTC: {CUDA}; options: {' '.join(NVRTC_OPTIONS)}")
    print(f"// {len(classes)} names, sorted")
    for n in sorted(classes):
        print(f'{{"{n}", ReservedClass::{classes[n]}}},')


if __name__ == "__main__":
    sys.exit(main())

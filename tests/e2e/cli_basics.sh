#!/bin/bash
# The command line contract: exit codes 0/1/2/3, exact usage errors, emit,
# targets --json, and that a missing toolchain named with -t is exit 3.
# usage: cli_basics.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
expect() {  # expect NAME CODE STDERR_SUBSTRING COMMAND...
  local name=$1 code=$2 text=$3; shift 3
  "$@" > "$work/out" 2> "$work/err"; local rc=$?
  if [ "$rc" = "$code" ] && { [ -z "$text" ] || grep -qF -- "$text" "$work/err" "$work/out"; }; then pass=$((pass+1)); echo "ok   $name"
  else fail=$((fail+1)); echo "FAIL $name: exit $rc (want $code), output:"; cat "$work/out" "$work/err"; fi
}
cd "$src"
expect "--version" 0 "tesserac 0." "$tesserac" --version
expect "--help lists subcommands" 0 "inspect" "$tesserac" --help
expect "no subcommand" 2 "A subcommand is required" "$tesserac"
expect "unknown subcommand" 2 "tesserac: error: unknown subcommand 'frobnicate'" "$tesserac" frobnicate
# A typo names the word and the subcommand meant (exact stderr), never CLI11's "A subcommand is required".
"$tesserac" biuld specs -o x.tfat > "$work/out" 2> "$work/err"; rc=$?
if [ "$rc" = 2 ] && [ ! -s "$work/out" ] && [ "$(cat "$work/err")" = "tesserac: error: unknown subcommand 'biuld' (did you mean 'build'?)
run 'tesserac --help' for usage" ]; then pass=$((pass+1)); echo "ok   subcommand typo"
else fail=$((fail+1)); echo "FAIL subcommand typo: exit $rc"; cat "$work/out" "$work/err"; fi
expect "subcommand typo: transposition" 2 "unknown subcommand 'inpsect' (did you mean 'inspect'?)" "$tesserac" inpsect
expect "help typo" 2 "unknown subcommand 'buidl' (did you mean 'build'?)" "$tesserac" help buidl
expect "help prints the help" 0 "inspect" "$tesserac" help
expect "help SUBCOMMAND prints its help" 0 "--out-dir" "$tesserac" help build
expect "help takes one subcommand" 2 "tesserac: error: 'help' takes at most one subcommand" "$tesserac" help build test
expect "unknown option" 2 "error:" "$tesserac" test specs --bogus
expect "--emulate help names cuda and hip" 0 "Run cuda and hip targets that have no device in the CPU emulator" \
  "$tesserac" test --help
expect "unknown target" 2 "tesserac: error: unknown target 'x86:v9' (known: x86:v2, x86:v3, x86:v4" "$tesserac" test specs -t x86:v9
expect "missing spec path" 1 "nope.yaml: error: no such file or directory" "$tesserac" test nope.yaml -t x86:v2
expect "emit prints C" 0 "void tsr_entry(const tsr_kernel_context* ctx, void* const* buffers, const int64_t* scalars) __asm__(\"gemm_f32_tsr_entry\");" "$tesserac" emit specs/gemm_f32.yaml -t x86:v3
expect "emit -o writes a file" 0 "" "$tesserac" emit specs/gemm_f32.yaml -t x86:v3 -o "$work/gemm.c"
if grep -q "gemm_f32_tsr_entry" "$work/gemm.c"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL emit -o content"; fi
expect "emit takes one target" 2 "emit takes exactly one target" "$tesserac" emit specs/gemm_f32.yaml -t x86:v3,x86:v4
expect "emit of a bad spec" 1 "error: unknown dtype" "$tesserac" emit tests/bad_specs/unknown_dtype.yaml -t x86:v3
expect "targets --json" 0 '"target": "x86:v2"' "$tesserac" targets --json
# Each kind says what it does and does not do; xdna's found "toolchain" is only its xclbin writer.
expect "targets says xdna generates no AIE code" 0 \
  "  does not:  generate or compile AIE code: an AIE toolchain (mlir-aie, Peano) makes the artifacts" "$tesserac" targets
expect "targets --json has does_not" 0 '"does_not": "generate or compile AIE code' "$tesserac" targets --json
if "$tesserac" targets | grep -A2 -x 'xdna' | grep -q '^  does: .*into an xclbin'; then pass=$((pass+1))
else fail=$((fail+1)); echo "FAIL targets: xdna block"; "$tesserac" targets; fi
# A toolchain that is missing: named with -t it is an error (3), by default NOT_RUN.
expect "missing clang named with -t fails the build" 3 "target unavailable: x86:v3" \
  env TESSERAC_CLANG=/nonexistent/clang "$tesserac" build specs/ew_add_f32.yaml -t x86:v3 -o "$work/x.tfat"
expect "missing clang in test is NOT_RUN" 0 "NOT_RUN" \
  env TESSERAC_CLANG=/nonexistent/clang "$tesserac" test specs/ew_add_f32.yaml -t x86:v3
expect "missing CUDA toolkit is NOT_RUN with the reason" 0 "CUDA toolkit not found at /nonexistent" \
  env TESSERAC_CUDA_ROOT=/nonexistent "$tesserac" test specs/ew_add_f32.yaml -t cuda:sm_90
[ ! -e "$work/x.tfat" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL failed build wrote an archive"; }
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

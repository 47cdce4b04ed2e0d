#!/usr/bin/env bash
# The device check of the cuda target, one script for a lent GPU machine
# (written for an H200, sm_90; any sm_80+ device works). Everything it runs
# launches through libtesserart. Steps, each PASS / FAIL / SKIP in the
# summary at the end, the full log in $OUT/cuda_check.log (default out/):
#   1. binaries: device-carry/ from tests/device/prepare_carry.sh (built on the
#      Debian build host), else a source build where this machine can;
#   2. tesserac targets: cuda:sm_XY and cuda:ptx present (the stub's driver);
#   3. tesserac build of every shipped spec for cuda:sm_XY,cuda:ptx;
#   4. tesserac test: the oracle through the stub's copying tsr_kernel_launch,
#      every verdict PASS with route "libtesserart cubin" / "... ptx-jit";
#   5. tesserac test --archive: the same through the archive from step 3;
#   6. cuda_device_check launch: every spec through tsr_kernel_launch_device
#      (cuMemAlloc'd buffers, a created stream) and the copying call, each
#      checked by the host oracle, plus the device launch's asynchrony;
#   7. cuda_device_check bench: ratios against a D2D copy and cuBLAS
#      (reported, not gated); 7b. attention_peers.py: PyTorch SDPA (flash,
#      cuDNN) and FlexAttention (Triton) beside our attention lines;
#   8. cuda_device_check primitives: each GPU primitive's inline PTX on the
#      GPU against the CPU emulator's model of it, bit for bit (the emulated
#      outputs come from the carry's primitives/, written on the build host,
#      else are emulated here, which needs clang).
# Exit: 0 every step passed, 1 a step failed, 77 skipped (no GPU or no build).
#   tests/device/cuda_check.sh [CARRY_DIR]    (from the repository root; ~3 min)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CARRY=${1:-$ROOT/device-carry}
[ -d "$CARRY" ] || CARRY=$(cd "$(dirname "$0")" && pwd)   # the script copied into the carry
OUTDIR=${OUT:-$ROOT/out}
mkdir -p "$OUTDIR"
WORK=$(mktemp -d)
LOG="$OUTDIR/cuda_check.log"
exec > >(tee "$LOG") 2>&1
echo "cuda_check: log $LOG, work dir $WORK, started $(date -u +%H:%M:%S)"
START=$SECONDS
summary=()
failed=0
step() { echo; echo "=== [$((SECONDS - START))s] $*"; }
result() {   # result NAME STATUS [DETAIL]
  summary+=("$(printf '%-5s %s%s' "$2" "$1" "${3:+: $3}")")
  [ "$2" = FAIL ] && failed=1
  return 0
}
finish() {
  echo
  echo "=== summary (${1:-done} after $((SECONDS - START))s)"
  printf '%s\n' "${summary[@]}"
  rm -rf "$WORK"
  if [ "${2:-}" = skip ]; then echo "cuda_check: SKIPPED"; exit 77; fi
  if [ $failed -ne 0 ]; then echo "cuda_check: FAILED"; exit 1; fi
  echo "cuda_check: PASSED"
  exit 0
}

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  result "GPU" SKIP "no NVIDIA GPU visible (nvidia-smi -L failed)"
  finish "no GPU" skip
fi
nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total --format=csv
SM="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d ' .')"
TARGETS="cuda:$SM,cuda:ptx"
export TESSERAC_CUDA_ROOT=${TESSERAC_CUDA_ROOT:-/usr/local/cuda}
export LD_LIBRARY_PATH="$TESSERAC_CUDA_ROOT/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

step "1. binaries"
TESSERAC="$CARRY/bin/tesserac"
HELPER="$CARRY/bin/cuda_device_check"
SPECS="$ROOT/specs"
[ -d "$SPECS" ] || SPECS="$CARRY/specs"
if [ -x "$TESSERAC" ] && ! "$TESSERAC" --version >/dev/null 2>&1 && [ -d "$CARRY/lib-compat" ]; then
  echo "host libstdc++ too old for the carried binaries: using $CARRY/lib-compat"
  export LD_LIBRARY_PATH="$CARRY/lib-compat:$LD_LIBRARY_PATH"
fi
if [ ! -x "$TESSERAC" ] || ! "$TESSERAC" --version >/dev/null 2>&1; then
  echo "carried binary unusable ($TESSERAC); trying a source build"
  if cmake -S "$ROOT" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERAC_BUILD_TESTS=OFF \
       -DTESSERAC_BUILD_BENCH=OFF >/dev/null && ninja -C "$WORK/build" tesserac; then
    TESSERAC="$WORK/build/tesserac"
  else
    result "binaries" SKIP "no usable tesserac (run tests/device/prepare_carry.sh on the build host)"
    finish "no build" skip
  fi
fi
[ -f "$CARRY/MANIFEST.txt" ] && cat "$CARRY/MANIFEST.txt"
"$TESSERAC" --version
result "binaries" PASS "$TESSERAC, specs $SPECS, device $SM"

step "2. tesserac targets"
if timeout 60 "$TESSERAC" targets >"$OUTDIR/targets.txt"; then
  # Each target's block: "cuda:sm_90", "  toolchain: ...", "  device:    present: ..." (docs/cli.md).
  present=$(for t in ${TARGETS//,/ }; do
    awk -v t="$t" '$0 == t {found = 1; next} found && /^  device:/ {sub(/^  device: +/, ""); print t, $0; exit}' \
      "$OUTDIR/targets.txt"
  done)
  echo "$present"
  if [ "$(echo "$present" | grep -c ' present: ')" -ne 2 ]; then result "targets" FAIL "$(echo "$present" | tr '\n' ';')"
  else result "targets" PASS "$(echo "$present" | head -1)"; fi
else
  result "targets" FAIL "tesserac targets failed"
fi

step "3. tesserac build: every shipped spec for $TARGETS"
mkdir -p "$WORK/out"
ARCHIVE="$WORK/out/kernels.tfat"
if timeout 240 "$TESSERAC" build "$SPECS" -t "$TARGETS" --no-oracle -o "$ARCHIVE" --out-dir "$WORK/out"; then
  result "build" PASS "$(ls -la "$ARCHIVE" | awk '{print $5}') bytes"
else
  result "build" FAIL "exit $?"
fi

# verdicts FILE: every row of the --json report PASS, launched by libtesserart
# (cubin or ptx-jit route); prints "N of M PASS" last.
verdicts() {
  local rows pass routed
  rows=$(grep -c '"verdict":' "$1")
  pass=$(grep -c '"verdict": "PASS"' "$1")
  routed=$(grep -cE '"route": "libtesserart (cubin|ptx-jit)"' "$1")
  grep -E '"(kernel|target|verdict|reason)":' "$1" | paste - - - - | grep -v '"PASS"' | sed 's/^ */  /'
  echo "$pass of $rows PASS, $routed launched by libtesserart"
  [ "$rows" -gt 0 ] && [ "$pass" -eq "$rows" ] && [ "$routed" -eq "$rows" ]
}

# oracle_step NAME JSON [tesserac test options...]: the oracle over every spec.
oracle_step() {
  local name=$1 json=$2 rc detail
  shift 2
  timeout 300 "$TESSERAC" test "$SPECS" -t "$TARGETS" "$@" --json "$json"
  rc=$?
  if detail=$(verdicts "$json") && [ $rc -eq 0 ]; then
    result "$name" PASS "$(echo "$detail" | tail -1)"
  else
    echo "$detail"
    result "$name" FAIL "exit $rc; $(echo "$detail" | tail -1)"
  fi
}

step "4. oracle through libtesserart (tesserac test)"
oracle_step "test" "$OUTDIR/cuda_test.json"

step "5. oracle through the archive (tesserac test --archive)"
if [ -f "$ARCHIVE" ]; then oracle_step "test --archive" "$OUTDIR/cuda_stub.json" --archive "$ARCHIVE"
else result "test --archive" FAIL "no archive from step 3"; fi

step "6. device pointers and streams (cuda_device_check launch)"
if [ -x "$HELPER" ]; then
  timeout 300 "$HELPER" launch "$SPECS" | tee "$OUTDIR/cuda_launch.txt"
  rc=${PIPESTATUS[0]}
  counts="$(grep -c '^PASS' "$OUTDIR/cuda_launch.txt") PASS, $(grep -cE '^(FAIL|NOT_RUN)' "$OUTDIR/cuda_launch.txt") FAIL/NOT_RUN"
  if [ "$rc" -eq 0 ]; then result "launch_device" PASS "$counts"; else result "launch_device" FAIL "exit $rc; $counts"; fi
else
  result "launch_device" FAIL "no helper $HELPER"
fi

step "7. benchmarks (reported, not gated)"
if [ -x "$HELPER" ]; then
  timeout 240 "$HELPER" bench | tee "$OUTDIR/cuda_bench.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then result "bench" PASS "$(grep -c MISSED "$OUTDIR/cuda_bench.txt") goal(s) missed (not gated)"
  else result "bench" FAIL "exit $rc"; fi
else
  result "bench" FAIL "no helper $HELPER"
fi

step "7b. attention peers (PyTorch SDPA flash/cuDNN, FlexAttention on Triton; reported, not gated)"
PEERS="$CARRY/attention_peers.py"
[ -f "$PEERS" ] || PEERS="$ROOT/tests/device/attention_peers.py"
if [ -f "$OUTDIR/cuda_bench.txt" ] && command -v python3 >/dev/null; then
  timeout 300 python3 "$PEERS" "$OUTDIR/cuda_bench.txt" | tee "$OUTDIR/attention_peers.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then result "attention peers" PASS "$(grep -c '^peer .*ms' "$OUTDIR/attention_peers.txt") peer lines"
  else result "attention peers" FAIL "exit $rc"; fi
else
  result "attention peers" SKIP "no bench output or no python3"
fi

step "8. primitives: the GPU against the emulator's model (cuda_device_check primitives)"
if [ -x "$HELPER" ]; then
  EMULATED=""
  [ -d "$CARRY/primitives" ] && EMULATED="$CARRY/primitives"
  timeout 240 "$HELPER" primitives $EMULATED | tee "$OUTDIR/cuda_primitives.txt"
  rc=${PIPESTATUS[0]}
  counts="$(grep -c '^PASS' "$OUTDIR/cuda_primitives.txt") PASS, $(grep -cE '^(FAIL|NOT_RUN)' "$OUTDIR/cuda_primitives.txt") FAIL/NOT_RUN"
  if [ "$rc" -eq 0 ]; then result "primitives" PASS "$counts"; else result "primitives" FAIL "exit $rc; $counts"; fi
else
  result "primitives" FAIL "no helper $HELPER"
fi

finish

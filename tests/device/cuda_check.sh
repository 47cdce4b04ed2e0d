#!/usr/bin/env bash
# Device check for the cuda target on a machine with an NVIDIA GPU (written for
# an H200, sm_90). In one run, logged in full to $LOG:
#   1. the tesserac build: device-carry/ from tests/device/prepare_carry.sh
#      (built on the Debian build host), else a source build when this machine
#      has the build dependencies;
#   2. tesserac build of every shipped spec for cuda:sm_90;
#   3. the oracle on the GPU for every spec through the runner (tesserac test)
#      and through the runtime stub (tesserac test --archive);
#   4. benchmarks with CUDA events, warm-up and medians, printed as ratios:
#      elementwise add vs a D2D copy of the same bytes, bf16 matmul 4096^3 and
#      8192^3 vs cublasGemmEx, rmsnorm vs the copy bandwidth.
# Exit: 0 all passed, 1 a failure, 77 skipped (no GPU / no driver / no build).
#   tests/device/cuda_check.sh [CARRY_DIR]    (run from the repository root)
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
step() { echo; echo "=== [$((SECONDS - START))s] $*"; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no NVIDIA GPU visible (nvidia-smi -L failed)"; exit 77
fi
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
export TESSERAC_CUDA_ROOT=${TESSERAC_CUDA_ROOT:-/usr/local/cuda}
export LD_LIBRARY_PATH="$TESSERAC_CUDA_ROOT/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

step "1. tesserac binaries"
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
    echo "SKIP: no usable tesserac (run tests/device/prepare_carry.sh on the build host)"; exit 77
  fi
fi
[ -f "$CARRY/MANIFEST.txt" ] && cat "$CARRY/MANIFEST.txt"
"$TESSERAC" --version
timeout 60 "$TESSERAC" targets

failures=()
step "2. tesserac build: every shipped spec for cuda:sm_90"
mkdir -p "$WORK/out"
if ! timeout 180 "$TESSERAC" build "$SPECS" -t cuda:sm_90,cuda:ptx --no-oracle -o "$WORK/out/kernels.tfat" --out-dir "$WORK/out"; then
  failures+=("build")
fi
ls -la "$WORK/out" 2>/dev/null

step "3a. oracle through the runner (tesserac test)"
timeout 240 "$TESSERAC" test "$SPECS" -t cuda:sm_90 --json "$OUTDIR/cuda_test.json"
rc=$?
[ $rc -eq 0 ] || failures+=("oracle-runner (exit $rc)")
if grep -q '"NOT_RUN"' "$OUTDIR/cuda_test.json" 2>/dev/null; then
  echo "a verdict is NOT_RUN on a GPU machine"; failures+=("oracle-runner NOT_RUN")
fi

step "3b. oracle through the runtime stub"
ARCHIVE=$(ls "$WORK"/out/*.tfat 2>/dev/null | head -1)
if [ -z "$ARCHIVE" ]; then
  echo "no .tfat archive from step 2"; failures+=("oracle-stub (no archive)")
else
  # tesserac test --archive launches every variant through tsr_kernel_launch.
  timeout 240 "$TESSERAC" test "$SPECS" -t cuda:sm_90 --archive "$ARCHIVE" --json "$OUTDIR/cuda_stub.json" ||
    failures+=("oracle-stub")
  if grep -q '"NOT_RUN"' "$OUTDIR/cuda_stub.json" 2>/dev/null; then
    echo "a stub verdict is NOT_RUN on a GPU machine"; failures+=("oracle-stub NOT_RUN")
  fi
fi

step "4. benchmarks (CUDA events, warm-up, median)"
if [ -x "$HELPER" ]; then
  timeout 240 "$HELPER" bench || failures+=("bench")
else
  failures+=("bench (no helper)")
fi

step "done in $((SECONDS - START))s"
rm -rf "$WORK"
if [ ${#failures[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failures[@]}"; exit 1
fi
echo "cuda_check: all steps passed (performance ratios above are reported, not gated)"

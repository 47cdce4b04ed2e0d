#!/bin/bash
# The whole test suite: install dependencies, build everything, run ctest.
set -euo pipefail
cd "$(dirname "$0")"
packaging/install-deps.sh
# A cold CI build: line tables only (-g1: a backtrace still names file:line;
# full debug info costs a third of the compile time) and the unit tests'
# common headers precompiled (docs/decisions.md, "The CI build").
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DTESSERAC_TEST_PCH=ON >/dev/null
start=$(date +%s)
cmake --build build
echo "build: $(($(date +%s) - start)) s on $(nproc) cores"
cd build
# The emulated CUDA set first, timed on its own (every shipped spec's
# generated GPU source in the CPU emulator, the injected bugs, the checks),
# then everything else.
start=$(date +%s)
ctest --output-on-failure --timeout 900 -j"$(nproc)" -R '^CudaEmulator'
echo "emulated CUDA set: $(($(date +%s) - start)) s on $(nproc) cores"
# The emulated HIP set (every shipped spec's gfx90a wave64 / MFMA and gfx1100
# wave32 source, the injected MFMA layout and wave-size bugs).
start=$(date +%s)
ctest --output-on-failure --timeout 900 -j"$(nproc)" -R '^HipEmulator'
echo "emulated HIP set: $(($(date +%s) - start)) s on $(nproc) cores"
start=$(date +%s)
ctest --output-on-failure --timeout 900 -j"$(nproc)" -E '^CudaEmulator|^HipEmulator'
echo "the rest: $(($(date +%s) - start)) s on $(nproc) cores"

#!/bin/bash
# build --out-dir for cuda: the PTX and the cubin as loose .ptx and .cubin
# files. Needs only NVRTC and nvJitLink (no GPU); without the toolkit the
# build exits 3 saying so, and this test is skipped (exit 77).
# usage: build_out_dir_cuda.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
source "$src/tests/e2e/lib/manifest_lists.bash"
cp "$src/specs/ew_add_f32.yaml" s.yaml

if out_dir_or_skip cuda -t cuda:ptx,cuda:sm_90 --no-oracle --out-dir cuda; then
  expect_true "cuda artifacts end in .ptx and .cubin" manifest_lists cuda ew_add_f32.cuda_ptx.ptx ew_add_f32.cuda_sm_90.cubin
  expect_true "the .ptx file is PTX text" grep -q "^.target" cuda/ew_add_f32.cuda_ptx.ptx
fi
finish

#!/bin/bash
# build --out-dir for hip: one code object per gfx as a loose .hsaco file.
# Needs only clang-15 (no GPU); without it the build exits 3 saying so, and
# this test is skipped (exit 77).
# usage: build_out_dir_hip.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
source "$src/tests/e2e/lib/manifest_lists.bash"
cp "$src/specs/ew_add_f32.yaml" s.yaml

if out_dir_or_skip hip -t hip:gfx90a,hip:gfx1100 --no-oracle --out-dir hip; then
  expect_true "hip artifacts end in .hsaco" manifest_lists hip ew_add_f32.hip_gfx90a.hsaco ew_add_f32.hip_gfx1100.hsaco
  expect_true "a .hsaco file is an ELF code object" bash -c "head -c 4 hip/ew_add_f32.hip_gfx1100.hsaco | grep -q ELF"
fi
finish

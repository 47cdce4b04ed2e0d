#!/bin/bash
# build --out-dir: one loose file per artifact, named KERNEL.KIND_ARCH plus
# the suffix its target gives that kind of artifact (Target::
# artifact_file_extension), and a manifest.json listing them. The cuda and
# hip kinds are build_out_dir_cuda.sh and build_out_dir_hip.sh, each
# skipped on its own where its toolchain is missing.
# usage: build_out_dir.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
source "$src/tests/e2e/lib/manifest_lists.bash"
cp "$src/specs/ew_add_f32.yaml" s.yaml

expect "x86 artifacts as loose files" 0 "" "$tesserac" build s.yaml -t x86:v2,x86:v3 --no-oracle --out-dir x86
expect_true "x86 artifacts end in .so" manifest_lists x86 ew_add_f32.x86_v2.so ew_add_f32.x86_v3.so
expect_true "an x86 artifact is an ELF shared object" bash -c "head -c 4 x86/ew_add_f32.x86_v2.so | grep -q ELF"
finish

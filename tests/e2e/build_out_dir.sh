#!/bin/bash
# build --out-dir: one loose file per artifact, named KERNEL.KIND_ARCH plus
# the suffix its target gives that kind of artifact (Target::
# artifact_file_extension), and a manifest.json listing them.
# usage: build_out_dir.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
cp "$src/specs/ew_add_f32.yaml" s.yaml

# manifest_lists DIR NAME...: manifest.json names exactly these files, each present with its sha256.
manifest_lists() {
  python3 - "$@" <<'EOF'
import hashlib, json, os, sys
d, want = sys.argv[1], sys.argv[2:]
m = json.load(open(os.path.join(d, "manifest.json")))
names = [a["artifact"] for a in m["artifacts"]]
assert names == want, names
for a in m["artifacts"]:
    assert hashlib.sha256(open(os.path.join(d, a["artifact"]), "rb").read()).hexdigest() == a["sha256"], a
assert sorted(os.listdir(d)) == sorted(want + ["manifest.json"]), os.listdir(d)
EOF
}

expect "x86 artifacts as loose files" 0 "" "$tesserac" build s.yaml -t x86:v2,x86:v3 --no-oracle --out-dir x86
expect_true "x86 artifacts end in .so" manifest_lists x86 ew_add_f32.x86_v2.so ew_add_f32.x86_v3.so
expect_true "an x86 artifact is an ELF shared object" bash -c "head -c 4 x86/ew_add_f32.x86_v2.so | grep -q ELF"

# CUDA needs only NVRTC and nvJitLink (no GPU); without the toolkit the build says so with exit 3.
"$tesserac" build s.yaml -t cuda:ptx,cuda:sm_90 --no-oracle --out-dir cuda > out.txt 2> err.txt; rc=$?
if [ "$rc" = 0 ]; then
  expect_true "cuda artifacts end in .ptx and .cubin" manifest_lists cuda ew_add_f32.cuda_ptx.ptx ew_add_f32.cuda_sm_90.cubin
  expect_true "the .ptx file is PTX text" grep -q "^.target" cuda/ew_add_f32.cuda_ptx.ptx
elif [ "$rc" = 3 ] && grep -q "unavailable" err.txt; then
  echo "skip cuda artifacts: $(cat err.txt)"
else
  bad "cuda --out-dir: exit $rc"; cat err.txt
fi

# hip needs only clang-15 (no GPU): one code object per gfx, ending in .hsaco.
"$tesserac" build s.yaml -t hip:gfx90a,hip:gfx1100 --no-oracle --out-dir hip > out.txt 2> err.txt; rc=$?
if [ "$rc" = 0 ]; then
  expect_true "hip artifacts end in .hsaco" manifest_lists hip ew_add_f32.hip_gfx90a.hsaco ew_add_f32.hip_gfx1100.hsaco
  expect_true "a .hsaco file is an ELF code object" bash -c "head -c 4 hip/ew_add_f32.hip_gfx1100.hsaco | grep -q ELF"
elif [ "$rc" = 3 ] && grep -q "unavailable" err.txt; then
  echo "skip hip artifacts: $(cat err.txt)"
else
  bad "hip --out-dir: exit $rc"; cat err.txt
fi
finish

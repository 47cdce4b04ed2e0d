#!/bin/bash
# tesserac build --depfile works with Ninja: a no-op rebuild does nothing,
# touching a spec or adding one to the directory rebuilds the archive.
# usage: depfile_ninja.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
command -v ninja > /dev/null || { echo "SKIP: ninja not installed"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/my specs"
cp "$src/specs/gemm_f32.yaml" "$src/specs/ew_add_f32.yaml" "$work/my specs/"
cat > "$work/build.ninja" <<NINJA
rule tfat
  command = "$tesserac" build "my specs" -t x86:v3 --no-oracle -o \$out --depfile \$out.d
  depfile = \$out.d
  deps = gcc
build kernels.tfat: tfat
NINJA
pass=0; fail=0
step() {  # step NAME EXPECT(rebuild|noop)
  local out; out=$(cd "$work" && ninja 2>&1); local rc=$?
  local did=noop; echo "$out" | grep -q "tfat" && ! echo "$out" | grep -q "no work to do" && did=rebuild
  if [ $rc = 0 ] && [ "$did" = "$2" ]; then pass=$((pass+1)); echo "ok   $1"
  else fail=$((fail+1)); echo "FAIL $1 (rc $rc, $did, wanted $2)"; echo "$out"; fi
}
step "first build" rebuild
step "second build is a no-op" noop
sleep 1.1; touch "$work/my specs/gemm_f32.yaml"
step "touching a spec rebuilds" rebuild
step "then a no-op again" noop
sleep 1.1; cp "$src/specs/softmax_f32.yaml" "$work/my specs/"
step "adding a spec to the directory rebuilds" rebuild
if "$tesserac" inspect --json "$work/kernels.tfat" | grep -q '"name": "softmax_f32"'; then pass=$((pass+1)); echo "ok   the new spec is in the archive"
else fail=$((fail+1)); echo "FAIL the new spec is not in the archive"; fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/bin/bash
# The hip target end to end without an AMD GPU: an archive with x86, cuda and
# hip variants of the same kernels builds, verifies, inspects and qualifies
# through libtesserart (hip rows NOT_RUN with the runtime's reason, never a
# PASS); gfx942 is refused naming the toolchain; a failing clang surfaces its
# error with exit code 3. Skips (77) without clang-15.
# usage: hip_archive.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
command -v clang-15 > /dev/null || { echo "skip: clang-15 not in PATH (the hip toolchain)"; exit 77; }
cp "$src/specs/ew_add_f32.yaml" "$src/specs/gemm_bias_gelu_bf16.yaml" .
targets=x86:v3,cuda:sm_90,hip:gfx90a,hip:gfx1100
cuda_found=$("$tesserac" targets | grep -A1 '^cuda:sm_90$' | grep -c 'nvrtc')
[ "$cuda_found" = 1 ] || targets=x86:v3,hip:gfx90a,hip:gfx1100

expect "build x86 + cuda + hip" 0 "" "$tesserac" build ew_add_f32.yaml gemm_bias_gelu_bf16.yaml -t $targets \
  -o mixed.tfat --json build.json -q
expect "verify" 0 "" "$tesserac" verify mixed.tfat
expect_true "hip rows are NOT_RUN with the runtime's reason, x86 rows PASS" python3 - build.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
hip = [r for r in rows if r["target"].startswith("hip:")]
assert len(hip) == 4, rows
for r in hip:
    assert r["verdict"] == "NOT_RUN" and r["reason"].startswith("no AMD GPU: "), r
assert all(r["verdict"] == "PASS" for r in rows if r["target"] == "x86:v3"), rows
PY
expect_true "inspect --json: a code object per gfx with its launch metadata, next to x86 and cuda" python3 - "$tesserac" <<'PY'
import json, subprocess, sys
j = json.loads(subprocess.check_output([sys.argv[1], "inspect", "--json", "mixed.tfat"]))
assert [k["name"] for k in j["kernels"]] == ["ew_add_f32", "gemm_bias_gelu_bf16"], j["kernels"]
for k in j["kernels"]:
    kinds = {v["target"]: v["artifact_kind"] for v in k["variants"]}
    assert kinds["x86:v3"] == "shared_object" and kinds["hip:gfx90a"] == "code_object" \
        and kinds["hip:gfx1100"] == "code_object", kinds
    assert kinds.get("cuda:sm_90", "cubin") == "cubin", kinds
    for v in k["variants"]:
        if v["target"].startswith("hip:"):
            m = v["metadata"]
            assert sorted(m) == ["hip.block", "hip.grid", "hip.shared_bytes", "hip.target_id"], m
            assert m["hip.target_id"] == v["target"][4:], m
            assert v["toolchain"].startswith("Debian clang version 15") or "clang version 15" in v["toolchain"], v
PY
expect_true "inspect (text) names the hip variants" grep -q "hip:gfx1100" <("$tesserac" inspect mixed.tfat)
expect_true "the archive's own bytes through the stub: hip NOT_RUN, x86 PASS" bash -c \
  "'$tesserac' test ew_add_f32.yaml gemm_bias_gelu_bf16.yaml -t $targets --archive mixed.tfat --json stub.json > /dev/null &&
   python3 -c \"
import json
rows = json.load(open('stub.json'))['results']
assert {r['verdict'] for r in rows if r['target'].startswith('hip:')} == {'NOT_RUN'}, rows
assert all(r['reason'].startswith('no AMD GPU: ') for r in rows if r['target'].startswith('hip:')), rows
assert {r['verdict'] for r in rows if r['target'] == 'x86:v3'} == {'PASS'}, rows
\""

# gfx942 needs a newer LLVM: refused before anything compiles, naming the installed clang.
cat > fake-clang <<'SH'
#!/bin/sh
if [ "$1" = --version ]; then echo "Debian clang version 15.0.6"; exit 0; fi
echo "kernel.hip:3:1: error: injected failure" >&2
exit 1
SH
chmod +x fake-clang
known="x86:v2, x86:v3, x86:v4, x86:v4+amx, cuda:sm_80, cuda:sm_86, cuda:sm_89, cuda:sm_90, cuda:sm_100, cuda:sm_120, cuda:ptx, hip:gfx90a, hip:gfx940, hip:gfx1030, hip:gfx1100, xdna:npu1, xdna:npu4"
expect "gfx942 is refused naming the toolchain" 2 \
  "tesserac: error: unknown target 'hip:gfx942' (known: $known): architecture gfx942 cannot be built by the installed toolchain (Debian clang version 15.0.6): gfx942 needs LLVM/clang >= 17 (ROCm >= 5.7 / 6.x) (supported: gfx90a, gfx940, gfx1030, gfx1100)" \
  env TESSERAC_HIP_CLANG="$PWD/fake-clang" "$tesserac" build ew_add_f32.yaml -t hip:gfx942 -o x.tfat
expect_true "no archive was written for the refused target" test ! -e x.tfat
# A clang that fails: its error text and exit code 3, nothing written.
TESSERAC_HIP_CLANG="$PWD/fake-clang" "$tesserac" build ew_add_f32.yaml -t hip:gfx90a -o y.tfat -q --no-cache \
  > out.txt 2> err.txt; rc=$?
expect_true "a failing clang is exit 3" test "$rc" = 3
expect_true "with clang's own error text" grep -q "kernel.hip:3:1: error: injected failure" err.txt
expect_true "and the step, kernel and target" grep -q "error: clang compilation failed for kernel 'ew_add_f32' (hip:gfx90a): clang failed to compile kernel 'ew_add_f32' for hip:gfx90a (exit 1):" err.txt
expect_true "no archive was written for the failed compile" test ! -e y.tfat
finish

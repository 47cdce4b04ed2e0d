#!/bin/bash
# What a CI job relies on to fail when something did not run (docs/cli.md):
# a build that selects no variant of a kernel is an error and writes nothing;
# test --archive fails on a kernel (or a named target's variant) the archive
# lacks unless --allow-missing; --require-verdict pass|emulated fails on any
# kernel x target below that verdict; --require-receipts=TARGETS requires
# receipts only for those targets' variants, and admit counts only the
# receipts it attached, once the archive is written.
# usage: ci_gates.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v2$' | grep -q 'toolchain: /' \
  || { echo "SKIP: no x86 toolchain (tesserac targets)"; exit 77; }
if [ -e /dev/accel/accel0 ]; then echo "SKIP: an NPU node is present; the receipts part needs xdna NOT_RUN"; exit 77; fi
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
absent() { [ ! -e "$1" ]; }

# A spec restricted to x86:v3, built for -t x86:v4 only: was exit 0, an
# empty verdict table and an archive whose kernel had no variant.
sed 's/^determinism: deterministic$/&\ntargets: [x86:v3]/' "$src/specs/ew_add_f32.yaml" > v3only.yaml
cp "$src/specs/rmsnorm_f32.yaml" rms.yaml
expect "a kernel that -t leaves without a target is an error" 1 \
  "tesserac: error: kernel 'ew_add_f32' has no target: -t x86:v4 names none of the targets its spec lists (x86:v3)" \
  "$tesserac" build v3only.yaml rms.yaml -t x86:v4 -o none.tfat
expect_true "... and nothing is written" absent none.tfat
expect "test warns about it and tests the rest" 0 \
  "tesserac: warning: kernel 'ew_add_f32' has no target: -t x86:v2 names none of the targets its spec lists (x86:v3); not tested" \
  "$tesserac" test v3only.yaml rms.yaml -t x86:v2
expect "test --require-verdict makes it an error" 1 \
  "tesserac: error: --require-verdict emulated: kernel 'ew_add_f32' has no target: -t x86:v2 names none of the targets its spec lists (x86:v3)
tesserac: error: --require-verdict emulated: 1 kernel-target(s) below PASS_EMULATED" \
  "$tesserac" test v3only.yaml rms.yaml -t x86:v2 --require-verdict emulated

# Every target planned without a toolchain (the default plan records them
# NOT_RUN) or unable to build the kernel: was exit 0 and a kernel with no variant.
expect "a kernel no planned target compiled is an error" 1 \
  "tesserac: error: kernel 'ew_add_f32' has no variant to ship: every target planned is 15 unavailable, 2 unsupported (see the table)
tesserac: error: 1 kernel(s) without a variant; nothing written" \
  env TESSERAC_CLANG=/nonexistent TESSERAC_CUDA_ROOT=/nonexistent TESSERAC_HIP_CLANG=/nonexistent \
  "$tesserac" build "$src/specs/ew_add_f32.yaml" -o novariant.tfat
expect_true "... and nothing is written" absent novariant.tfat

# test --archive on kernels the archive lacks: was NOT_RUN and exit 0.
expect "an archive of rmsnorm_f32 for x86:v2" 0 "" "$tesserac" build rms.yaml -t x86:v2 -o rms.tfat -q
cp "$src/specs/ew_add_f32.yaml" add.yaml
expect "a kernel missing from the archive fails the test" 1 \
  "tesserac: error: rms.tfat has no kernel 'ew_add_f32'
tesserac: error: 1 kernel(s) and 0 variant(s) missing from rms.tfat (--allow-missing checks only what it holds)" \
  "$tesserac" test add.yaml rms.yaml -t x86:v2 --archive rms.tfat
grep -q "^ew_add_f32  *x86:v2  *NOT_RUN .*archive has no kernel 'ew_add_f32'$" out.txt && ok "... and the table says why" \
  || { bad "table row for the missing kernel"; cat out.txt; }
expect "a -t target's variant missing from the archive fails the test" 1 \
  "tesserac: error: rms.tfat has no x86:v3 variant of kernel 'rmsnorm_f32'
tesserac: error: 0 kernel(s) and 1 variant(s) missing from rms.tfat (--allow-missing checks only what it holds)" \
  "$tesserac" test rms.yaml -t x86:v2,x86:v3 --archive rms.tfat
expect "--allow-missing checks what the archive holds" 0 "" \
  "$tesserac" test add.yaml rms.yaml -t x86:v2,x86:v3 --archive rms.tfat --allow-missing
expect "--allow-missing with --require-verdict: the missing rows are below it" 1 \
  "tesserac: error: --require-verdict emulated: rmsnorm_f32 on x86:v3 is NOT_RUN (archive has no x86:v3 variant)
tesserac: error: --require-verdict emulated: 1 kernel-target(s) below PASS_EMULATED" \
  "$tesserac" test rms.yaml -t x86:v2,x86:v3 --archive rms.tfat --allow-missing --require-verdict emulated
expect "--allow-missing needs --archive" 2 "tesserac: error: --allow-missing needs --archive" \
  "$tesserac" test rms.yaml -t x86:v2 --allow-missing

# --require-verdict on build: x86:v2 runs on any x86-64 host, so `pass` holds.
expect "build --require-verdict pass: every row a hardware PASS" 0 "" \
  "$tesserac" build rms.yaml -t x86:v2 -o pass.tfat -q --require-verdict pass
expect "--require-verdict needs the oracle" 2 "tesserac: error: --require-verdict needs the oracle; drop --no-oracle" \
  "$tesserac" build rms.yaml -t x86:v2 -o x.tfat --no-oracle --require-verdict pass
expect "--require-verdict takes pass or emulated" 2 \
  "tesserac: error: --require-verdict: invalid verdict 'hardware' (expected pass or emulated)
run 'tesserac --help' for usage" \
  "$tesserac" build rms.yaml -t x86:v2 -o x.tfat --require-verdict hardware

# The xdna manifest kernel beside an x86 variant: xdna is NOT_RUN here (no
# NPU), x86:v2 a hardware PASS, so a release can require x86 receipts only.
cp -r "$src/examples/xdna" x
sed -i 's/^targets: .*/targets: [x86:v2, xdna:npu1]/' x/vec_add_bf16.yaml
expect "an archive with x86:v2 and xdna:npu1 variants" 0 "" "$tesserac" build x/vec_add_bf16.yaml -o rel.tfat -q
expect "build --require-verdict pass names the xdna row" 1 \
  "tesserac: error: --require-verdict pass: vec_add_bf16 on xdna:npu1 is NOT_RUN (no NPU (/dev/accel/accel0 absent or not accessible))
tesserac: error: --require-verdict pass: 1 kernel-target(s) below PASS; nothing written" \
  "$tesserac" build x/vec_add_bf16.yaml -o gated.tfat -q --require-verdict pass
expect_true "... and nothing is written" absent gated.tfat
"$tesserac" qualify rel.tfat --receipts-out receipts > qualify.txt 2>&1
expect_true "qualify writes the x86:v2 receipt only" bash -c "ls receipts | grep -c receipt.toml | grep -qx 1"
# qualify's table is what ran here; the variants without a device are one
# line per reason, and counted once among the receipt lines.
expect_true "qualify groups what did not run by reason" python3 - qualify.txt <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert [l for l in lines if " NOT_RUN " in l] == [], lines
assert re.match(r"^vec_add_bf16 +x86:v2 +PASS ", lines[1]), lines
assert lines[2] == "not run: no NPU (/dev/accel/accel0 absent or not accessible): 1 variant(s) on xdna:npu1", lines
assert lines[3] == "1 passed, 0 failed, 1 not run", lines
assert re.match(r"^receipt for vec_add_bf16 on x86:v2: receipts/", lines[4]), lines
assert lines[5:] == ['no receipt for 1 variant(s) not run here (see "not run" above)'], lines
PY
expect "--require-receipts: every variant, so the xdna one fails (nothing attached is reported)" 1 \
  "tesserac: error: kernel 'vec_add_bf16' variant xdna:npu1 has no hardware receipt
tesserac: error: --require-receipts: 1 variant(s) without a hardware receipt; nothing written" \
  "$tesserac" admit rel.tfat --receipts receipts --require-receipts -o all.tfat
expect_true "... and nothing is written" absent all.tfat
expect "--require-receipts=x86: the x86 receipt ships beside the untested xdna variant" 0 \
  "tesserac: 1 receipt attached to shipped.tfat, 0 matched no variant" \
  "$tesserac" admit rel.tfat --receipts receipts --require-receipts=x86 -o shipped.tfat
expect "--require-receipts=x86:v2,xdna:npu1 names the xdna variant" 1 \
  "tesserac: error: kernel 'vec_add_bf16' variant xdna:npu1 has no hardware receipt
tesserac: error: --require-receipts: 1 variant(s) without a hardware receipt; nothing written" \
  "$tesserac" admit rel.tfat --receipts receipts --require-receipts=x86:v2,xdna:npu1 -o x.tfat
expect "admitting the same receipt again attaches nothing" 0 \
  "tesserac: 0 receipts attached to again.tfat, 1 already attached, 0 matched no variant" \
  "$tesserac" admit shipped.tfat --receipts receipts -o again.tfat
expect "an unknown --require-receipts target is a usage error" 2 \
  "tesserac: error: --require-receipts: 'x87' is neither a target kind (x86, cuda, hip, xdna) nor a kind:arch target" \
  "$tesserac" admit rel.tfat --receipts receipts --require-receipts=x87 -o x.tfat
expect "build --require-receipts=x86 with the receipt" 0 \
  "tesserac: 1 receipt attached to built.tfat, 0 matched no variant" \
  "$tesserac" build x/vec_add_bf16.yaml -o built.tfat -q --receipts receipts --require-receipts=x86
finish

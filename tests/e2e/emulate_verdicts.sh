#!/bin/bash
# tesserac test --emulate (issue 9 item 3): a cuda target without a device
# runs its emitted source in the CPU emulator. The verdict is PASS_EMULATED
# with the emulated reason, counted apart from hardware passes, in the table
# and the JSON; without --emulate the same target is NOT_RUN. The emulator
# needs clang only, so this runs without the CUDA toolkit too.
# usage: emulate_verdicts.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
cp "$src/specs/ew_silu_bf16.yaml" s.yaml

if "$tesserac" targets --json | python3 -c '
import json, sys
sys.exit(0 if any(t["target"] == "cuda:sm_80" and t["device_present"] for t in json.load(sys.stdin)["targets"]) else 1)'; then
  echo "skip: a CUDA device is present, so --emulate runs on hardware here"; exit 77
fi
command -v clang-14 > /dev/null || command -v clang > /dev/null || { echo "skip: no clang for the emulator"; exit 77; }

expect "test without --emulate" 0 "" "$tesserac" test s.yaml -t cuda:sm_80 --json plain.json
expect_true "no device without --emulate is NOT_RUN" \
  python3 -c 'import json,sys; r=json.load(open("plain.json"))["results"]; sys.exit(r[0]["verdict"] != "NOT_RUN")'
# Nothing will launch it, so no "[n/N] oracle" line announces it.
expect_true "no oracle progress line for a target that does not run" bash -c "! grep ' oracle ' err.all"

expect "test --emulate" 0 "" "$tesserac" test s.yaml -t cuda:sm_80,cuda:sm_90,x86:v2 --emulate --json emu.json
cp out.txt table.txt
expect_true "the closing line counts emulated passes apart" \
  grep -qx '1 passed, 2 passed emulated (not hardware), 0 failed, 0 not run' table.txt
expect_true "the table says PASS_EMULATED and why" \
  grep -q '^ew_silu_bf16 *cuda:sm_80 *PASS_EMULATED .*(emulated on the CPU: semantics, not hardware)' table.txt
# A rerun in the emulator runs the same source the same way: it cannot
# differ, so an emulated row claims no rerun check; a hardware row does.
expect_true "an emulated row shows rerun=n/a(emulated)" grep -q '^ew_silu_bf16 *cuda:sm_80 *PASS_EMULATED .* rerun=n/a(emulated) ' table.txt
expect_true "a hardware row shows rerun=bit-identical" grep -q '^ew_silu_bf16 *x86:v2 *PASS .* rerun=bit-identical ' table.txt
python3 - <<'PY' > json_check.txt 2>&1
import json
r = {x["target"]: x for x in json.load(open("emu.json"))["results"]}
assert r["x86:v2"]["verdict"] == "PASS" and r["x86:v2"]["reason"] == "", r["x86:v2"]
for t in ("cuda:sm_80", "cuda:sm_90"):
    assert r[t]["verdict"] == "PASS_EMULATED", r[t]
    assert r[t]["route"].startswith("CPU emulator: clang "), r[t]["route"]
    assert r[t]["trials"] == 6 and r[t]["determinism_checked"], r[t]
assert r["cuda:sm_80"]["reason"] == "emulated on the CPU: semantics, not hardware", r["cuda:sm_80"]["reason"]
assert r["cuda:sm_90"]["reason"] == ("emulated on the CPU: semantics, not hardware "
                                     "(source byte-identical to cuda:sm_80's, emulated once)"), r["cuda:sm_90"]["reason"]
print("json ok")
PY
expect_true "JSON: PASS for hardware, PASS_EMULATED with reason and route for cuda" grep -qx "json ok" json_check.txt \
  || cat json_check.txt

# An archive holds cubin/PTX, not the source the emulator runs.
"$tesserac" build s.yaml -t x86:v2 --no-oracle -o k.tfat > /dev/null
expect "--emulate with --archive is a usage error" 2 \
  "tesserac: error: --emulate runs the emitted CUDA source, which an archive does not hold; use it without --archive" \
  "$tesserac" test s.yaml -t x86:v2 --emulate --archive k.tfat
finish

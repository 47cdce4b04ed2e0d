#!/bin/bash
# End to end for the fat archive: build every shipped spec for every x86 tier
# into one .tfat, run the oracle on every variant through the runtime stub
# (not the compiler's runner), then verify, corrupt, inspect, merge, embed.
# usage: archive_cli.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
check() {  # check NAME COMMAND...: the command must succeed
  local name=$1; shift
  if "$@" > "$work/out.txt" 2>&1; then pass=$((pass+1)); echo "ok   $name"
  else fail=$((fail+1)); echo "FAIL $name"; cat "$work/out.txt"; fi
}
expect_exit() {  # expect_exit NAME CODE PATTERN COMMAND...: exit CODE and stderr matching PATTERN
  local name=$1 code=$2 pattern=$3; shift 3
  "$@" > "$work/out.txt" 2> "$work/err.txt"; local rc=$?
  if [ "$rc" = "$code" ] && grep -q -- "$pattern" "$work/err.txt"; then pass=$((pass+1)); echo "ok   $name"
  else fail=$((fail+1)); echo "FAIL $name: exit $rc (want $code)"; cat "$work/err.txt"; fi
}
cd "$src"
tiers=x86:v2,x86:v3,x86:v4

check "build archive of all specs" "$tesserac" build specs/ -t $tiers -o "$work/all.tfat"
check "verify" "$tesserac" verify "$work/all.tfat"
check "oracle through the stub" bash -c "'$tesserac' test specs/ -t $tiers --archive '$work/all.tfat' --json '$work/stub.json' > '$work/stub.txt'"
check "stub verdicts all PASS or NOT_RUN for a missing tier" python3 - "$work/stub.json" "$src/specs" <<'PY'
import json, os, sys
rows = json.load(open(sys.argv[1]))["results"]
n = len([f for f in os.listdir(sys.argv[2]) if f.endswith(".yaml")])
assert len(rows) == 3 * n, len(rows)
assert all(r["verdict"] == "PASS" or (r["verdict"] == "NOT_RUN" and "lacks" in r["reason"]) for r in rows), \
    [r for r in rows if r["verdict"] != "PASS"]
assert any(r["verdict"] == "PASS" for r in rows)
assert {r["route"] for r in rows if r["verdict"] == "PASS"} == {"libtesserart memfd+dlopen"}, rows
PY
check "inspect --json lists every kernel with 3 variants and verdicts" python3 - "$tesserac" "$work/all.tfat" <<'PY'
import json, os, subprocess, sys
j = json.loads(subprocess.check_output([sys.argv[1], "inspect", "--json", sys.argv[2]]))
assert len(j["kernels"]) == len([f for f in os.listdir("specs") if f.endswith(".yaml")]), len(j["kernels"])
for k in j["kernels"]:
    assert [v["target"] for v in k["variants"]] == ["x86:v2", "x86:v3", "x86:v4"], k["variants"]
    assert {v["verdict"] for v in k["verdicts"]} <= {"PASS", "NOT_RUN"}
    assert all(v["offset"] % 4096 == 0 for v in k["variants"])
PY
check "inspect text" "$tesserac" inspect "$work/all.tfat"

# Corruption: flip one byte in the header, in the index and in the last blob.
size=$(stat -c %s "$work/all.tfat")
for offset in 9 200 $((size - 100)); do
  cp "$work/all.tfat" "$work/bad.tfat"
  # XOR with 0xff, so the byte changes whatever it held.
  python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1)[0]; f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0xff]))' \
    "$work/bad.tfat" $offset
  check "the byte at $offset was flipped" bash -c "! cmp -s '$work/all.tfat' '$work/bad.tfat'"
  expect_exit "verify detects a flipped byte at $offset" 1 "error:" "$tesserac" verify "$work/bad.tfat"
done
head -c 1000 "$work/all.tfat" > "$work/short.tfat"
expect_exit "verify detects truncation" 1 "error:" "$tesserac" verify "$work/short.tfat"
expect_exit "inspect refuses a truncated archive" 1 "error:" "$tesserac" inspect "$work/short.tfat"

# A failing oracle writes nothing at the output path. A zero budget on an f32
# GEMM fails honestly: f32 accumulation differs from the double reference.
sed -e 's/kernel: gemm_f32/kernel: gemm_zero_budget/' -e 's/{kind: reference_exact}/{kind: tolerance_bounded, atol: 0, rtol: 0}/' \
  specs/gemm_f32.yaml > "$work/zero_budget.yaml"
expect_exit "oracle FAIL fails the build" 1 "oracle FAIL for gemm_zero_budget" "$tesserac" build "$work/zero_budget.yaml" -t x86:v3 -o "$work/failed.tfat"
[ ! -e "$work/failed.tfat" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL a failed build left an archive"; }
ls -a "$work" | grep -q '\.tmp-' && { fail=$((fail+1)); echo "FAIL temporary file left behind"; } || pass=$((pass+1))
check "build of two specs" "$tesserac" build specs/gemm_f32.yaml -t x86:v3 -o "$work/gemm.tfat"
check "build of another spec" "$tesserac" build specs/rmsnorm_bf16.yaml -t x86:v3 -o "$work/rms.tfat"
check "merge" "$tesserac" merge "$work/gemm.tfat" "$work/rms.tfat" -o "$work/merged.tfat"
check "merged archive holds both" bash -c "'$tesserac' inspect --json '$work/merged.tfat' | python3 -c 'import json,sys; assert [k[\"name\"] for k in json.load(sys.stdin)[\"kernels\"]] == [\"gemm_f32\", \"rmsnorm_bf16\"]'"
check "merge is idempotent on identical entries" "$tesserac" merge "$work/gemm.tfat" "$work/merged.tfat" -o "$work/merged2.tfat"
check "build gemm without oracle" "$tesserac" build specs/gemm_f32.yaml -t x86:v3 --no-oracle -o "$work/gemm_noorc.tfat"
# A hardware PASS supersedes NOT_RUN (the conflicts: tests/e2e/merge_verdicts.sh).
check "merge: PASS supersedes NOT_RUN" "$tesserac" merge "$work/gemm_noorc.tfat" "$work/gemm.tfat" -o "$work/superseded.tfat"
check "the merged verdict is PASS" bash -c "'$tesserac' inspect --json '$work/superseded.tfat' | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"kernels\"][0][\"verdicts\"][0][\"verdict\"] == \"PASS\"'"

check "embed as C" "$tesserac" embed "$work/gemm.tfat" -o "$work/gemm_blob.c" --symbol gemm_archive
check "embedded C compiles" cc -std=c11 -c "$work/gemm_blob.c" -o "$work/gemm_blob_from_c.o"
check "embed as object" "$tesserac" embed "$work/gemm.tfat" -o "$work/gemm_blob.o"
check "object defines the symbols" bash -c "nm '$work/gemm_blob.o' | grep -q ' R tesserac_archive$' && nm '$work/gemm_blob.o' | grep -q ' R tesserac_archive_size$'"
expect_exit "embed refuses a corrupt archive" 1 "error:" "$tesserac" embed "$work/bad.tfat" -o "$work/x.c"
expect_exit "embed refuses other suffixes" 2 "must end in .c or .o" "$tesserac" embed "$work/gemm.tfat" -o "$work/x.txt"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

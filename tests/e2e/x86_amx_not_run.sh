#!/bin/bash
# End to end: `tesserac test specs/gemm_bias_gelu_bf16.yaml -t x86:v4+amx`.
# On a CPU with AVX-512 but no AMX (the CI machines) the verdict is NOT_RUN
# and the reason names the missing features, exactly; on a CPU with AMX it
# is a hardware PASS through libtesserart. Exit 77 (skip) only where the CPU
# lacks AVX-512 itself, where the reason would list those features too.
# usage: x86_amx_not_run.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
for f in avx512f avx512bw avx512cd avx512dq avx512vl; do
  case "$flags" in *" $f "*) ;; *) echo "SKIP: this CPU lacks $f (x86-64-v4)"; exit 77 ;; esac
done
"$tesserac" test "$src/specs/gemm_bias_gelu_bf16.yaml" -t x86:v4+amx --json "$work/v.json" > "$work/table.txt" 2>&1
rc=$?
cat "$work/table.txt"
[ "$rc" = 0 ] || { echo "FAIL: tesserac test exited $rc"; exit 1; }
case "$flags" in
  *" amx_tile "*" amx_bf16 "* | *" amx_bf16 "*" amx_tile "*) want_verdict=PASS; want_reason="" ;;
  *) want_verdict=NOT_RUN; want_reason="$model lacks x86-64-v4+amx features: amx-tile amx-bf16 xsave-amx" ;;
esac
python3 - "$work/v.json" "$want_verdict" "$want_reason" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert len(results) == 1, results
r = results[0]
assert (r["kernel"], r["target"]) == ("gemm_bias_gelu_bf16", "x86:v4+amx"), r
assert r["verdict"] == sys.argv[2], r
if r["verdict"] == "NOT_RUN":
    assert r["reason"] == sys.argv[3], (r["reason"], sys.argv[3])
else:
    assert r["route"] == "libtesserart memfd+dlopen", r
print(f"ok: x86:v4+amx {r['verdict']} {r.get('reason', '')}")
PY

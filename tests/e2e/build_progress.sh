#!/bin/bash
# What build and test print while they run (issue 15 item 3): plain
# "[n/N] compile|oracle TARGET KERNEL" lines on stderr when stderr is not a
# terminal; one line rewritten in place (\r, erase to end of line) on a
# terminal, cleared at the end; -q prints nothing but errors; -v prints every
# toolchain command and the cache's counts.
# usage: build_progress.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v2$' | grep -q 'toolchain: /' \
  || { echo "SKIP: no x86 toolchain (tesserac targets)"; exit 77; }
. "$src/tests/e2e/lib/checks.bash"   # cd's into a scratch directory
a=$src/specs/ew_add_f32.yaml; r=$src/specs/rmsnorm_f32.yaml

"$tesserac" build "$a" "$r" -t x86:v2,x86:v3 --no-cache -o a.tfat > out.txt 2> err.txt; rc=$?
want='[1/4] compile x86:v2 ew_add_f32
[2/4] compile x86:v3 ew_add_f32
[3/4] compile x86:v2 rmsnorm_f32
[4/4] compile x86:v3 rmsnorm_f32
[1/4] oracle x86:v2 ew_add_f32
[2/4] oracle x86:v3 ew_add_f32
[3/4] oracle x86:v2 rmsnorm_f32
[4/4] oracle x86:v3 rmsnorm_f32'
[ $rc = 0 ] && [ "$(cat err.txt)" = "$want" ] && ok "not a terminal: one plain line per step, -j1 order" ||
  { bad "plain progress (exit $rc)"; diff <(echo "$want") err.txt; }
grep -q "^4 passed, 0 failed, 0 not run$" out.txt && ok "the verdict table stays on stdout" || bad "stdout"

"$tesserac" build "$a" "$r" -t x86:v2,x86:v3 --no-cache -j3 -o b.tfat > /dev/null 2> err3.txt
[ "$(grep -c '^\[[1-4]/4\] compile ' err3.txt)" = 4 ] && [ "$(grep '^\[[1-4]/4\] oracle ' err3.txt)" = "$(grep oracle err.txt)" ] &&
  ok "-j3: four compile lines, oracle lines in job order" || { bad "-j3 progress"; cat err3.txt; }

# An oracle line only for a job whose oracle launches: x86:v4+amx is NOT_RUN
# at once on a CPU without AMX, so it gets none (and is not counted in N).
if "$tesserac" targets 2> /dev/null | grep -A2 '^x86:v4+amx$' | grep -q 'device:    present'; then
  want='[1/2] oracle x86:v2 ew_add_f32
[2/2] oracle x86:v4+amx ew_add_f32'
else
  want='[1/1] oracle x86:v2 ew_add_f32'
fi
"$tesserac" test "$a" -t x86:v2,x86:v4+amx --no-cache > out.txt 2> err.txt
[ "$(grep ' oracle ' err.txt)" = "$want" ] && ok "oracle lines only for the jobs that launch" ||
  { bad "oracle lines for a target with no device"; cat err.txt; }

"$tesserac" build "$a" -t x86:v2 --no-cache --no-oracle -o c.tfat > out.txt 2> err.txt
[ "$(cat err.txt)" = "[1/1] compile x86:v2 ew_add_f32" ] && ok "--no-oracle: no oracle steps" || { bad "--no-oracle progress"; cat err.txt; }

expect "-q: nothing on stdout or stderr" 0 "" "$tesserac" build "$a" -t x86:v2 --no-cache -q -o d.tfat
[ ! -s out.txt ] && [ ! -s err.all ] && ok "... not even progress lines" || bad "-q printed something"
# An oracle FAIL (an f32 GEMM held to a zero budget) is still reported under -q.
sed -e 's/kernel: gemm_f32/kernel: gemm_zero_budget/' -e 's/{kind: reference_exact}/{kind: tolerance_bounded, atol: 0, rtol: 0}/' \
  "$src/specs/gemm_f32.yaml" > zero.yaml
expect "-q still prints errors" 1 "tesserac: error: oracle FAIL for gemm_zero_budget on x86:v2; nothing written" \
  "$tesserac" build zero.yaml -t x86:v2 --no-cache -q -o e.tfat
[ ! -s out.txt ] && ok "... and nothing on stdout" || bad "-q printed the table"
"$tesserac" build "$a" -t x86:v2 --no-cache -v -o g.tfat > out.txt 2> err.txt
grep -q "^tesserac: run: .*clang.* -march=x86-64-v2 " err.txt && ok "-v: the clang command line" || { bad "-v command"; cat err.txt; }
"$tesserac" build "$a" -t x86:v2 --cache-dir cache -o h.tfat > /dev/null 2>&1
"$tesserac" build "$a" -t x86:v2 --cache-dir cache -v -o h.tfat > out.txt 2> err.txt
grep -q "^tesserac: compile cache hit: x86:v2 ew_add_f32 ([0-9a-f]\{16\})$" err.txt && ok "-v: cache hits named" || { bad "-v cache hit"; cat err.txt; }
grep -q "^tesserac: compile cache cache: 2 hits, 0 misses, 0 stored, 0 corrupt entries dropped, 0 evicted$" err.txt &&
  ok "-v: the cache's counts" || { bad "-v cache counts"; cat err.txt; }

# A terminal: script(1) gives the command a pseudo-terminal.
if command -v script > /dev/null; then
  # stderr on the pseudo-terminal, stdout (the table) to a file; script's own
  # stdout is what the terminal showed.
  TERM=dumb script -qec "'$tesserac' build '$a' '$r' -t x86:v2 --no-cache -o t.tfat > /dev/null" /dev/null > typescript
  python3 - << 'EOF' && ok "terminal: one line rewritten in place, cleared at the end" || bad "terminal progress"
import re, sys
t = open("typescript", "rb").read().decode("utf-8", "replace")
steps = re.findall(r"\r(\[\d+/\d+\] [a-z]+ [^\r\n\x1b]+)\x1b\[K", t)
want = ["[1/2] compile x86:v2 ew_add_f32", "[2/2] compile x86:v2 rmsnorm_f32",
        "[1/2] oracle x86:v2 ew_add_f32", "[2/2] oracle x86:v2 rmsnorm_f32"]
ok = steps == want and t.endswith("\r\x1b[K") and "\n" not in t
if not ok:
    print("     got steps:", steps, "ends:", repr(t[-20:]))
sys.exit(0 if ok else 1)
EOF
else
  echo "     (script(1) missing: the terminal case is not checked here)"
fi
finish

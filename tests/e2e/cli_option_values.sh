#!/bin/bash
# Option values, exactly: an option takes one value per occurrence (-t used to
# swallow the spec that followed it), numbers are strict (--seed 2^64 and -1
# became 2^64-1), and no value may be empty (-t '' meant every target, -o ''
# wrote nothing and exited 0). Each case checks the exit code and the whole
# stderr.
# usage: cli_option_values.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
. "$src/tests/e2e/lib/expect_exact.sh"
cd "$src"
spec=specs/ew_add_f32.yaml
usage="run 'tesserac --help' for usage"
"$tesserac" build $spec -t x86:v2 --no-oracle -o "$work/a.tfat" > /dev/null || { echo "FAIL reference build"; exit 1; }

# --- -t takes one value per occurrence ---------------------------------------
expect_exact "-t before the spec does not swallow it" 0 "" \
  "$tesserac" build -t x86:v3 $spec -o "$work/t1.tfat" --no-oracle
expect_true "... and built that target" grep -q "^ew_add_f32  x86:v3  NOT_RUN" "$work/out"
expect_exact "-t repeated" 0 "" "$tesserac" build -t x86:v2 -t x86:v3 $spec -o "$work/t2.tfat" --no-oracle
expect_true "... builds both" test "$(grep -c '^ew_add_f32  x86:v[23] ' "$work/out")" = 2
expect_exact "-t comma-separated" 0 "" "$tesserac" build $spec -t x86:v2,x86:v3 -o "$work/t3.tfat" --no-oracle
expect_true "... gives the same archive" cmp -s "$work/t2.tfat" "$work/t3.tfat"
expect_exact "a second word after -t is a spec path, not a target" 1 "x86:v4: error: no such file or directory" \
  "$tesserac" build -t x86:v3 x86:v4 $spec -o "$work/t4.tfat"

# --- empty target names ------------------------------------------------------
expect_exact "-t ''" 2 "tesserac: error: --target: empty value
$usage" "$tesserac" test $spec -t ''
expect_exact "-t with a trailing comma" 2 "tesserac: error: empty target name in target list 'x86:v2,'" \
  "$tesserac" test $spec -t x86:v2,
expect_exact "-t with an empty item" 2 "tesserac: error: empty target name in target list 'x86:v2,,x86:v3'" \
  "$tesserac" test $spec -t x86:v2,,x86:v3
expect_exact "-t with a leading comma" 2 "tesserac: error: empty target name in target list ',x86:v2'" \
  "$tesserac" build $spec -t ,x86:v2 -o "$work/e.tfat"
expect_exact "emit -t ''" 2 "tesserac: error: --target: empty value
$usage" "$tesserac" emit $spec -t ''
expect_exact "emit -t ','" 2 "tesserac: error: empty target name in target list ','" "$tesserac" emit $spec -t ,

# --- --seed: decimal 0..2^64-1, nothing else ---------------------------------
for bad in 18446744073709551616 -1 0x10 +1 1e3 " 7" 99999999999999999999999; do
  expect_exact "--seed '$bad'" 2 "tesserac: error: --seed: invalid seed '$bad' (expected a decimal integer from 0 to 18446744073709551615)
$usage" "$tesserac" test $spec -t x86:v2 --seed "$bad"
done
expect_exact "--seed ''" 2 "tesserac: error: --seed: empty value
$usage" "$tesserac" build $spec -t x86:v2 -o "$work/s.tfat" --seed ''
expect_exact "--seed 2^64-1" 0 "" "$tesserac" test $spec -t x86:v2 --seed 18446744073709551615 --json "$work/seed.json"
expect_true "... is the seed used" grep -q '"seed": 18446744073709551615,' "$work/seed.json"
expect_exact "--seed=0" 0 "" "$tesserac" test $spec -t x86:v2 --seed=0 --json "$work/seed0.json"
expect_true "... is the seed used" grep -q '"seed": 0,' "$work/seed0.json"

# --- no option or positional value may be empty ------------------------------
empty() {  # empty NAME COMMAND...: usage error naming the option
  local name=$1; shift
  expect_exact "empty $name: ${*:2}" 2 "tesserac: error: $name: empty value
$usage" "$tesserac" "$@"
}
empty spec emit '' -t x86:v2
empty --output emit $spec -t x86:v2 -o ''
empty specs test ''
empty --json test $spec -t x86:v2 --json ''
empty --archive test $spec -t x86:v2 --archive ''
empty specs build '' -o "$work/x.tfat"
empty --output build $spec -t x86:v2 -o ''
empty --out-dir build $spec -t x86:v2 --out-dir ''
empty --depfile build $spec -t x86:v2 -o "$work/x.tfat" --depfile ''
empty archive inspect ''
empty archive verify ''
empty archives merge '' -o "$work/x.tfat"
empty --output merge "$work/a.tfat" -o ''
empty archive embed '' -o "$work/x.c"
empty --output embed "$work/a.tfat" -o ''
empty --symbol embed "$work/a.tfat" -o "$work/x.c" --symbol ''
expect_true "none of them wrote anything" test ! -e "$work/x.tfat" -a ! -e "$work/x.c"

# --- embed names a bad archive once ------------------------------------------
printf 'not an archive' > "$work/bad.tfat"
expect_exact "embed of a corrupt archive names it once" 1 \
  "tesserac: error: $work/bad.tfat: archive truncated: 14 bytes, header needs 128" \
  "$tesserac" embed "$work/bad.tfat" -o "$work/bad.c"

# --- TESSERAC_TOOL_TIMEOUT: whole seconds 0..604800 --------------------------
for bad in abc -1 1.5 604801 18446744073709551616 ""; do
  expect_exact "TESSERAC_TOOL_TIMEOUT='$bad'" 2 \
    "tesserac: error: invalid TESSERAC_TOOL_TIMEOUT '$bad' (expected whole seconds from 0 to 604800; 0 means no limit)" \
    env TESSERAC_TOOL_TIMEOUT="$bad" "$tesserac" targets
done
expect_exact "TESSERAC_TOOL_TIMEOUT=0 (no limit)" 0 "" env TESSERAC_TOOL_TIMEOUT=0 "$tesserac" emit $spec -t x86:v2

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

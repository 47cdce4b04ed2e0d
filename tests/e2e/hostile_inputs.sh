#!/bin/bash
# Inputs that used to hang, exhaust memory or crash (issue 7, items 9, 10,
# 12): FIFOs and devices as specs or archives, an oversized spec, a spec
# directory with symlink loops, too many spec files, thousands of errors on
# one line. Each gets an exact `PATH: error: ...` and exit 1, quickly.
# Limits: docs/limits.md.
# usage: hostile_inputs.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
cp "$src/specs/ew_add_f32.yaml" s.yaml

# Special files are refused before they are read: a FIFO would block forever,
# /dev/zero would grow until bad_alloc.
mkfifo fifo.yaml
expect "a FIFO as a spec" 1 "fifo.yaml: error: not a regular file (a FIFO)" "$tesserac" test fifo.yaml -t x86:v2
expect "/dev/zero as a spec" 1 "/dev/zero: error: not a regular file (a character device)" \
  "$tesserac" test /dev/zero -t x86:v2
expect "a FIFO as emit's spec" 1 "fifo.yaml: error: not a regular file (a FIFO)" "$tesserac" emit fifo.yaml -t x86:v2
expect "a FIFO as test --archive" 1 "tesserac: error: fifo.yaml: not a regular file (a FIFO)" \
  "$tesserac" test s.yaml -t x86:v2 --archive fifo.yaml
expect "a FIFO as inspect's archive" 1 "tesserac: error: fifo.yaml: not a regular file (a FIFO)" \
  "$tesserac" inspect fifo.yaml
for cmd in "verify fifo.yaml" "merge fifo.yaml -o m.tfat" "embed fifo.yaml -o m.c"; do
  timeout 20 "$tesserac" $cmd > out.txt 2> err.txt; rc=$?
  [ "$rc" = 1 ] && grep -qF "fifo.yaml: not a regular file (a FIFO)" err.txt && ok "a FIFO as $cmd" \
    || { bad "a FIFO as $cmd: exit $rc"; cat err.txt; }
done

# Size: a spec over 256 KiB is refused without being parsed.
{ cat s.yaml; printf '# %0262100d\n' 0; } > big.yaml
size=$(stat -c %s big.yaml)
expect "an oversized spec" 1 "big.yaml: error: spec file is $size bytes, over the limit of 262144 bytes" \
  "$tesserac" test big.yaml -t x86:v2

# Thousands of errors on one line: 20 shown, each with a window of the line,
# then one stop line; the run is fast and its stderr small.
python3 - <<'EOF'
base = open("s.yaml").read()
# One flow-style line: 1,000 unknown ops and 1,000 unknown keys, all within the YAML limits.
flow = ", ".join(line for line in base.splitlines() if line and not line.startswith("#") and not line.startswith("ops"))
keys = ", ".join("k%d: 1" % i for i in range(1000))
open("many.yaml", "w").write("{" + flow + ", ops: [" + ", ".join(["zz"] * 1000) + "], " + keys + "}\n")
open("errs.yaml", "w").write(base.replace("ops: [add]", "ops: [" + ", ".join(["zz"] * 200) + "]"))
EOF
start=$(date +%s)
timeout 20 "$tesserac" test errs.yaml -t x86:v2 --error-limit 0 > out.txt 2> err.txt; rc=$?
[ "$rc" = 1 ] && [ "$(grep -c "error: unknown op 'zz'" err.txt)" = 200 ] && ! grep -q "too many errors" err.txt \
  && ok "--error-limit 0 shows all 200 errors" || bad "--error-limit 0 (exit $rc)"
timeout 20 "$tesserac" test errs.yaml -t x86:v2 --error-limit 3 > out.txt 2> err.txt; rc=$?
[ "$rc" = 1 ] && [ "$(grep -c "error: unknown op 'zz'" err.txt)" = 3 ] \
  && [ "$(tail -1 err.txt)" = "errs.yaml: error: too many errors emitted, stopping now (--error-limit 0 shows all)" ] \
  && ok "--error-limit 3 shows 3 errors and the stop line" || { bad "--error-limit 3 (exit $rc)"; cat err.txt; }
timeout 20 "$tesserac" emit errs.yaml -t x86:v2 --error-limit 1 > out.txt 2> err.txt; rc=$?
[ "$rc" = 1 ] && [ "$(grep -c "error: unknown op 'zz'" err.txt)" = 1 ] && ok "emit --error-limit 1" || bad "emit --error-limit"
timeout 60 "$tesserac" build many.yaml -t x86:v2 -o k.tfat > out.txt 2> err.txt; rc=$?
bytes=$(stat -c %s err.txt)
[ "$rc" = 1 ] && [ "$(grep -c "^many.yaml:1:[0-9]*: error: " err.txt)" = 20 ] && [ "$bytes" -lt 20000 ] \
  && [ "$(tail -1 err.txt)" = "many.yaml: error: too many errors emitted, stopping now (--error-limit 0 shows all)" ] \
  && ok "2,000 errors on one line: 20 shown, $bytes bytes of stderr" || { bad "2,000 errors (exit $rc, $bytes bytes)"; head -c 2000 err.txt; }
timeout 60 "$tesserac" test many.yaml -t x86:v2 --error-limit 0 > out.txt 2> err.txt; rc=$?
[ "$rc" = 1 ] && [ "$(grep -c "^many.yaml:1:[0-9]*: error: " err.txt)" = 2000 ] \
  && ok "--error-limit 0 shows all 2,000" || bad "--error-limit 0 on 2,000 errors (exit $rc)"
[ $(( $(date +%s) - start )) -lt 30 ] && ok "error runs were fast" || bad "error runs took over 30 s"
expect "--error-limit -1 is a usage error" 2 \
  "$(printf '%s\n%s' "tesserac: error: --error-limit: Value -1 not in range 0 to 1000000" "run 'tesserac --help' for usage")" \
  "$tesserac" test s.yaml -t x86:v2 --error-limit -1

# Spec directories: every *.yaml entry that cannot be read is a diagnostic
# (a symlink loop used to be "internal error", exit 3; a FIFO blocked).
mkdir specs; cp s.yaml specs/good.yaml
ln -s loop_b.yaml specs/loop_a.yaml; ln -s loop_a.yaml specs/loop_b.yaml
ln -s nowhere.yaml specs/dangling.yaml
mkfifo specs/pipe.yml
mkdir specs/subdir.yaml
expect "a spec directory with loops, a dangling link, a FIFO and a directory" 1 "$(cat <<'EOF'
specs/dangling.yaml: error: cannot read: no such file or directory
specs/loop_a.yaml: error: cannot read: too many levels of symbolic links
specs/loop_b.yaml: error: cannot read: too many levels of symbolic links
specs/pipe.yml: error: not a regular file (a FIFO)
specs/subdir.yaml: error: not a regular file (a directory)
EOF
)" "$tesserac" test specs -t x86:v2
ln -s self self
expect "a spec path that is a symlink loop" 1 "self: error: too many levels of symbolic links" \
  "$tesserac" test self -t x86:v2
expect "build --depfile with a looping spec directory" 1 \
  "specs/dangling.yaml: error: cannot read: no such file or directory
specs/loop_a.yaml: error: cannot read: too many levels of symbolic links
specs/loop_b.yaml: error: cannot read: too many levels of symbolic links
specs/pipe.yml: error: not a regular file (a FIFO)
specs/subdir.yaml: error: not a regular file (a directory)" \
  "$tesserac" build specs -t x86:v2 -o k.tfat --depfile k.d

# More spec files than one run takes.
mkdir lots; (cd lots && seq -f 's%05g.yaml' 1 10001 | xargs touch)
expect "10,001 spec files" 1 "lots: error: more than 10000 spec files in one run (the limit; split the run)" \
  "$tesserac" test lots -t x86:v2
finish

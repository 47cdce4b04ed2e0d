# Sourced by e2e scripts (not a test itself: only tests/e2e/*.sh are run).
# A scratch directory (the current directory from here on, removed at
# exit), counters, an exact stderr-and-exit-code check, and the verdict.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0; fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; }

# expect NAME CODE EXACT_STDERR COMMAND...: the exit code and the whole of
# stderr must match, less build/test progress lines ("[n/N] compile|oracle
# ...": tests/e2e/build_progress.sh checks them); a run may take 20 s at
# most (a hang fails, not blocks).
expect() {
  local name=$1 code=$2 text=$3; shift 3
  timeout 20 "$@" > out.txt 2> err.all; local rc=$?
  grep -Ev '^\[[0-9]+/[0-9]+\] (compile|oracle) ' err.all > err.txt
  if [ "$rc" = "$code" ] && [ "$(cat err.txt)" = "$text" ]; then ok "$name"
  else bad "$name: exit $rc (want $code), stderr:"; head -c 2000 err.txt; echo "--- wanted:"; echo "$text"; fi
}

finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; }

# Sourced by e2e scripts (not a test itself: CMake globs only e2e/*.sh).
# expect_exact NAME CODE STDERR COMMAND...: the command must exit with CODE and
# print exactly STDERR on stderr (after normalize_err, if the script defines
# it; build/test progress lines "[n/N] compile|oracle ..." are dropped
# first: tests/e2e/build_progress.sh checks them); its stdout is left in $work/out. Every command runs under timeout(1),
# so a hang fails the test instead of stalling CI. Needs $work, pass, fail.
expect_exact() {
  local name=$1 code=$2 want=$3; shift 3
  timeout -k 5 "${E2E_COMMAND_TIMEOUT:-120}" "$@" > "$work/out" 2> "$work/err"; local rc=$?
  local got
  got=$(grep -Ev '^\[[0-9]+/[0-9]+\] (compile|oracle) ' "$work/err" |
        if declare -F normalize_err > /dev/null; then normalize_err; else cat; fi)
  if [ "$rc" = "$code" ] && [ "$got" = "$want" ]; then pass=$((pass+1)); echo "ok   $name"
  else
    fail=$((fail+1)); echo "FAIL $name: exit $rc (want $code)"
    diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/     /'
  fi
}
# expect_true NAME COMMAND...: a plain assertion on what a command left behind.
expect_true() {
  local name=$1; shift
  if "$@"; then pass=$((pass+1)); echo "ok   $name"; else fail=$((fail+1)); echo "FAIL $name"; fi
}

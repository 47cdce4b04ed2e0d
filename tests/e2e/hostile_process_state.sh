#!/bin/bash
# Every subcommand in a hostile process state, each under a timeout so a hang
# fails the test: SIGCHLD ignored by the parent (waitpid spun on ECHILD
# forever, even in `targets`), stdout closed (toolchain detection lost its
# pipe, and output went nowhere with exit 0), stdout on a full disk or on a
# pipe nobody reads, and toolchain commands that hang (TESSERAC_TOOL_TIMEOUT).
# usage: hostile_process_state.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
. "$src/tests/e2e/lib/expect_exact.sh"
cd "$src"
spec=specs/ew_add_f32.yaml
if ! env --ignore-signal=CHLD true 2> /dev/null; then echo "skip: env(1) has no --ignore-signal (coreutils < 8.31)"; exit 77; fi
if ! "$tesserac" targets | grep -A1 '^x86:v2$' | grep -q 'toolchain: /'; then echo "skip: no clang for x86:v2"; exit 77; fi

sigchld_ignored=(env --ignore-signal=CHLD)
stdout_closed=(sh -c 'exec "$0" "$@" >&-')
same_stdout() { cmp -s "$work/out" "$1"; }
verifies() { "$tesserac" verify "$1" > /dev/null; }
passed_json() { grep -q '"verdict": "PASS"' "$1"; }

# The harness itself, so that the checks below cannot pass vacuously.
expect_true "harness: SIGCHLD is ignored in the command" \
  sh -c '"$@" grep -q "^SigIgn:.*[13579bdf]....$" /proc/self/status' sh "${sigchld_ignored[@]}"
expect_true "harness: stdout is closed in the command" sh -c '! "$@" test -e /proc/self/fd/1' sh "${stdout_closed[@]}"

# What each command prints in a normal process, to compare with.
"$tesserac" build $spec -t x86:v2 -o "$work/ref.tfat" > /dev/null || { echo "FAIL reference build"; exit 1; }
"$tesserac" --version > "$work/ref.version"
"$tesserac" --help > "$work/ref.help"
"$tesserac" emit $spec -t x86:v2 > "$work/ref.c"
"$tesserac" inspect "$work/ref.tfat" > "$work/ref.inspect"
"$tesserac" targets > "$work/ref.targets"

# --- SIGCHLD ignored: every subcommand behaves as in a normal process ---------
expect_exact "SIGCHLD ignored: --version" 0 "" "${sigchld_ignored[@]}" "$tesserac" --version
expect_true "SIGCHLD ignored: --version output" same_stdout "$work/ref.version"
expect_exact "SIGCHLD ignored: --help" 0 "" "${sigchld_ignored[@]}" "$tesserac" --help
expect_true "SIGCHLD ignored: --help output" same_stdout "$work/ref.help"
expect_exact "SIGCHLD ignored: emit" 0 "" "${sigchld_ignored[@]}" "$tesserac" emit $spec -t x86:v2
expect_true "SIGCHLD ignored: emit output" same_stdout "$work/ref.c"
expect_exact "SIGCHLD ignored: test" 0 "" "${sigchld_ignored[@]}" "$tesserac" test $spec -t x86:v2 --json "$work/chld.json"
expect_true "SIGCHLD ignored: test compiled and PASSed" passed_json "$work/chld.json"
expect_exact "SIGCHLD ignored: build" 0 "" "${sigchld_ignored[@]}" "$tesserac" build $spec -t x86:v2 -o "$work/chld.tfat"
expect_true "SIGCHLD ignored: build wrote the same archive" cmp -s "$work/chld.tfat" "$work/ref.tfat"
expect_exact "SIGCHLD ignored: inspect" 0 "" "${sigchld_ignored[@]}" "$tesserac" inspect "$work/ref.tfat"
expect_true "SIGCHLD ignored: inspect output" same_stdout "$work/ref.inspect"
expect_exact "SIGCHLD ignored: verify" 0 "" "${sigchld_ignored[@]}" "$tesserac" verify "$work/ref.tfat"
expect_true "SIGCHLD ignored: verify output" grep -qx "$work/ref.tfat: ok" "$work/out"
expect_exact "SIGCHLD ignored: merge" 0 "" \
  "${sigchld_ignored[@]}" "$tesserac" merge "$work/ref.tfat" "$work/ref.tfat" -o "$work/chld-merged.tfat"
expect_true "SIGCHLD ignored: merge wrote an archive" verifies "$work/chld-merged.tfat"
expect_exact "SIGCHLD ignored: embed -o .o (runs cc)" 0 "" \
  "${sigchld_ignored[@]}" "$tesserac" embed "$work/ref.tfat" -o "$work/chld.o"
expect_true "SIGCHLD ignored: embed wrote the object" test -s "$work/chld.o"
expect_exact "SIGCHLD ignored: qualify" 0 "" \
  "${sigchld_ignored[@]}" "$tesserac" qualify "$work/ref.tfat" --receipts-out "$work/chld-receipts"
expect_true "SIGCHLD ignored: qualify wrote its receipt" test -s "$(ls "$work"/chld-receipts/*.receipt.toml)"
expect_exact "SIGCHLD ignored: admit" 0 "tesserac: 1 receipt attached to $work/chld-admitted.tfat, 0 matched no variant" \
  "${sigchld_ignored[@]}" "$tesserac" admit "$work/ref.tfat" --receipts "$work/chld-receipts" --require-receipts \
  -o "$work/chld-admitted.tfat"
expect_true "SIGCHLD ignored: admit wrote an archive" verifies "$work/chld-admitted.tfat"
expect_exact "SIGCHLD ignored: targets" 0 "" "${sigchld_ignored[@]}" "$tesserac" targets
expect_true "SIGCHLD ignored: targets found the same toolchains" same_stdout "$work/ref.targets"

# --- stdout closed: commands that print fail with exit 3 and say why; the rest
# --- work, and a compiler's output pipe is never confused with stdout --------
closed="tesserac: error: cannot write standard output: Bad file descriptor"
expect_exact "stdout closed: --version" 3 "$closed" "${stdout_closed[@]}" "$tesserac" --version
expect_exact "stdout closed: --help" 3 "$closed" "${stdout_closed[@]}" "$tesserac" --help
expect_exact "stdout closed: emit" 3 "$closed" "${stdout_closed[@]}" "$tesserac" emit $spec -t x86:v2
expect_exact "stdout closed: emit -o" 0 "" "${stdout_closed[@]}" "$tesserac" emit $spec -t x86:v2 -o "$work/closed.c"
expect_true "stdout closed: emit -o wrote the source" cmp -s "$work/closed.c" "$work/ref.c"
expect_exact "stdout closed: test" 3 "$closed" \
  "${stdout_closed[@]}" "$tesserac" test $spec -t x86:v2 --json "$work/closed.json"
expect_true "stdout closed: test still compiled and PASSed" passed_json "$work/closed.json"
expect_exact "stdout closed: build" 3 "$closed" "${stdout_closed[@]}" "$tesserac" build $spec -t x86:v2 -o "$work/closed.tfat"
expect_true "stdout closed: build compiled the same archive" cmp -s "$work/closed.tfat" "$work/ref.tfat"
expect_exact "stdout closed: inspect" 3 "$closed" "${stdout_closed[@]}" "$tesserac" inspect "$work/ref.tfat"
expect_exact "stdout closed: verify" 3 "$closed" "${stdout_closed[@]}" "$tesserac" verify "$work/ref.tfat"
expect_exact "stdout closed: merge" 0 "" \
  "${stdout_closed[@]}" "$tesserac" merge "$work/ref.tfat" "$work/ref.tfat" -o "$work/closed-merged.tfat"
expect_true "stdout closed: merge wrote an archive" verifies "$work/closed-merged.tfat"
expect_exact "stdout closed: embed -o .o (runs cc)" 0 "" \
  "${stdout_closed[@]}" "$tesserac" embed "$work/ref.tfat" -o "$work/closed.o"
expect_true "stdout closed: embed wrote the object" cmp -s "$work/closed.o" "$work/chld.o"
expect_exact "stdout closed: qualify" 3 "$closed" \
  "${stdout_closed[@]}" "$tesserac" qualify "$work/ref.tfat" --receipts-out "$work/closed-receipts"
expect_true "stdout closed: qualify still wrote its receipt" test -s "$(ls "$work"/closed-receipts/*.receipt.toml)"
expect_exact "stdout closed: admit" 0 "tesserac: 1 receipt attached to $work/closed-admitted.tfat, 0 matched no variant" \
  "${stdout_closed[@]}" "$tesserac" admit "$work/ref.tfat" --receipts "$work/chld-receipts" -o "$work/closed-admitted.tfat"
expect_true "stdout closed: admit wrote the same archive" cmp -s "$work/closed-admitted.tfat" "$work/chld-admitted.tfat"
expect_exact "stdout closed: targets" 3 "$closed" "${stdout_closed[@]}" "$tesserac" targets

# --- stdout that fails later: a full disk, a pipe with no reader --------------
expect_exact "stdout on a full disk" 3 "tesserac: error: cannot write standard output: No space left on device" \
  sh -c 'exec "$0" "$@" > /dev/full' "$tesserac" targets
mkfifo "$work/fifo"
exec 3<> "$work/fifo" 4> "$work/fifo" 3<&-   # fd 4: a pipe whose only reader is gone
expect_exact "EPIPE with SIGPIPE ignored is a write error" 3 "tesserac: error: cannot write standard output: Broken pipe" \
  sh -c 'exec "$0" "$@" >&4' env --ignore-signal=PIPE "$tesserac" targets
expect_exact "EPIPE with SIGPIPE at its default ends the process quietly (like cat)" 141 "" \
  sh -c 'exec "$0" "$@" >&4' env --default-signal=PIPE "$tesserac" targets
exec 4>&-

# --- toolchain commands that hang ---------------------------------------------
mkdir "$work/tmp"
cat > "$work/slow-clang" <<EOF
#!/bin/sh
if [ "\$1" = --version ]; then echo "slow clang 1.0"; exit 0; fi
sleep 60 & echo \$! > "$work/sleeper.pid"; wait
EOF
printf '#!/bin/sh\nsleep 60\n' > "$work/hang-clang"
chmod +x "$work/slow-clang" "$work/hang-clang"
normalize_err() { sed -E 's#(timed out after [0-9]+ s: [^ ]+) .*#\1 ...#'; }
start=$(date +%s)
expect_exact "a hanging compile times out (exit 3)" 3 \
  "tesserac: error: kernel 'ew_add_f32' ($spec) for x86:v2: toolchain command timed out after 1 s: $work/slow-clang ...
tesserac: error: build failed; nothing written" \
  env TESSERAC_TOOL_TIMEOUT=1 TESSERAC_CLANG="$work/slow-clang" TMPDIR="$work/tmp" \
  "$tesserac" build $spec -t x86:v2 -o "$work/slow.tfat"
expect_true "the timeout came promptly" test $(( $(date +%s) - start )) -lt 20
expect_true "a timed-out build wrote nothing" test ! -e "$work/slow.tfat"
sleeper_gone() {   # the compiler's own child died with it (its process group was killed)
  local pid; pid=$(cat "$work/sleeper.pid") || return 1
  for _ in $(seq 50); do
    state=$(sed -E 's/.*\) (.).*/\1/' "/proc/$pid/stat" 2> /dev/null) || return 0
    [ "$state" = Z ] && return 0; sleep 0.1
  done; return 1
}
expect_true "the timeout killed the compiler's children too" sleeper_gone
unset -f normalize_err
expect_exact "a hanging 'clang --version' makes the target unavailable (exit 3 when named with -t)" 3 \
  "tesserac: error: target unavailable: x86:v2: toolchain command timed out after 1 s: $work/hang-clang --version; nothing written" \
  env TESSERAC_TOOL_TIMEOUT=1 TESSERAC_CLANG="$work/hang-clang" "$tesserac" build $spec -t x86:v2 -o "$work/hang.tfat"
expect_exact "targets reports the hanging toolchain" 0 "" \
  env TESSERAC_TOOL_TIMEOUT=1 TESSERAC_CLANG="$work/hang-clang" "$tesserac" targets
expect_true "targets names the timeout" \
  grep -qxF "  toolchain: unavailable: toolchain command timed out after 1 s: $work/hang-clang --version" "$work/out"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

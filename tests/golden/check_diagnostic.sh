#!/bin/bash
# Golden diagnostic check (lit-style): runs `tesserac test CASE` from the
# case's directory and compares stderr with the case's `# EXPECT: ` lines
# exactly, and the exit code with `# EXPECT-EXIT: ` (default 1).
# usage: check_diagnostic.sh TESSERAC CASE   (CASE: a .yaml file or a directory)
set -u
tesserac=$1
case_path=$2
dir=$(dirname "$case_path")
name=$(basename "$case_path")
if [ -d "$case_path" ]; then files=$(ls "$case_path"/*.yaml | sort); else files=$case_path; fi
expected=$(cat $files | sed -n 's/^# EXPECT: \{0,1\}//p')
want_exit=$(cat $files | sed -n 's/^# EXPECT-EXIT: //p' | head -1)
want_exit=${want_exit:-1}
actual=$(cd "$dir" && "$tesserac" test "$name" -t x86:v2 2>&1 >/dev/null)
rc=$?
# Progress lines ("[n/N] compile|oracle ...", tests/e2e/build_progress.sh) are not diagnostics.
actual=$(printf '%s\n' "$actual" | grep -Ev '^\[[0-9]+/[0-9]+\] (compile|oracle) ')
# Rendered source lines include the EXPECT comments themselves only if a
# diagnostic points at them, which would be a harness bug: fail loudly.
if [ "$rc" != "$want_exit" ]; then
  echo "FAIL $name: exit code $rc, expected $want_exit"; echo "$actual"; exit 1
fi
if [ "$actual" != "$expected" ]; then
  echo "FAIL $name: diagnostics differ"
  diff <(echo "$expected") <(echo "$actual")
  exit 1
fi
echo "ok $name"

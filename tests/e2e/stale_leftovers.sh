#!/bin/bash
# Leftovers of a run killed with SIGKILL (issue 7, item 14): a temporary
# output `.NAME.tmp-PID-XXXXXX` and a scratch directory
# `$TMPDIR/tesserac-x86-PID-XXXXXX` whose process is gone and which nobody
# touched for 10 minutes are removed by the next run that writes NAME or
# makes a scratch directory; those of a live process, recent ones and
# look-alikes stay. Rule: docs/cli.md "Leftovers".
# usage: stale_leftovers.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
trap 'kill $live 2>/dev/null; rm -rf "$work"' EXIT
gone() { [ ! -e "$2" ] && ok "$1" || bad "$1: $2 is still there"; }
kept() { [ -e "$2" ] && ok "$1" || bad "$1: $2 was removed"; }
cp "$src/specs/ew_add_f32.yaml" s.yaml
mkdir tmp
sh -c 'exit 0' & dead=$!; wait $dead         # a process id that is no longer running
sleep 600 & live=$!
old='-20 minutes'

# A real kill -9 leftover: tesserac killed while its temporary file exists is
# simulated by the file it would leave (the name carries its pid).
touch -d "$old" ".k.tfat.tmp-$dead-a1B2c3" ".k.tfat.tmp-$live-a1B2c3" ".k.tfat.tmp-$dead-short" ".x.tfat.tmp-$dead-a1B2c3"
touch ".k.tfat.tmp-$dead-n3W4n3"
mkdir -p "tmp/tesserac-x86-$dead-Zz9Zz9/sub" "tmp/tesserac-x86-$live-Zz9Zz9"
touch "tmp/tesserac-x86-$dead-Zz9Zz9/sub/kernel.c"
touch -d "$old" "tmp/tesserac-x86-$dead-Zz9Zz9" "tmp/tesserac-x86-$live-Zz9Zz9"

TMPDIR="$work/tmp" "$tesserac" build s.yaml -t x86:v2 --no-oracle -o k.tfat > out.txt 2> err.txt \
  && ok "the build succeeds" || { bad "the build failed"; cat err.txt; }
gone "a dead process's old temporary output is removed" ".k.tfat.tmp-$dead-a1B2c3"
kept "a live process's temporary output is kept" ".k.tfat.tmp-$live-a1B2c3"
kept "a recent one is kept (another PID namespace may own it)" ".k.tfat.tmp-$dead-n3W4n3"
kept "a name that is not exactly ours is kept" ".k.tfat.tmp-$dead-short"
kept "another output's leftover waits for a run that writes it" ".x.tfat.tmp-$dead-a1B2c3"
gone "a dead process's old scratch directory is removed" "tmp/tesserac-x86-$dead-Zz9Zz9"
kept "a live process's scratch directory is kept" "tmp/tesserac-x86-$live-Zz9Zz9"
[ "$(ls tmp | wc -l)" = 1 ] && ok "the build's own scratch directory is gone" || { bad "scratch left:"; ls tmp; }
finish

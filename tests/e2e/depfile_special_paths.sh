#!/bin/bash
# Depfiles for paths with spaces, '#', '$' and ':' (issue 7, item 15), read
# by the real consumers: GNU Make and Ninja must both see the build as up to
# date after it ran and rebuild when the oddly named spec changes or its
# directory gains a spec. A path no depfile can hold (a newline, ';') is a
# usage error before anything is built.
# usage: depfile_special_paths.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
# Both consumers or none: a run that checked one would pass for both.
for tool in make ninja; do command -v $tool > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }; done
source "$src/tests/e2e/lib/checks.bash"
dir='my specs:v1 #2 $x'
spec='a b#c$d:e.yaml'
out='out put:1.tfat'
setup() {  # a fresh project in $work/$1
  mkdir -p "$work/$1/$dir"; cp "$src/specs/ew_add_f32.yaml" "$work/$1/$dir/$spec"
  # The build command, kept out of the Makefile and build.ninja so neither has to quote it.
  printf "#!/bin/sh\nexec '%s' build '%s' -t x86:v2 --no-oracle -o '%s' --depfile k.d > /dev/null\n" \
    "$tesserac" "$dir" "$out" > "$work/$1/build.sh"
  chmod +x "$work/$1/build.sh"
}
check() {  # check TOOL NAME rebuild|noop
  local log; log=$(cd "$work/$1" && $1 2>&1); local rc=$?
  local did=noop; echo "$log" | grep -q "build.sh" && did=rebuild
  [ $rc = 0 ] && [ "$did" = "$3" ] && ok "$1: $2" || { bad "$1: $2 (rc $rc, $did, wanted $3)"; echo "$log"; cat "$work/$1/k.d"; }
}
run_steps() {  # run_steps TOOL
  check "$1" "first build" rebuild
  check "$1" "then nothing to do" noop
  sleep 1.1; touch "$work/$1/$dir/$spec"
  check "$1" "touching '$spec' rebuilds" rebuild
  check "$1" "then nothing to do again" noop
  sleep 1.1; cp "$src/specs/softmax_f32.yaml" "$work/$1/$dir/"
  check "$1" "a new spec in '$dir' rebuilds" rebuild
  "$tesserac" inspect --json "$work/$1/$out" | grep -q '"name": "softmax_f32"' && ok "$1: the new spec is in the archive" \
    || bad "$1: the new spec is not in the archive"
}

setup make
printf 'all: out\\ put\\:1.tfat\nout\\ put\\:1.tfat:\n\t./build.sh\n-include k.d\n' > "$work/make/Makefile"
run_steps make
setup ninja
printf 'rule tfat\n  command = ./build.sh\n  depfile = k.d\n  deps = gcc\nbuild out$ put$:1.tfat: tfat\n' > "$work/ninja/build.ninja"
run_steps ninja

# Unrepresentable paths: refused before anything is built, nothing written.
mkdir -p "$work/bad/a;b" "$work/bad/new"$'\n'"line"
cp "$src/specs/ew_add_f32.yaml" "$work/bad/a;b/"
cp "$src/specs/ew_add_f32.yaml" "$work/bad/new"$'\n'"line/"
cd "$work/bad"
err=$("$tesserac" build "a;b" -t x86:v2 --no-oracle -o k.tfat --depfile k.d 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$err" = "tesserac: error: --depfile cannot name 'a;b': ';' has no escape that both Make and Ninja read back" ] \
  && ok "a ';' in a spec path is a usage error" || bad "';' in a path: rc $rc: $err"
err=$("$tesserac" build "new"$'\n'"line" -t x86:v2 --no-oracle -o k.tfat --depfile k.d 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$err" = "tesserac: error: --depfile cannot name 'new\\nline': a newline has no escape that both Make and Ninja read back" ] \
  && ok "a newline in a spec path is a usage error" || bad "newline in a path: rc $rc: $err"
[ ! -e k.tfat ] && [ ! -e k.d ] && ok "nothing was written" || bad "a refused build wrote output"
finish

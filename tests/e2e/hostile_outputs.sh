#!/bin/bash
# Outputs that would destroy something (issue 7, item 8): an output naming an
# input (also through ./, a hard link or a symlink), two outputs naming one
# file, a FIFO or a directory as output are refused with exit 2 before any
# work, and the input is untouched; /dev/null and /dev/stdout are written
# through, a symlinked output keeps its link. Rules: docs/cli.md "Output files".
# usage: hostile_outputs.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
cp "$src/specs/ew_add_f32.yaml" s.yaml
cp s.yaml pristine.yaml
ln s.yaml hard.yaml
ln -s s.yaml soft.yaml
mkdir specs && cp s.yaml specs/a.yaml
printf 'not an archive' > a.tfat
printf 'not an archive' > b.tfat

same_input() {  # same_input OPTION PATH INPUT
  echo "tesserac: error: $1 '$2' is the same file as the input $3 (an output must not overwrite an input)"
}
expect "emit -o the spec" 2 "$(same_input -o s.yaml "spec 's.yaml'")" \
  "$tesserac" emit s.yaml -t x86:v2 -o s.yaml
expect "emit -o ./spec" 2 "$(same_input -o ./s.yaml "spec 's.yaml'")" \
  "$tesserac" emit s.yaml -t x86:v2 -o ./s.yaml
expect "emit -o a hard link to the spec" 2 "$(same_input -o hard.yaml "spec 's.yaml'")" \
  "$tesserac" emit s.yaml -t x86:v2 -o hard.yaml
expect "emit -o a symlink to the spec" 2 "$(same_input -o soft.yaml "spec 's.yaml'")" \
  "$tesserac" emit s.yaml -t x86:v2 -o soft.yaml
expect "build -o onto a spec found in a directory" 2 "$(same_input -o specs/a.yaml "spec 'specs/a.yaml'")" \
  "$tesserac" build specs -t x86:v2 --no-oracle -o specs/a.yaml
expect "build --json onto the spec" 2 "$(same_input --json s.yaml "spec 's.yaml'")" \
  "$tesserac" build s.yaml -t x86:v2 --no-oracle -o k.tfat --json s.yaml
expect "build --depfile onto the spec" 2 "$(same_input --depfile hard.yaml "spec 's.yaml'")" \
  "$tesserac" build s.yaml -t x86:v2 --no-oracle -o k.tfat --depfile hard.yaml
expect "build --depfile = -o" 2 \
  "tesserac: error: --depfile './k.tfat' is the same file as -o 'k.tfat' (each output needs a file of its own)" \
  "$tesserac" build s.yaml -t x86:v2 --no-oracle -o k.tfat --depfile ./k.tfat
expect "build --json = -o" 2 \
  "tesserac: error: --json 'k.tfat' is the same file as -o 'k.tfat' (each output needs a file of its own)" \
  "$tesserac" build s.yaml -t x86:v2 --no-oracle -o k.tfat --json k.tfat
expect "test --json onto the spec" 2 "$(same_input --json soft.yaml "spec 's.yaml'")" \
  "$tesserac" test s.yaml -t x86:v2 --json soft.yaml
expect "test --json onto the --archive" 2 "$(same_input --json a.tfat "--archive 'a.tfat'")" \
  "$tesserac" test s.yaml -t x86:v2 --archive a.tfat --json a.tfat
expect "merge -o an input" 2 "$(same_input -o ./b.tfat "archive 'b.tfat'")" \
  "$tesserac" merge a.tfat b.tfat -o ./b.tfat
cp a.tfat a.c
expect "embed -o its input" 2 "$(same_input -o a.c "archive 'a.c'")" \
  "$tesserac" embed a.c -o a.c
[ ! -e k.tfat ] && ok "no refused build wrote an archive" || bad "a refused build wrote k.tfat"
cmp -s s.yaml pristine.yaml && cmp -s specs/a.yaml pristine.yaml && ok "the inputs are untouched" || bad "an input changed"
[ "$(cat a.tfat)" = "not an archive" ] && [ "$(cat b.tfat)" = "not an archive" ] && ok "the archives are untouched" \
  || bad "an archive input changed"

# Special files and links.
mkfifo fifo
expect "-o a FIFO is refused" 2 \
  "tesserac: error: cannot write -o 'fifo': it is a FIFO (an output must be a regular file, a character device or /dev/stdout)" \
  "$tesserac" emit s.yaml -t x86:v2 -o fifo
expect "-o a directory is refused" 2 \
  "tesserac: error: cannot write -o 'specs': it is a directory (an output must be a regular file, a character device or /dev/stdout)" \
  "$tesserac" emit s.yaml -t x86:v2 -o specs
ln -s loop1 loop2; ln -s loop2 loop1
expect "-o a symlink loop is refused" 2 \
  "tesserac: error: cannot write -o 'loop1': too many levels of symbolic links" \
  "$tesserac" emit s.yaml -t x86:v2 -o loop1
before=$(stat -c '%F %t:%T %i' /dev/null)
expect "-o /dev/null writes through" 0 "" "$tesserac" emit s.yaml -t x86:v2 -o /dev/null
expect "build -o /dev/null --depfile /dev/null (devices may repeat)" 0 "" \
  "$tesserac" build s.yaml -t x86:v2 --no-oracle -o /dev/null --depfile /dev/null --json /dev/null
[ "$(stat -c '%F %t:%T %i' /dev/null)" = "$before" ] && ok "/dev/null is still the same device" || bad "/dev/null was replaced"
"$tesserac" emit s.yaml -t x86:v2 -o /dev/stdout > via_stdout.c 2> err.txt
grep -q "ew_add_f32_tsr_entry" via_stdout.c && ok "-o /dev/stdout reaches a redirected stdout" || { bad "-o /dev/stdout"; cat err.txt; }
"$tesserac" emit s.yaml -t x86:v2 -o /dev/stdout 2> err.txt | grep -q "ew_add_f32_tsr_entry" \
  && ok "-o /dev/stdout reaches a pipe" || { bad "-o /dev/stdout into a pipe"; cat err.txt; }
echo old > real.c; ln -s real.c link.c
expect "-o a symlink writes its target" 0 "" "$tesserac" emit s.yaml -t x86:v2 -o link.c
[ -L link.c ] && [ "$(readlink link.c)" = real.c ] && grep -q "ew_add_f32_tsr_entry" real.c \
  && ok "the link is kept and its target replaced" || bad "symlinked output"
ls -a | grep -q '\.tmp-' && bad "a temporary file was left behind" || ok "no temporary file left behind"
finish

#!/bin/bash
# `embed --symbol NAME`: the symbol (and NAME_size) become globals of the
# user's C program, so NAME must be a C identifier outside the reserved table
# (support/c_identifiers.h): usage error, exit 2, naming the symbol and why.
# usage: embed_symbol_names.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
"$tesserac" build "$src/specs/ew_add_f32.yaml" -t x86:v2 -o "$work/a.tfat" --no-oracle > /dev/null ||
  { echo "FAIL build"; exit 1; }
expect() {  # expect SYMBOL CODE STDERR
  "$tesserac" embed "$work/a.tfat" -o "$work/out.c" --symbol "$1" > /dev/null 2> "$work/err.txt"; local rc=$?
  if [ "$rc" = "$2" ] && [ "$(cat "$work/err.txt")" = "$3" ]; then echo "ok   --symbol '$1'"
  else fail=1; echo "FAIL --symbol '$1': exit $rc (want $2)"; diff <(echo "$3") "$work/err.txt"; fi
}
expect int 2 "tesserac: error: --symbol 'int' is reserved: it is a C keyword"
expect class 2 "tesserac: error: --symbol 'class' is reserved: it is a C++ keyword"
expect exp 2 "tesserac: error: --symbol 'exp' is reserved: it is declared by the C library headers"
expect RAND_MAX 2 "tesserac: error: --symbol 'RAND_MAX' is reserved: it is a macro of the C library headers or the compiler"
expect _blob 2 "tesserac: error: --symbol '_blob' is reserved: names starting with '_' are reserved by C"
expect tsr_blob 2 "tesserac: error: --symbol 'tsr_blob' is reserved: names starting with 'tsr_' or 'TSR_' belong to the runtime stub's API"
expect 'my blob' 2 "tesserac: error: --symbol 'my blob' is not a C identifier"
expect my_blob 0 ""
if ! grep -q "const size_t my_blob_size = " "$work/out.c"; then echo "FAIL my_blob_size missing"; fail=1; fi
exit $fail

#!/bin/bash
# Receipt files past the limits of docs/limits.md ("Receipt files") through
# `admit`: a table header or dotted key of 30,000 parts (under the 64 KiB
# size limit, and a stack overflow, exit 139, while the parsed tree was
# walked, before the raw text was scanned for its shape) and a file over the
# size limit each give `file[:line:col]: error: ...`, exit 1, and no output.
# usage: receipt_limits.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
command -v python3 > /dev/null || { echo "SKIP: python3 not installed"; exit 77; }
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v2$' | grep -q 'toolchain: /' || { echo "SKIP: no x86 toolchain"; exit 77; }

expect "an archive to admit into" 0 "" "$tesserac" build "$src/specs/ew_add_f32.yaml" -t x86:v2 --no-oracle -o k.tfat

python3 -c "print('[' + 'a.' * 29999 + 'a]')" > header.receipt.toml
python3 -c "print('format_version = 1'); print('a.' * 29999 + 'a = 1')" > key.receipt.toml
python3 -c "print('# ' + 'x' * 69997)" > big.receipt.toml
a80=$(printf 'a.%.0s' $(seq 40))

expect "a 30,000-part table header" 1 "header.receipt.toml:1:2: error: table header has 30000 parts, over the limit of 32
[${a80}${a80:0:79}...
 ^
tesserac: error: header.receipt.toml: not a valid receipt (see the errors above)" \
  "$tesserac" admit k.tfat --receipts header.receipt.toml -o o1.tfat
expect_true "no archive written for it" test ! -e o1.tfat

expect "a 30,000-part dotted key" 1 "key.receipt.toml:2:1: error: dotted key has 30000 parts, over the limit of 32
${a80}${a80}...
^
tesserac: error: key.receipt.toml: not a valid receipt (see the errors above)" \
  "$tesserac" admit k.tfat --receipts key.receipt.toml -o o2.tfat
expect_true "no archive written for it" test ! -e o2.tfat

expect "a file over the size limit" 1 "big.receipt.toml: error: receipt file is 70000 bytes, over the limit of 65536 bytes
tesserac: error: big.receipt.toml: not a valid receipt (see the errors above)" \
  "$tesserac" admit k.tfat --receipts big.receipt.toml -o o3.tfat
expect_true "no archive written for it" test ! -e o3.tfat

finish

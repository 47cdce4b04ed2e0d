#!/bin/bash
# Archive format versions (docs/archive-format.md, "Version history"): a 1.x
# archive holds x86 kernels of kernel ABI v1, which this runtime cannot
# launch; a newer major is unknown. Every command that reads an archive
# refuses both by name, with exit 1 and one line naming the path.
# The old archive is today's with its version field set to 1.0 and every
# checksum sealed again, so only the version is wrong.
# usage: archive_old_format.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
cp "$src/specs/ew_add_f32.yaml" s.yaml
version=$("$tesserac" --version | sed 's/^tesserac //')

"$tesserac" build s.yaml -t x86:v2 --no-oracle -o new.tfat > /dev/null || { bad "build of a fresh archive"; finish; exit; }
# set_version IN OUT MAJOR MINOR: the version field rewritten, the header SHA-256 sealed again.
set_version() {
  python3 - "$@" <<'EOF'
import hashlib, struct, sys
src, dst, major, minor = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = bytearray(open(src, "rb").read())
struct.pack_into("<HH", b, 8, major, minor)
header_size = struct.unpack_from("<I", b, 12)[0]
header = bytearray(b[:header_size]); header[96:128] = bytes(32)
b[96:128] = hashlib.sha256(header).digest()
open(dst, "wb").write(b)
EOF
}
set_version new.tfat old.tfat 1 0
set_version new.tfat future.tfat 3 0
set_version old.tfat back.tfat 2 3
set_version new.tfat minor0.tfat 2 0
set_version new.tfat minor1.tfat 2 1
set_version new.tfat minor2.tfat 2 2
expect_true "the 1.0 archive differs from the fresh one only in its version and header hash" \
  cmp -s new.tfat back.tfat
expect "the fresh 2.3 archive verifies" 0 "" "$tesserac" verify new.tfat
# 2.1, 2.2 and 2.3 only added what a 2.0 reader may ignore: the same bytes labelled 2.0 stay readable.
expect "a 2.0 archive verifies" 0 "" "$tesserac" verify minor0.tfat
expect "a 2.1 archive verifies" 0 "" "$tesserac" verify minor1.tfat
expect "a 2.2 archive verifies" 0 "" "$tesserac" verify minor2.tfat
expect "a 2.0 archive is checked through the stub" 0 "" "$tesserac" test s.yaml -t x86:v2 --archive minor0.tfat

old="archive format 1.0 holds kernels of kernel ABI v1, which this runtime (format 2.x, kernel ABI v2) cannot launch; rebuild it with tesserac $version"
future="unsupported archive format version 3.0 (this reader reads 2.x)"
for pair in "old.tfat|$old" "future.tfat|$future"; do
  file=${pair%%|*}; message=${pair#*|}
  expect "inspect $file" 1 "tesserac: error: $file: $message" "$tesserac" inspect "$file"
  expect "inspect --json $file" 1 "tesserac: error: $file: $message" "$tesserac" inspect --json "$file"
  expect "verify $file" 1 "tesserac: error: $file: $message" "$tesserac" verify "$file"
  expect "merge $file" 1 "tesserac: error: $file: $message" "$tesserac" merge new.tfat "$file" -o m.tfat
  expect_true "merge $file wrote nothing" test ! -e m.tfat
  expect "embed $file" 1 "tesserac: error: $file: $message" "$tesserac" embed "$file" -o m.c
  expect_true "embed $file wrote nothing" test ! -e m.c
  expect "test --archive $file" 1 "tesserac: error: $file: $message" \
    "$tesserac" test s.yaml -t x86:v2 --archive "$file"
done
finish

#!/bin/bash
# Same inputs give a bit-identical archive: build the shipped specs twice,
# from copies in two different directories and different working directories.
# usage: archive_reproducible.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/one/nested" "$work/two"
cp -r "$src/specs" "$work/one/nested/specs"
cp -r "$src/specs" "$work/two/kernels"
(cd "$work/one/nested" && "$tesserac" build specs -t x86:v2,x86:v4 -o out.tfat > /dev/null) || { echo "FAIL first build"; exit 1; }
(cd "$work" && TMPDIR="$work" "$tesserac" build two/kernels -t x86:v4,x86:v2 -o two/out.tfat > /dev/null) || { echo "FAIL second build"; exit 1; }
if cmp "$work/one/nested/out.tfat" "$work/two/out.tfat"; then
  echo "identical: $(stat -c %s "$work/two/out.tfat") bytes, sha256 $(sha256sum < "$work/two/out.tfat" | cut -c1-16)"
  if grep -q -a "$work" "$work/two/out.tfat"; then echo "FAIL: the archive contains a build path"; exit 1; fi
  echo "1 passed, 0 failed"
else
  echo "FAIL: archives differ"; exit 1
fi

#!/bin/bash
# `embed -o OUT.o` assembles the archive's bytes with `.incbin` instead of
# compiling five bytes of C per archive byte (issue 15 item 6): the object
# defines the same symbols with the same sizes as the C path, holds the
# archive byte for byte, is reproducible, and a program linking it opens and
# verifies the archive. Prints both paths' sizes and times.
# usage: embed_object.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2; build=$3
lib=$build/libtesserart.a; include=$src/runtime-stub/include
[ -f "$lib" ] || { echo "SKIP: $lib not built"; exit 77; }
command -v cc > /dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; }
now_ms() { date +%s%3N; }

# An archive of a few hundred KiB: every shipped spec for one tier.
"$tesserac" build "$src"/specs/*.yaml -t x86:v2 --no-oracle -o "$work/all.tfat" > /dev/null ||
  { echo "FAIL build"; exit 1; }
size=$(stat -c %s "$work/all.tfat")

t0=$(now_ms)
"$tesserac" embed "$work/all.tfat" -o "$work/blob.o" --symbol kernels && ok "embed -o .o" || bad "embed -o .o"
t1=$(now_ms)
"$tesserac" embed "$work/all.tfat" -o "$work/blob.c" --symbol kernels && ok "embed -o .c" || bad "embed -o .c"
cc -std=c11 -c "$work/blob.c" -o "$work/blob_from_c.o" && ok "the C compiles" || bad "the C compiles"
t2=$(now_ms)
echo "archive $size bytes; .o by .incbin: $(stat -c %s "$work/blob.o") bytes in $((t1 - t0)) ms;" \
     "C source $(stat -c %s "$work/blob.c") bytes, written and compiled to $(stat -c %s "$work/blob_from_c.o") bytes in $((t2 - t1)) ms"

# Same symbols, types and sizes as the object compiled from the C source.
nm -S "$work/blob.o" | awk '{print $2, $3, $4}' > "$work/syms_o.txt"
nm -S "$work/blob_from_c.o" | awk '{print $2, $3, $4}' > "$work/syms_c.txt"
diff "$work/syms_c.txt" "$work/syms_o.txt" > /dev/null && ok "same symbols, sizes and types as the C path" ||
  { bad "symbols differ"; diff "$work/syms_c.txt" "$work/syms_o.txt"; }
grep -qx "$(printf '%016x' "$size") R kernels" "$work/syms_o.txt" && ok "kernels is $size bytes, read-only" ||
  bad "kernels symbol size"
grep -qx "0000000000000008 R kernels_size" "$work/syms_o.txt" && ok "kernels_size is 8 bytes, read-only" ||
  bad "kernels_size symbol"

# Byte for byte the archive; reproducible; no path of the scratch files inside.
objcopy -O binary --only-section=.rodata.kernels "$work/blob.o" "$work/section.bin"
head -c "$size" "$work/section.bin" | cmp -s - "$work/all.tfat" && ok "the object holds the archive's bytes" ||
  bad "the object's bytes differ from the archive"
"$tesserac" embed "$work/all.tfat" -o "$work/again.o" --symbol kernels
cmp -s "$work/blob.o" "$work/again.o" && ok "reproducible object" || bad "two embeds differ"
grep -q "tesserac-embed" "$work/blob.o" && bad "the object records a scratch path" || ok "no scratch path in the object"
readelf -S "$work/blob.o" | grep -q '\.note\.GNU-stack' && ok "non-executable stack note" || bad "GNU-stack note missing"

# A program linking the object opens and verifies the archive it carries.
cat > "$work/main.c" << 'EOF'
#include <stdio.h>
#include "tesserart.h"
extern const unsigned char kernels[];
extern const size_t kernels_size;
int main(void) {
  tsr_archive* a = NULL;
  tsr_status s = tsr_archive_open_memory(kernels, kernels_size, NULL, &a);
  if (s != TSR_OK) { printf("open: %s\n", tsr_status_string(s)); return 1; }
  char message[256] = "";
  s = tsr_archive_verify(a, message, sizeof message);
  tsr_archive_info info = {0};
  tsr_archive_get_info(a, &info);
  printf("verify: %s%s, kernels: %zu, bytes: %zu\n", tsr_status_string(s), message, (size_t)info.kernel_count, kernels_size);
  tsr_archive_close(a);
  return s == TSR_OK ? 0 : 1;
}
EOF
if cc -std=c11 -I"$include" "$work/main.c" "$work/blob.o" "$lib" -ldl -lpthread -o "$work/prog" 2> "$work/cc.txt"; then
  out=$("$work/prog"); rc=$?
  want="verify: ok, kernels: $(ls "$src"/specs/*.yaml | wc -l), bytes: $size"
  [ $rc = 0 ] && [ "$out" = "$want" ] && ok "linked program opens and verifies it ($out)" || bad "program: '$out' (want '$want'), exit $rc"
else
  bad "link"; cat "$work/cc.txt"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

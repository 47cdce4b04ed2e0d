#!/bin/bash
# The xdna target from the command line, without an NPU: the manifest
# kernels of examples/xdna (SYNTHETIC device artifacts) build into a
# reproducible archive and loose .xclbin files, report NOT_RUN with the
# reason, and inspect reads the xclbins; a tampered device artifact and a
# kernel outside the manifest are refused with exit 1 and exact text.
# usage: xdna_build.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
if [ -e /dev/accel/accel0 ]; then echo "SKIP: an NPU node is present; this script checks the no-NPU path"; exit 77; fi
cp -r "$src/examples/xdna" x

expect "the manifest kernels build" 0 "" "$tesserac" build x -o a.tfat --out-dir loose -q
expect_true "each row is NOT_RUN for want of an NPU" bash -c \
  "$tesserac inspect a.tfat | grep -c 'NOT_RUN  (no NPU (/dev/accel/accel0 absent or not accessible))' | grep -qx 4"
expect "the same inputs build again" 0 "" "$tesserac" build x -o b.tfat -q
expect_true "the archive is bit-identical" cmp a.tfat b.tfat
expect_true "inspect reads a loose xclbin" bash -c \
  "$tesserac inspect loose/vec_add_bf16.xdna_npu1.xclbin | sed -n '2p;6p;10p' | diff - <(printf '%s\n' \
   '  kernel vec_add_bf16:vec_add_bf16_1' \
   '  section CONNECTIVITY '\''connectivity'\'' at 872, 52 bytes' \
   '  section USER_METADATA '\''npu_insts'\'' at 3032, 32 bytes')"

printf 'tampered' > x/artifacts/vec_add_bf16.npu4.pdi
expect "a device artifact whose hash differs is refused at the hash" 1 \
"tesserac: error: x/vec_add_bf16.xdna.toml:17:16: error: SHA-256 mismatch for 'image' x/artifacts/vec_add_bf16.npu4.pdi: the sidecar declares 7be76390336c565dff654b12e9c4203eafbc5e0d31eab203b2b0ad3c663ce2a1, the file has d121be3103007b41edf96f8262925f8c7d61894afe9a041843b631f69445bc57
image_sha256 = \"7be76390336c565dff654b12e9c4203eafbc5e0d31eab203b2b0ad3c663ce2a1\"
               ^
tesserac: error: build failed; nothing written" "$tesserac" build x/vec_add_bf16.yaml -t xdna:npu4 -o c.tfat -q
expect_true "nothing was written" test ! -e c.tfat

cp "$src/specs/ew_add_f32.yaml" s.yaml
expect "a kernel outside the manifest is refused by name when xdna is asked for" 1 \
"tesserac: error: kernel 'ew_add_f32' cannot be built for xdna:npu1: kernel 'ew_add_f32' is not in the xdna manifest (dtype f32 is not bf16); the NPU runs only: bf16_add_1024: elementwise ops [add], dtype bf16, shape {N: 1024}; ABI in0: bf16[1024], in1: bf16[1024], out: bf16[1024]; and bf16_matmul_128x64x128: matmul, dtype bf16, accumulate f32, shape {M: 128, N: 128, K: 64}, layout {a: row, b: row}, no epilogue; ABI in0 (a): bf16[128, 64], in1 (b): bf16[64, 128], out (c): bf16[128, 128]" \
  "$tesserac" build s.yaml -t xdna:npu1 -o d.tfat -q
expect_true "by default it is an unsupported NOT_RUN row and the build goes on" bash -c \
  "$tesserac build s.yaml -t x86:v2 -o e.tfat -q && $tesserac build s.yaml -o f.tfat 2>/dev/null | grep -q '^ew_add_f32  xdna:npu1    NOT_RUN .* target does not support this kernel: kernel .ew_add_f32. is not in the xdna manifest'"
# The manifest's description, which every such row's reason ends with, is
# printed once under the table as a note the rows refer to.
cp "$src/specs/rmsnorm_f32.yaml" r.yaml
expect "xdna rows of two kernels outside the manifest" 0 "" "$tesserac" test s.yaml r.yaml -t xdna:npu1,xdna:npu4
expect_true "each row names its own mismatch and refers to note [1]; the note is printed once" python3 - out.txt <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l for l in lines if " NOT_RUN " in l]
assert len(rows) == 4, lines
assert all(re.search(r"is not in the xdna manifest \(.*\); see \[1\]$", r) for r in rows), rows
notes = [l for l in lines if l.startswith("[")]
assert len(notes) == 1 and notes[0].startswith("[1] the NPU runs only: bf16_add_1024: "), notes
assert sum(l.count("the NPU runs only") for l in lines) == 1, lines
PY
finish

#!/bin/bash
# tesserac merge and the verdict rules (docs/cli.md, "merge"): a hardware
# PASS supersedes PASS_EMULATED and NOT_RUN for the same variant,
# PASS_EMULATED supersedes NOT_RUN, anything else that differs is a conflict
# naming both inputs. Verdicts other than what a build writes are made by
# rewriting a VERD record and resealing the index (CRC-32C, SHA-256) and
# the header, so the archive is valid and only the verdict differs.
# usage: merge_verdicts.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"

# set_verdict IN OUT VERDICT [MAX_ABS_ERR]: every VERD record of IN gets
# VERDICT (0 NOT_RUN, 1 PASS, 2 FAIL, 3 PASS_EMULATED) and, when given, that
# max_abs_err; the reason is left as it was.
set_verdict() {
  python3 - "$@" <<'PY'
import hashlib, struct, sys
src, dst, verdict = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF
header_size, = struct.unpack_from("<I", b, 12)
index_off, index_size = struct.unpack_from("<QQ", b, 24)
pos = index_off
while pos < index_off + index_size:
    tag = bytes(b[pos:pos + 4]); size, = struct.unpack_from("<Q", b, pos + 8)
    if tag == b"VERD":
        record_size, count = struct.unpack_from("<II", b, pos + 16)
        for i in range(count):
            rec = pos + 24 + i * record_size
            b[rec + 16] = verdict
            if len(sys.argv) > 4:
                struct.pack_into("<d", b, rec + 24, float(sys.argv[4]))
    pos = (pos + 16 + size + 7) // 8 * 8
index = bytes(b[index_off:index_off + index_size])
struct.pack_into("<I", b, 52, crc32c(index))
b[64:96] = hashlib.sha256(index).digest()
b[96:128] = bytes(32)
b[96:128] = hashlib.sha256(bytes(b[:header_size])).digest()
open(dst, "wb").write(b)
PY
}

# The verdict merged.tfat holds for the kernel's only variant.
verdict_of() {
  "$tesserac" inspect --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["kernels"][0]["verdicts"][0]["verdict"])'
}

spec=$src/specs/rmsnorm_bf16.yaml
"$tesserac" build "$spec" -t x86:v2 -o pass.tfat > /dev/null 2>&1 || { bad "build with the oracle"; finish; exit; }
"$tesserac" build "$spec" -t x86:v2 --no-oracle -o notrun.tfat > /dev/null 2>&1 || { bad "build without the oracle"; finish; exit; }
[ "$(verdict_of pass.tfat)" = PASS ] && [ "$(verdict_of notrun.tfat)" = NOT_RUN ] && ok "inputs: PASS and NOT_RUN" \
  || bad "inputs: $(verdict_of pass.tfat) and $(verdict_of notrun.tfat)"
set_verdict pass.tfat emulated.tfat 3
set_verdict pass.tfat fail.tfat 2 0.5
set_verdict pass.tfat fail2.tfat 2 0.25
set_verdict pass.tfat pass2.tfat 1 0.125
expect "the rewritten archives verify" 0 "" "$tesserac" verify fail.tfat
[ "$(verdict_of emulated.tfat)" = PASS_EMULATED ] && ok "input: PASS_EMULATED" || bad "input: $(verdict_of emulated.tfat)"

# supersedes WINNER LOSER VERDICT: merged in both orders, VERDICT remains.
supersedes() {
  local w=$1 l=$2 want=$3
  for order in "$w $l" "$l $w"; do
    # shellcheck disable=SC2086
    if "$tesserac" merge $order -o merged.tfat 2> err.txt && [ "$(verdict_of merged.tfat)" = "$want" ]; then
      ok "merge $order keeps $want"
    else bad "merge $order: $(cat err.txt) $(verdict_of merged.tfat 2>/dev/null)"; fi
  done
}
supersedes pass.tfat notrun.tfat PASS
supersedes pass.tfat emulated.tfat PASS
supersedes emulated.tfat notrun.tfat PASS_EMULATED

rm -f merged.tfat
conflict() {  # conflict A B VA VB
  expect "merge $1 $2 is a conflict" 1 \
    "tesserac: error: merge conflict: kernel 'rmsnorm_bf16' verdict x86:v2 differs between '$1' ($3) and '$2' ($4)" \
    "$tesserac" merge "$1" "$2" -o merged.tfat
  [ ! -e merged.tfat ] && ok "no output after the conflict" || bad "a conflicting merge left merged.tfat"
}
conflict pass.tfat fail.tfat PASS FAIL
conflict fail.tfat fail2.tfat FAIL FAIL
conflict pass.tfat pass2.tfat PASS PASS
conflict notrun.tfat fail.tfat NOT_RUN FAIL
conflict emulated.tfat fail.tfat PASS_EMULATED FAIL
finish

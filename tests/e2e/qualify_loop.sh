#!/bin/bash
# The qualification loop of issue 10, on the x86 tiers this machine runs:
# build -> qualify (receipts, signed) -> admit --require-receipts (with trusted
# keys) -> launch through libtesserart with TSR_REQUIRE_QUALIFIED=1. Also: an
# archive without receipts is refused by the policy; admission names the
# first field that differs; a tampered receipt is refused; FAIL/NOT_RUN make
# no receipt.
# usage: qualify_loop.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2; build=$3
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
lib=$build/libtesserart.a
for tool in cc openssl; do command -v $tool > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }; done
[ -f "$lib" ] || { echo "SKIP: $lib not built"; exit 77; }
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v2$' | grep -q 'toolchain: /' || { echo "SKIP: no x86 toolchain"; exit 77; }
tiers=x86:v2
"$tesserac" targets 2> /dev/null | grep -A2 '^x86:v3$' | grep -q 'device: *present' && tiers=x86:v2,x86:v3
ntiers=$(echo "$tiers" | tr ',' '\n' | wc -l)

mkdir specs
cp "$src/specs/ew_add_f32.yaml" "$src/specs/rmsnorm_f32.yaml" specs/
cc -std=c11 -O1 -I "$src/runtime-stub/include" "$src/tests/e2e/lib/policy_launch.c" "$lib" -ldl -lpthread -lm \
  -o policy_launch || { bad "cannot build the policy launcher"; finish; exit; }
openssl genpkey -algorithm ed25519 -out signer.pem 2> /dev/null
openssl pkey -in signer.pem -pubout -out signer.pub 2> /dev/null
openssl genpkey -algorithm ed25519 -out stranger.pem 2> /dev/null
openssl pkey -in stranger.pem -pubout -out stranger.pub 2> /dev/null

expect "build" 0 "" "$tesserac" build specs -t "$tiers" -o k.tfat
export SOURCE_DATE_EPOCH=1764547200
expect "qualify writes a signed receipt per hardware PASS" 0 "" \
  "$tesserac" qualify k.tfat --receipts-out receipts --sign signer.pem
expect_true "one receipt per kernel and tier" test "$(ls receipts/*.receipt.toml | wc -l)" = $((2 * ntiers))
expect_true "qualify says where each receipt went" grep -q '^receipt for ew_add_f32 on x86:v2: receipts/ew_add_f32\.x86-v2\.[0-9a-f]\{12\}\.receipt\.toml (signed, key [0-9a-f]\{64\})$' out.txt
expect_true "the receipt records the qualification time" grep -qx 'qualified_at = 2025-12-01T00:00:00Z' receipts/ew_add_f32.x86-v2.*.receipt.toml
expect_true "the receipt ends with its signature" grep -q '^# tesserac-signature ed25519 ' receipts/ew_add_f32.x86-v2.*.receipt.toml

# Without receipts the policy refuses; with them it runs.
TSR_REQUIRE_QUALIFIED=1 ./policy_launch k.tfat > policy.txt; rc=$?
expect_true "the policy refuses an archive without receipts" test $rc = 1
expect_true "NOT_QUALIFIED names the kernel" grep -q '^ew_add_f32: not qualified: ' policy.txt || cat policy.txt
expect "admit --require-receipts --trusted-keys" 0 \
  "tesserac: $((2 * ntiers)) receipts attached to q.tfat, 0 matched no variant" \
  "$tesserac" admit k.tfat --receipts receipts --require-receipts --trusted-keys signer.pub -o q.tfat
expect "the admitted archive verifies" 0 "" "$tesserac" verify q.tfat
TSR_REQUIRE_QUALIFIED=1 ./policy_launch q.tfat > policy.txt; rc=$?
expect_true "the policy launches every admitted kernel" test $rc = 0 || cat policy.txt
expect_true "the launch ran a qualified variant" grep -q '^ew_add_f32: ran x86:v[23] (receipts '"$ntiers"')$' policy.txt || cat policy.txt
"$tesserac" inspect --json q.tfat > q.json
expect_true "inspect shows PASS for the qualified variants" \
  python3 -c 'import json,sys; k=json.load(open("q.json"))["kernels"]; sys.exit(not all(v["verdict"]=="PASS" for x in k for v in x["verdicts"]))'

# Admission names the first field that differs: the receipts of this kernel
# against an archive of the same kernel name with another accuracy budget.
mkdir other; sed 's/^accuracy: .*/accuracy: {kind: tolerance_bounded, atol: 0.001, rtol: 0.001}/' specs/ew_add_f32.yaml \
  > other/ew_add_f32.yaml
"$tesserac" build other -t x86:v2 --no-oracle -o k2.tfat > /dev/null 2>&1
expect_true "a receipt of another identity matches nothing, and says why" \
  bash -c "! '$tesserac' admit k2.tfat --receipts receipts --require-receipts -o k3.tfat 2> k2.err"
expect_true "the first differing field and both values" \
  grep -q "^tesserac: error: kernel 'ew_add_f32' variant x86:v2 has no hardware receipt: identity differs: receipt [0-9a-f]\{64\}, archive [0-9a-f]\{64\}$" k2.err \
  || cat k2.err
mkdir partial; cp receipts/ew_add_f32.x86-v2.*.receipt.toml partial/
expect_true "require-receipts fails when a variant has none" \
  bash -c "! '$tesserac' admit k.tfat --receipts partial --require-receipts -o p.tfat 2> p.err"
expect_true "and names the variant" grep -q "^tesserac: error: kernel 'rmsnorm_f32' variant x86:v2 has no hardware receipt$" p.err || cat p.err
expect_true "and writes nothing" test ! -e p.tfat

# A tampered receipt is refused before it is parsed; an unknown signer too.
mkdir tampered; for f in receipts/*.toml; do sed 's/^seed = .*/seed = "1"/' "$f" > "tampered/$(basename "$f")"; done
expect_true "a tampered receipt is refused" \
  bash -c "! '$tesserac' admit k.tfat --receipts tampered --trusted-keys signer.pub -o t.tfat 2> t.err"
expect_true "an unknown signer is refused" \
  bash -c "! '$tesserac' admit k.tfat --receipts receipts --trusted-keys stranger.pub -o t.tfat 2> u.err"
expect_true "nothing written for a refused receipt" test ! -e t.tfat
finish

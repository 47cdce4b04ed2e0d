#!/bin/bash
# tesserac tune and build --tune (issue 14; docs/arbiter.md): the table of
# every candidate, the tuned archive with its route and measurements
# (inspect), the tuning cache (a hit gives the same archive byte for byte;
# a toolchain version change re-measures), and the archive's route through
# libtesserart, with the delegate's library present and hidden.
# usage: arbiter_tune.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v3$' | grep -q 'toolchain: /' \
  || { echo "SKIP: no x86 toolchain (tesserac targets)"; exit 77; }
"$tesserac" targets 2> /dev/null | grep -A2 '^x86:v3$' | grep -q 'device: *present:' \
  || { echo "SKIP: this CPU does not run x86:v3"; exit 77; }
. "$src/tests/e2e/lib/checks.bash"   # cd's into a scratch directory
cat > mm.yaml <<'YAML'
tesserac: 1
kernel: mm_cand
family: matmul
dtype: f32
accumulate: f32
shape: {M: 128, N: 96, K: 64}
layout: {a: row, b: row}
accuracy: {kind: tolerance_bounded, atol: 1e-4, rtol: 1e-4}
determinism: deterministic
candidates:
  - kernel_call: {callee: cblas_sgemm, arch: x86, binding: c_abi, provenance: vendor_library,
                  accuracy: {kind: tolerance_bounded, tolerance: 1e-4, tolerance_rel: 1e-4},
                  determinism: deterministic}
  - kernel_call: {callee: dnnl_sgemm, arch: x86, binding: c_abi, provenance: vendor_library,
                  accuracy: {kind: tolerance_bounded, tolerance: 1e-4, tolerance_rel: 1e-4},
                  determinism: nondeterministic_allowed}
YAML
tune=("$tesserac" tune mm.yaml -t x86:v3 --tune-rounds 3)
run() { timeout 600 "$@" > out.txt 2> err.txt; }
has() { grep -qF -- "$2" "$1" && ok "$3" || { bad "$3: '$2' not in $1"; head -40 "$1"; }; }

run "${tune[@]}" --cache-dir cache -o t1.tfat && ok "tune writes the tuned archive" || { bad "tune: exit $?"; cat err.txt; }
has out.txt "tuning mm_cand on x86:v3 (" "the table names kernel, target, device and workers"
has out.txt "generated:default" "generated candidates are listed"
has out.txt "kernel_call:cblas_sgemm" "the OpenBLAS delegate is listed"
has out.txt "dropped: nondeterministic: declares nondeterministic_allowed; the spec is deterministic" \
  "a nondeterministic candidate of a deterministic spec is dropped"
has out.txt "  route all: " "the route is printed"
"$tesserac" verify t1.tfat > /dev/null 2>&1 && ok "the tuned archive verifies" || bad "verify t1.tfat"
"$tesserac" inspect t1.tfat > inspect.txt 2>&1
has inspect.txt "route 0 (all at M=128 N=96 K=64): " "inspect shows the route"
has inspect.txt "candidate kernel_call:cblas_sgemm: " "inspect shows each candidate's measurement"
has inspect.txt "median of 3 rounds; sample = median of" "inspect shows how it was measured (tune.method)"
"$tesserac" inspect --json t1.tfat > inspect.json 2>&1
python3 - <<'PY' && ok "inspect --json: route, delegate mapping and tune.* keys" || bad "inspect --json keys"
import json
m = json.load(open("inspect.json"))["kernels"][0]["variants"][0]["metadata"]
assert "route.0" in m and "tune.workers" in m and "tune.candidate.generated:default" in m, m.keys()
for k in m:
    if k.startswith("delegate.") and k.endswith(".args"):
        assert m[k] == "a=a:row b=b:row c=c m=128 n=96 k=64 alpha=1", m[k]
PY

run "${tune[@]}" --cache-dir cache -o t2.tfat && ok "tune again" || bad "tune again: exit $?"
has out.txt "from the tuning cache" "the second tune is a tuning cache hit"
cmp -s t1.tfat t2.tfat && ok "a cache hit writes the same archive, byte for byte" || bad "t2.tfat differs from t1.tfat"
run "$tesserac" build --tune mm.yaml -t x86:v3 --tune-rounds 3 --cache-dir cache -o b.tfat \
  && ok "build --tune" || bad "build --tune: exit $?"
cmp -s t1.tfat b.tfat && ok "build --tune = tune -o (same cache)" || bad "b.tfat differs from t1.tfat"

# A toolchain version change is a different tuning cache key: re-measured.
clang=$(command -v clang-14 || command -v clang)
cat > clang-wrapped <<SH
#!/bin/sh
if [ "\$1" = "--version" ]; then "$clang" --version | sed '1s/\$/ (wrapped for a test)/'; exit 0; fi
exec "$clang" "\$@"
SH
chmod +x clang-wrapped
TESSERAC_CLANG=$PWD/clang-wrapped run "${tune[@]}" --cache-dir cache -o t3.tfat && ok "tune with another toolchain version" \
  || bad "tune with the wrapped clang: exit $?"
if ! grep -qF "tuning mm_cand on x86:v3 (" out.txt; then bad "no tuning table with the wrapped clang"
elif grep -qF "from the tuning cache" out.txt; then bad "a toolchain version change still hit the tuning cache"
else ok "a toolchain version change re-measures"; fi

# A delegate wrong only in the last shape bucket (M > 256, beyond every
# standard oracle trial) and O(1) there, so by far the fastest: the oracle's
# route trials catch it, it is dropped, and no route of the build names it.
mkdir fakeblas
cat > fakeblas.c <<'C'
/* cblas_sgemm, correct while M <= 256; above, it returns without writing C. */
const char* openblas_get_config(void) { return "fake OpenBLAS, wrong for M > 256"; }
static float at(const float* x, int ld, int row_major, int trans, int r, int c) {
  return (row_major == !trans) ? x[r * ld + c] : x[c * ld + r];
}
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc) {
  if (m > 256) return;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += (double)at(a, lda, order == 101, ta == 112, i, p) * at(b, ldb, order == 101, tb == 112, p, j);
      float* out = order == 101 ? &c[i * ldc + j] : &c[j * ldc + i];
      *out = (float)(alpha * s + (beta == 0.0f ? 0.0 : beta * *out));
    }
}
C
"$clang" -shared -fPIC -O2 -o fakeblas/libopenblas.so.0 fakeblas.c || bad "cannot build the fake libopenblas"
sed -e 's/shape: {M: 128, N: 96, K: 64}/shape: {M: M, N: 48, K: 40}/' -e 's/kernel: mm_cand/kernel: mm_wide/' mm.yaml > wide.yaml
TSR_DELEGATE_DIR=$PWD/fakeblas run "$tesserac" build --tune wide.yaml -t x86:v3 --tune-rounds 1 --no-cache -o wide.tfat \
  && ok "build --tune with a delegate wrong only for M > 256 builds" || { bad "build --tune wide.yaml: exit $?"; cat out.txt err.txt; }
grep -E '^  kernel_call:cblas_sgemm .* dropped: oracle FAIL: .*route M>256' out.txt > /dev/null \
  && ok "the delegate fails its oracle in the route trial of bucket M>256" || { bad "the wrong delegate was not dropped"; cat out.txt; }
if grep -E '^  route .*cblas_sgemm' out.txt; then bad "a route names the delegate that is wrong for M > 256"
else ok "no route names the delegate that is wrong for M > 256"; fi
# test --archive reads the routes from the archive: every bucket's trials run again.
run "$tesserac" test --archive wide.tfat wide.yaml -t x86:v3 --no-cache
grep -E '^mm_wide +x86:v3 +PASS .*trials=12 ' out.txt > /dev/null \
  && ok "test --archive runs the route trials of every bucket (12 trials)" || { bad "test --archive: no route trials"; cat out.txt; }

# The route through libtesserart: the oracle on the archive's variant, with
# the delegate's library present, then hidden (the stub falls back).
run "$tesserac" test --archive t1.tfat mm.yaml -t x86:v3 && ok "test --archive: the tuned route passes the oracle" \
  || { bad "test --archive: exit $?"; cat out.txt err.txt; }
mkdir empty
TSR_DELEGATE_DIR=$PWD/empty run "$tesserac" test --archive t1.tfat mm.yaml -t x86:v3 \
  && ok "library hidden: the stub falls back along the route and still passes" || { bad "hidden library: exit $?"; cat out.txt err.txt; }
finish

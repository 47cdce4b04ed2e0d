#!/bin/bash
# An --emulate build writes the same archive bytes whatever the compile cache
# holds: the archs whose emitted source is byte-identical share one emulation,
# always the first arch in the target catalogue's order, whether its pass was
# emulated now or came from the cache (docs/emulator.md, docs/cache.md). Four
# builds against one cache dir, a --no-cache build, and a build against a
# cache that held only another arch's pass with -t in reverse order: one
# SHA-256; the warm builds run no emulation (every lookup a hit).
# usage: emulated_archive_reproducible.sh TESSERAC SOURCE_DIR BUILD_DIR
set -u
tesserac=$1; src=$2
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
cp "$src/specs/ew_silu_bf16.yaml" s.yaml

# The GPU targets this machine builds but cannot run: a cuda and a hip group of
# archs with byte-identical source each, where their toolchain is present.
"$tesserac" targets --json > targets.json
group() {   # group KIND ARCH...: the kind's archs, when built here without a device
  python3 - "$@" <<'PY'
import json, sys
kind, archs = sys.argv[1], sys.argv[2:]
t = {x["target"]: x for x in json.load(open("targets.json"))["targets"]}
names = [kind + ":" + a for a in archs]
if all(n in t and t[n]["toolchain_found"] and not t[n]["device_present"] for n in names):
    print(",".join(names))
PY
}
cuda=$(group cuda sm_80 sm_86 sm_90); hip=$(group hip gfx90a gfx940)
targets=$(echo "$cuda,$hip" | sed 's/^,//; s/,$//')
[ -n "$targets" ] || { echo "skip: no cuda or hip toolchain without its device here"; exit 77; }
command -v clang-14 > /dev/null || command -v clang > /dev/null || { echo "skip: no clang for the emulator"; exit 77; }
reversed=$(echo "$targets" | tr ',' '\n' | tac | paste -sd,)
echo "targets: $targets"

build() {   # build NAME ARGS...: an --emulate build of s.yaml to NAME.tfat, its report in NAME.json
  local name=$1; shift
  expect "build $name" 0 "" "$tesserac" build s.yaml --emulate -o "$name.tfat" --report "$name.json" "$@"
  echo "$name: $(sha256sum < "$name.tfat" | cut -c1-16)"
}
build cold -t "$targets" --cache-dir cache
for n in 2 3 4; do build warm$n -t "$targets" --cache-dir cache; done
build uncached -t "$targets" --no-cache
# A cache that holds the pass of the second arch of each group only.
second=$(echo "$cuda" | cut -d, -f2),$(echo "$hip" | cut -d, -f2)
build seed -t "$(echo "$second" | sed 's/^,//; s/,$//')" --cache-dir other
build reversed -t "$reversed" --cache-dir other

for name in warm2 warm3 warm4 uncached reversed; do
  expect_true "$name.tfat is byte-identical to cold.tfat" cmp cold.tfat "$name.tfat"
done
"$tesserac" inspect cold.tfat > inspect.txt
verdict_says() { grep "verdict $1 " inspect.txt | grep -qF -- "$2"; }
for t in $(echo "$targets" | tr ',' ' '); do   # each group's first arch is the one emulated
  case $t in cuda:sm_80|hip:gfx90a) want="";; cuda:*) want=cuda:sm_80;; hip:*) want=hip:gfx90a;; esac
  expect_true "$t passed emulated" verdict_says "$t" "PASS_EMULATED"
  if [ -z "$want" ]; then
    expect_true "$t was emulated itself" bash -c "! grep 'verdict $t ' inspect.txt | grep -q byte-identical"
  else
    expect_true "$t reuses $want's emulation" verdict_says "$t" "(source byte-identical to $want's, emulated once)"
  fi
done
python3 - <<'PY' > report_check.txt 2>&1
import json
for name in ("warm2", "warm3", "warm4"):
    r = json.load(open(name + ".json"))
    assert r["cache"]["misses"] == 0 and r["cache"]["stored"] == 0, (name, r["cache"])
    for k in r["results"]:
        assert k["artifact_cache_hit"] and k["verdict_cache_hit"], (name, k)
cold = json.load(open("cold.json"))
assert cold["cache"]["hits"] == 0, cold["cache"]
PY
expect_true "the warm builds take every artifact and pass from the cache ($(cat report_check.txt))" \
  test ! -s report_check.txt
finish

# Sourced by the build_out_dir*.sh scripts (not a test itself).
# manifest_lists DIR NAME...: DIR/manifest.json names exactly these files,
# each present with its sha256, and DIR holds nothing else.
manifest_lists() {
  python3 - "$@" <<'PY'
import hashlib, json, os, sys
d, want = sys.argv[1], sys.argv[2:]
m = json.load(open(os.path.join(d, "manifest.json")))
names = [a["artifact"] for a in m["artifacts"]]
assert names == want, names
for a in m["artifacts"]:
    assert hashlib.sha256(open(os.path.join(d, a["artifact"]), "rb").read()).hexdigest() == a["sha256"], a
assert sorted(os.listdir(d)) == sorted(want + ["manifest.json"]), os.listdir(d)
PY
}

# out_dir_or_skip NAME ARGS...: runs `tesserac build s.yaml ARGS...`; a
# toolchain the build reports unavailable (exit 3) skips the whole script
# with exit 77 and the reason, which ctest counts as skipped.
out_dir_or_skip() {
  local name=$1; shift
  "$tesserac" build s.yaml "$@" > out.txt 2> err.txt; local rc=$?
  [ "$rc" = 0 ] && return 0
  if [ "$rc" = 3 ] && grep -q "unavailable" err.txt; then echo "SKIP: $name: $(cat err.txt)"; exit 77; fi
  bad "$name --out-dir: exit $rc"; cat err.txt
  return 1
}

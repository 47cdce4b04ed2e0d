#!/bin/bash
# examples/make keeps working: a copy of it builds its archive with this
# tesserac, links this build's libtesserart.a, runs and checks its kernels,
# and rebuilds exactly when it should.
# usage: example_make.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2; build=$3
lib=$build/libtesserart.a; include=$src/runtime-stub/include
for tool in make cc; do
  command -v $tool > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -f "$lib" ] || { echo "SKIP: $lib not built (ninja tesserart_static)"; exit 77; }
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v2$' | grep -q 'toolchain: /' \
  || { echo "SKIP: no x86 toolchain (tesserac targets)"; exit 77; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp -r "$src/examples/make" "$work/ex"
cd "$work/ex"
rm -f kernels.tfat kernels.config app app.out ./*.o kernels_blob.c
vars=(TESSERAC="$tesserac" TESSERART_INCLUDE="$include" TESSERART_LIB="$lib")
pass=0; fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; [ -f "$work/out.txt" ] && sed 's/^/     /' "$work/out.txt"; }
has() { grep -qE -- "$1" "$work/out.txt"; }

make "${vars[@]}" > "$work/out.txt" 2>&1; rc=$?
[ $rc = 0 ] && ok "make builds the archive, links and runs the program" || bad "make exited $rc"
level=$(sed -n 's/^\[file\] archive format .*this CPU is x86-64-v\([0-9]\)$/\1/p' "$work/out.txt")
want_arch="x86:v[234]"
if [ -n "$level" ] && [ "$level" -ge 2 ]; then want_arch="x86:v$((level > 4 ? 4 : level))"; fi
for source in file embedded; do
  for kernel in mlp_up_bf16 rmsnorm_rows_f32; do
    has "^\[$source\] $kernel: ran variant $want_arch via memfd\+dlopen$" \
      && ok "[$source] $kernel ran the best variant for this CPU ($want_arch)" || bad "[$source] $kernel variant line"
  done
  has "^\[$source\] mlp_up_bf16: tokens=5 max_abs_err=[0-9.e+-]+ ok$" \
    && ok "[$source] matmul matches the C reference" || bad "[$source] matmul check"
  has "^\[$source\] rmsnorm_rows_f32: rows=7 max_abs_err=[0-9.e+-]+ ok$" \
    && ok "[$source] rmsnorm matches the C reference" || bad "[$source] rmsnorm check"
done
has "^\[file\] executor: libtesserart's pool, [0-9]+ worker\(s\) " \
  && ok "[file] runs on the default pool" || bad "[file] executor line"
has "^\[embedded\] executor: the application's, 1 worker\(s\); it ran [0-9]+ task\(s\) in [0-9]+ parallel_for call\(s\)$" \
  && ok "[embedded] runs on the program's executor (tsr_set_executor)" || bad "[embedded] executor line"
has "^\[file\] misuse: rows=7 with a 6-row output buffer -> buffer too small \(33\): rmsnorm_rows_f32: buffer 'y' has 6144 bytes, needs 7168$" \
  && ok "misuse comes back as TSR_ERROR_BUFFER_TOO_SMALL" || bad "misuse line"
[ "$(tail -n 1 "$work/out.txt")" = "all checks passed" ] && ok "last line: all checks passed" || bad "last line"
# The README's sample output names the archive format this tesserac writes.
documented=$(grep -oE '^\[file\] archive format [0-9]+\.[0-9]+, [0-9]+ kernels' "$src/examples/make/README.md")
[ -n "$documented" ] && grep -qF -- "$documented, " "$work/out.txt" && ok "README shows this archive format: ${documented#\[file\] }" \
  || bad "README shows '${documented#\[file\] }', the program printed another format"
[ -f kernels.tfat ] && [ -f app.out ] && ok "kernels.tfat and app.out are files" || bad "outputs missing"

stamp=$(stat -c %Y.%y kernels.tfat)
make "${vars[@]}" > "$work/out.txt" 2>&1; rc=$?
[ $rc = 0 ] && has "Nothing to be done for 'all'" && ! has "tesserac build" \
  && ok "second make has nothing to do" || bad "second make did work (exit $rc)"
make "${vars[@]}" -q > /dev/null 2>&1 && ok "make -q: up to date" || bad "make -q says out of date"
[ "$(stat -c %Y.%y kernels.tfat)" = "$stamp" ] && ok "archive untouched" || bad "archive rewritten"

make "${vars[@]}" run > "$work/out.txt" 2>&1 && has "^all checks passed$" && ! has "tesserac build" \
  && ok "make run runs again without rebuilding" || bad "make run"

TSR_NUM_THREADS=3 ./app kernels.tfat > "$work/out.txt" 2>&1 \
  && has "^\[file\] executor: libtesserart's pool, 3 worker\(s\) " && has "^all checks passed$" \
  && ok "TSR_NUM_THREADS=3 sizes the default pool, same results" || bad "TSR_NUM_THREADS=3 run"

# A spec added with an old timestamp, or one removed, is caught by kernels.config.
cp specs/rmsnorm_f32.yaml "$work/extra.yaml"
sed 's/kernel: rmsnorm_rows_f32/kernel: rmsnorm_extra_f32/' "$work/extra.yaml" > specs/extra.yaml
touch -d '2001-01-01' specs/extra.yaml
make "${vars[@]}" -n > "$work/out.txt" 2>&1; has "build specs -t x86:v2,x86:v3,x86:v4 -o kernels.tfat" \
  && ok "an added spec (old mtime) rebuilds the archive" || bad "added spec not noticed"
rm specs/extra.yaml
make "${vars[@]}" -n > "$work/out.txt" 2>&1; has "build specs" \
  && ok "a removed spec rebuilds the archive" || bad "removed spec not noticed"
make "${vars[@]}" TESSERAC_TARGETS=x86:v3 -n > "$work/out.txt" 2>&1; has "build specs -t x86:v3 -o kernels.tfat" \
  && ok "another target list rebuilds the archive" || bad "target list change not noticed"

# A broken spec fails the build and keeps the old archive.
cp specs/rmsnorm_f32.yaml "$work/rms.yaml"
echo "tile: 128" >> specs/rmsnorm_f32.yaml
make "${vars[@]}" > "$work/out.txt" 2>&1; rc=$?
[ $rc != 0 ] && has "rmsnorm_f32.yaml:[0-9]+:[0-9]+: error: unknown key 'tile'" && [ -f kernels.tfat ] \
  && ok "a broken spec fails make (exit $rc) with a diagnostic" || bad "broken spec (exit $rc)"
cp "$work/rms.yaml" specs/rmsnorm_f32.yaml

# Touching a spec rebuilds the archive, the embedded copy and the program.
touch specs/rmsnorm_f32.yaml
make "${vars[@]}" > "$work/out.txt" 2>&1; rc=$?
[ $rc = 0 ] && has "build specs -t" && has "embed kernels.tfat" && has "^all checks passed$" \
  && ok "touching a spec rebuilds the archive and reruns" || bad "touch rebuild (exit $rc)"
[ kernels.tfat -nt specs/rmsnorm_f32.yaml ] && [ app -nt kernels.tfat ] \
  && ok "archive and program are newer than the spec" || bad "timestamps after rebuild"

# With a compile cache, editing one spec recompiles that kernel only: one
# clang run per target, against two (both kernels) for the build that
# filled the cache. An edit that leaves the kernel's identity alone (a
# comment) rebuilds the archive from the cache without running clang.
ntargets=$(echo "$(grep -E '^TESSERAC_TARGETS' Makefile | sed 's/.*= *//')" | tr ',' '\n' | wc -l)
clang_runs() { grep -c '^tesserac: run: .*clang.* -march=' "$work/out.txt"; }
cache_env=(env -u TESSERAC_NO_CACHE TESSERAC_CACHE_DIR="$work/cache" TESSERAC_VERBOSE=1)
touch specs/rmsnorm_f32.yaml
"${cache_env[@]}" make "${vars[@]}" > "$work/out.txt" 2>&1
[ "$(clang_runs)" = $((2 * ntargets)) ] && ok "cold cache: $((2 * ntargets)) clang runs" || bad "cold cache: $(clang_runs) clang runs"
sed -i 's/^eps: 1e-6$/eps: 1e-5/' specs/rmsnorm_f32.yaml
"${cache_env[@]}" make "${vars[@]}" > "$work/out.txt" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(clang_runs)" = "$ntargets" ] && has "^all checks passed$" \
  && ok "an edited spec recompiles that kernel only ($ntargets clang runs)" || bad "edited spec: exit $rc, $(clang_runs) clang runs"
echo "# a comment" >> specs/rmsnorm_f32.yaml
"${cache_env[@]}" make "${vars[@]}" > "$work/out.txt" 2>&1; rc=$?
[ $rc = 0 ] && [ "$(clang_runs)" = 0 ] && has "build specs -t" \
  && ok "a comment-only edit rebuilds the archive from the cache (no clang run)" || bad "comment edit: exit $rc, $(clang_runs) clang runs"
cp "$work/rms.yaml" specs/rmsnorm_f32.yaml

make "${vars[@]}" clean > /dev/null 2>&1
[ -z "$(ls | grep -v -e '^Makefile$' -e '^main.c$' -e '^specs$' -e '^README.md$')" ] \
  && ok "make clean leaves only the sources" || { ls; bad "make clean left files"; }

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/bin/bash
# examples/cmake keeps working through the installed package (issue 15
# item 5): this build is installed into a scratch prefix (`cmake --install`),
# a copy of the example finds it with find_package(tesserac), builds and
# embeds the archive with tesserac_add_archive, runs the program, and
# rebuilds exactly when a spec changes. The pkg-config file of the same
# prefix compiles and links a program too.
# usage: example_cmake.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2; build=$3
for tool in cmake cc pkg-config; do
  command -v $tool > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -f "$build/libtesserart.a" ] || { echo "SKIP: $build/libtesserart.a not built"; exit 77; }
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v2$' | grep -q 'toolchain: /' \
  || { echo "SKIP: no x86 toolchain (tesserac targets)"; exit 77; }
generator="Unix Makefiles"; command -v ninja > /dev/null && generator=Ninja

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# The CMake example reads its specs from ../make/specs: copy both.
mkdir "$work/examples"
cp -r "$src/examples/cmake" "$src/examples/make" "$work/examples/"
ex=$work/examples/cmake; bin=$work/bin; prefix=$work/prefix
pass=0; fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; [ -f "$work/out.txt" ] && sed 's/^/     /' "$work/out.txt"; }
has() { grep -qE -- "$1" "$work/out.txt"; }

cmake --install "$build" --prefix "$prefix" > "$work/out.txt" 2>&1 && ok "cmake --install into a scratch prefix" || bad "install"
for f in bin/tesserac include/tesserart.h include/tesserart_kernel.h lib/libtesserart.so lib/libtesserart.a \
         lib/cmake/tesserac/tesseracConfig.cmake lib/cmake/tesserac/tesseracConfigVersion.cmake \
         lib/cmake/tesserac/tesseracArchive.cmake lib/pkgconfig/tesserart.pc; do
  [ -f "$prefix/$f" ] || bad "installed $f missing"
done
[ "$("$prefix/bin/tesserac" --version 2> /dev/null)" = "$("$tesserac" --version)" ] && ok "installed tesserac runs" || bad "installed tesserac --version"

# pkg-config: a program using the stub compiles and links against the prefix.
cat > "$work/pc.c" << 'EOF2'
#include <stdio.h>
#include "tesserart.h"
int main(void) { printf("%s\n", tsr_status_string(TSR_ERROR_BUFFER_TOO_SMALL)); return 0; }
EOF2
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
if cc -std=c11 "$work/pc.c" $(pkg-config --cflags --libs --static tesserart) -o "$work/pc" -Wl,-rpath,"$prefix/lib" \
     > "$work/out.txt" 2>&1 && "$work/pc" > "$work/out.txt" 2>&1; then
  [ "$(pkg-config --modversion tesserart)" = "$("$tesserac" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)" ] &&
    ok "pkg-config tesserart: compiles, links, runs ($(cat "$work/out.txt"))" || bad "pkg-config version"
else
  bad "pkg-config build"
fi

cmake -S "$ex" -B "$work/unset" -G "$generator" > "$work/out.txt" 2>&1; rc=$?
[ $rc != 0 ] && has "tesseracConfig.cmake" \
  && ok "configure without the package on CMAKE_PREFIX_PATH fails naming tesseracConfig.cmake" || bad "no package (exit $rc)"

cmake -S "$ex" -B "$bin" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" > "$work/out.txt" 2>&1 \
  && ok "configure with find_package(tesserac) ($generator)" || bad "configure"
cmake --build "$bin" > "$work/out.txt" 2>&1 && has "tesserac build -> kernels.tfat" && has "tesserac embed" \
  && ok "build runs tesserac build and embed, links kernels_demo" || bad "build"
grep -q -- "--depfile" "$bin"/build.ninja "$bin"/CMakeFiles/*.dir/build.make 2> /dev/null \
  && ok "the archive's rule uses tesserac's depfile" || bad "no --depfile in the generated build"
grep -q "$prefix/bin/tesserac" "$bin"/build.ninja "$bin"/CMakeFiles/*.dir/build.make 2> /dev/null \
  && ok "the rule runs the installed tesserac" || bad "the rule does not run the installed tesserac"

(cd "$bin" && ./kernels_demo kernels.tfat) > "$work/out.txt" 2>&1; rc=$?
[ $rc = 0 ] && ok "kernels_demo exits 0" || bad "kernels_demo exited $rc"
for source in file embedded; do
  for kernel in mlp_up_bf16 rmsnorm_rows_f32; do
    has "^\[$source\] $kernel: ran variant x86:v[234] via memfd\+dlopen$" \
      && ok "[$source] $kernel loaded and launched" || bad "[$source] $kernel variant line"
  done
  has "^\[$source\] mlp_up_bf16: tokens=5 max_abs_err=[0-9.e+-]+ ok$" && has "^\[$source\] rmsnorm_rows_f32: rows=7 max_abs_err=[0-9.e+-]+ ok$" \
    && ok "[$source] both kernels match the C references" || bad "[$source] checks"
done
has "^\[embedded\] executor: the application's, 1 worker\(s\); " && ok "[embedded] runs on the program's executor" \
  || bad "[embedded] executor line"
has "^\[file\] misuse: .* -> buffer too small \(33\)" && ok "misuse returns TSR_ERROR_BUFFER_TOO_SMALL" || bad "misuse line"
[ "$(tail -n 1 "$work/out.txt")" = "all checks passed" ] && ok "last line: all checks passed" || bad "last line"

stamp=$(stat -c %Y.%y "$bin/kernels.tfat")
cmake --build "$bin" > "$work/out.txt" 2>&1; rc=$?
[ $rc = 0 ] && ! has "tesserac build" && ! has "Linking" && [ "$(stat -c %Y.%y "$bin/kernels.tfat")" = "$stamp" ] \
  && ok "second build does nothing" || bad "second build did work (exit $rc)"
[ "$generator" != Ninja ] || { has "no work to do" && ok "ninja: no work to do" || bad "ninja had work"; }

touch "$work/examples/make/specs/mlp_up_bf16.yaml"
cmake --build "$bin" > "$work/out.txt" 2>&1; rc=$?
[ $rc = 0 ] && has "tesserac build -> kernels.tfat" && has "Linking" \
  && ok "touching a spec rebuilds the archive and relinks" || bad "touch rebuild (exit $rc)"
[ "$bin/kernels.tfat" -nt "$work/examples/make/specs/mlp_up_bf16.yaml" ] && [ "$bin/kernels_demo" -nt "$bin/kernels.tfat" ] \
  && ok "archive and program are newer than the spec" || bad "timestamps after rebuild"
cmake --build "$bin" --target run > "$work/out.txt" 2>&1 && has "^all checks passed$" \
  && ok "the run target passes" || bad "run target"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

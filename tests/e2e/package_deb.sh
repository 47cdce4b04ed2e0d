#!/bin/bash
# The Debian package (issue 15 item 7): `cpack -G DEB` from this build
# writes the same bytes twice under one SOURCE_DATE_EPOCH, holds the
# compiler, libtesserart, its headers, the CMake package and the pkg-config
# file under /usr, and, extracted into a scratch root, builds and runs
# examples/cmake (find_package from the root) and a pkg-config program.
# lintian finds no error and no warning in it (overrides only in
# packaging/debian/lintian-overrides, each with its reason).
# usage: package_deb.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2; build=$3
for tool in cpack dpkg-deb cmake cc pkg-config readelf gzip; do
  command -v $tool > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -f "$build/CPackConfig.cmake" ] || { echo "SKIP: $build/CPackConfig.cmake missing"; exit 77; }
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v2$' | grep -q 'toolchain: /' \
  || { echo "SKIP: no x86 toolchain (tesserac targets)"; exit 77; }
generator="Unix Makefiles"; command -v ninja > /dev/null && generator=Ninja

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; [ -f "$work/out.txt" ] && sed 's/^/     /' "$work/out.txt" | tail -20; }

version=$("$tesserac" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
for n in 1 2; do
  SOURCE_DATE_EPOCH=1764547200 cpack --config "$build/CPackConfig.cmake" -B "$work/pkg$n" > "$work/out.txt" 2>&1 ||
    { bad "cpack run $n"; echo "$pass passed, $fail failed"; exit 1; }
done
deb=$work/pkg1/tesserac_${version}_amd64.deb
[ -f "$deb" ] && ok "cpack wrote $(basename "$deb") ($(stat -c %s "$deb") bytes)" || bad "no $deb"
cmp -s "$deb" "$work/pkg2/$(basename "$deb")" && ok "same SOURCE_DATE_EPOCH, same bytes" || bad "two packages differ"

dpkg-deb -f "$deb" Package Version Architecture > "$work/fields.txt"
[ "$(cat "$work/fields.txt")" = "$(printf 'Package: tesserac\nVersion: %s\nArchitecture: amd64' "$version")" ] &&
  ok "control: tesserac $version amd64" || { bad "control fields"; cat "$work/fields.txt"; }
dpkg-deb -f "$deb" Depends | grep -q "libyaml-cpp" && ok "Depends from dpkg-shlibdeps ($(dpkg-deb -f "$deb" Depends | cut -c1-60)...)" ||
  bad "Depends lacks the compiler's shared libraries"
dpkg-deb -c "$deb" > "$work/list.txt"
for f in ./usr/bin/tesserac ./usr/lib/libtesserart.so.0.1.0 ./usr/lib/libtesserart.a ./usr/include/tesserart.h \
         ./usr/include/tesserart_kernel.h ./usr/lib/cmake/tesserac/tesseracConfig.cmake ./usr/lib/pkgconfig/tesserart.pc \
         ./usr/share/doc/tesserac/copyright ./usr/share/doc/tesserac/changelog.gz ./usr/share/man/man1/tesserac.1.gz \
         ./usr/share/lintian/overrides/tesserac; do
  grep -q " $f\$" "$work/list.txt" || bad "package lacks $f"
done
grep -q " ./usr/lib/libtesserart.so.0.1 -> libtesserart.so.0.1.0\$" "$work/list.txt" &&
  grep -q " ./usr/lib/libtesserart.so -> libtesserart.so.0.1\$" "$work/list.txt" &&
  ok "libtesserart.so.0.1.0 with its soname link and the link-time name" || bad "libtesserart links"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./triggers 2> /dev/null | grep -qx "activate-noawait ldconfig" &&
  ok "the ldconfig trigger" || bad "no ldconfig trigger"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./shlibs 2> /dev/null | grep -qx "libtesserart 0.1 tesserac (= $version)" &&
  ok "shlibs: libtesserart 0.1" || bad "shlibs"
[ "$(dpkg-deb -f "$deb" Maintainer)" = "tesserac maintainers <maintainers@tesserac.dev>" ] && ok "maintainer address" ||
  bad "maintainer: $(dpkg-deb -f "$deb" Maintainer)"
dpkg-deb -f "$deb" Description | grep -q "CUDA" && dpkg-deb -f "$deb" Description | grep -q "HIP" &&
  dpkg-deb -f "$deb" Description | grep -q "XDNA" && ok "the description names CUDA, HIP and XDNA" || bad "description"
[ "$(dpkg-deb -f "$deb" Recommends)" = "clang-14, lld-14, clang-15, lld-15" ] && ok "Recommends the x86 and HIP compilers" ||
  bad "Recommends: $(dpkg-deb -f "$deb" Recommends)"
if command -v lintian > /dev/null; then
  # Every tag is printed (info and overridden ones too); errors and warnings fail.
  lintian --fail-on error,warning "$deb" > "$work/out.txt" 2>&1; rc=$?
  lintian --display-info --show-overrides "$deb" 2> /dev/null | sed 's/^/     /'
  [ $rc = 0 ] && ok "lintian --fail-on error,warning" || bad "lintian (exit $rc)"
else
  bad "lintian not installed (packaging/install-deps.sh installs it)"
fi
awk '{print $4, $5}' "$work/list.txt" | grep -vq "^2025-12-01 00:00$" && bad "a timestamp is not SOURCE_DATE_EPOCH" ||
  ok "every timestamp is SOURCE_DATE_EPOCH"

root=$work/root
dpkg-deb -x "$deb" "$root" && ok "extracted into a scratch root" || bad "dpkg-deb -x"
[ "$("$root/usr/bin/tesserac" --version)" = "$("$tesserac" --version)" ] && ok "packaged tesserac runs" || bad "packaged tesserac"
readelf -d "$root/usr/lib/libtesserart.so.0.1.0" | grep -q 'SONAME.*\[libtesserart\.so\.0\.1\]' &&
  ok "SONAME libtesserart.so.0.1" || bad "SONAME"
gzip -dc "$root/usr/share/doc/tesserac/changelog.gz" | head -1 | grep -q "^tesserac ($version) " &&
  ok "changelog.gz names $version" || bad "changelog.gz"
gzip -dc "$root/usr/share/man/man1/tesserac.1.gz" | grep -q '^\.TH TESSERAC 1 ' && ok "tesserac(1)" || bad "man page"

cat > "$work/pc.c" << 'EOF'
#include <stdio.h>
#include "tesserart.h"
int main(void) { printf("%s\n", tsr_status_string(TSR_ERROR_NO_DEVICE)); return 0; }
EOF
if cc -std=c11 "$work/pc.c" $(PKG_CONFIG_PATH=$root/usr/lib/pkgconfig pkg-config --cflags --libs --static tesserart) \
     -Wl,-rpath,"$root/usr/lib" -o "$work/pc" > "$work/out.txt" 2>&1 && "$work/pc" > "$work/out.txt" 2>&1; then
  ok "pkg-config from the root: compiles, links, runs ($(cat "$work/out.txt"))"
else
  bad "pkg-config program"
fi

mkdir "$work/examples"
cp -r "$src/examples/cmake" "$src/examples/make" "$work/examples/"
cmake -S "$work/examples/cmake" -B "$work/bin" -G "$generator" -DCMAKE_PREFIX_PATH="$root/usr" \
  -DTESSERAC_TARGETS=x86:v2 > "$work/out.txt" 2>&1 && ok "examples/cmake finds the packaged tesserac" || bad "configure"
cmake --build "$work/bin" > "$work/out.txt" 2>&1 && grep -q "$root/usr/bin/tesserac" "$work/bin"/build.ninja "$work/bin"/CMakeFiles/*.dir/build.make 2> /dev/null &&
  ok "it builds with the packaged compiler" || bad "build"
(cd "$work/bin" && ./kernels_demo kernels.tfat) > "$work/out.txt" 2>&1 && [ "$(tail -n 1 "$work/out.txt")" = "all checks passed" ] &&
  ok "kernels_demo: all checks passed" || bad "kernels_demo"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

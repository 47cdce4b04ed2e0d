#!/usr/bin/env bash
# Builds device-carry/: what tests/device/cuda_check.sh needs on a GPU machine
# that lacks this repo's Debian libraries. yaml-cpp and OpenSSL are linked
# statically; libstdc++, libgcc_s and toml++ (no static archive on Debian) are
# shipped in device-carry/lib and found through RPATH $ORIGIN/../lib.
#   tests/device/prepare_carry.sh [REPO_ROOT]
set -euo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
BUILD="$ROOT/build-carry"
CARRY="$ROOT/device-carry"
LIBDIR=/usr/lib/x86_64-linux-gnu

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTESSERAC_BUILD_TESTS=OFF -DTESSERAC_BUILD_BENCH=OFF >/dev/null
ninja -C "$BUILD" -j2 tesserac tesserac_cli tesserac_pipeline tesserac_backends tesserac_core tesserart tesserart_static

rm -rf "$CARRY"
mkdir -p "$CARRY/bin" "$CARRY/lib"

# Relink the CLI from its own link line with the static archives swapped in.
link=$(ninja -C "$BUILD" -t commands tesserac | tail -1 | sed 's/^.*&& *\(\/[^ ]*c++ \)/\1/; s/ && :$//')
link=$(echo "$link" | sed -E "s#$LIBDIR/libyaml-cpp\.so[.0-9]*#$LIBDIR/libyaml-cpp.a#; s#$LIBDIR/libcrypto\.so[.0-9]*#$LIBDIR/libcrypto.a#; s# -o tesserac # -o $CARRY/bin/tesserac #")
(cd "$BUILD" && eval "$link -lpthread -Wl,-rpath,'\$ORIGIN/../lib'")

TOML=$(pkg-config --libs tomlplusplus 2>/dev/null || true)
# The four layers' include roots (docs/architecture.md) and their archives, highest first.
c++ -std=c++20 -O2 -I"$ROOT/src/pipeline" -I"$ROOT/src/backends" -I"$ROOT/src/core" -I"$ROOT/src" -I"$ROOT" \
  -I"$ROOT/runtime-stub/include" -I"$BUILD/generated" \
  -DTESSERAC_CUDA_ROOT='"/usr/local/cuda"' -DTESSERAC_VERSION='"device-check"' \
  "$ROOT/tests/device/cuda_device_check.cc" "$ROOT/tests/device/cuda_device_bench.cc" \
  "$ROOT/tests/device/cuda_primitive_conformance.cc" -o "$CARRY/bin/cuda_device_check" \
  "$BUILD/libtesserac_pipeline.a" "$BUILD/libtesserac_backends.a" "$BUILD/libtesserac_core.a" "$BUILD/libtesserart.a" "$LIBDIR/libyaml-cpp.a" "$LIBDIR/libcrypto.a" \
  $TOML -ldl -lpthread -Wl,-rpath,'$ORIGIN/../lib'

# libtesserart.so.0.1.0 with its soname link and the link-time name.
cp -P "$BUILD"/libtesserart.so* "$CARRY/lib/"
[ -e "$LIBDIR/libtomlplusplus.so.3" ] && cp -L "$LIBDIR/libtomlplusplus.so.3" "$CARRY/lib/"
# The host's libstdc++ is preferred (ours needs glibc 2.36); lib-compat is the
# fallback cuda_check.sh uses when the host's is older than GCC 12's.
mkdir -p "$CARRY/lib-compat"
for lib in libstdc++.so.6 libgcc_s.so.1; do cp -L "$LIBDIR/$lib" "$CARRY/lib-compat/"; done
cp -r "$ROOT/specs" "$CARRY/specs"
# The emulator's outputs of the primitive conformance cases (it needs clang,
# which the GPU machine may lack); cuda_check.sh step 8 compares the GPU's.
mkdir -p "$CARRY/primitives"
"$CARRY/bin/cuda_device_check" primitives-emulate "$CARRY/primitives"
cp "$ROOT/tests/device/cuda_check.sh" "$ROOT/tests/device/attention_peers.py" "$CARRY/"

# What the carried binaries still need from the host: only glibc.
{
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  for b in "$CARRY"/bin/*; do
    echo "== $(basename "$b")"
    ldd "$b" | sed 's/ (0x.*//'
    echo "max GLIBC symbol version: $(objdump -T "$b" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
  done
} > "$CARRY/MANIFEST.txt"
cat "$CARRY/MANIFEST.txt"
du -sh "$CARRY"

#!/bin/bash
# Installs every Debian 12 package tesserac needs to build, test and run its
# demo. Idempotent: packages already present are left as they are.
# The CUDA toolkit is not a Debian package; it is used from /usr/local/cuda
# when present (set TESSERAC_CUDA_ROOT otherwise) and reported unavailable
# when absent.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  clang-14 lld-14 libclang-rt-14-dev llvm-14-dev
  libyaml-cpp-dev libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev libdnnl-dev
  # hip target (issue 12): ROCm 5.2's clang-15 HIP toolchain, headers, device libraries
  hipcc libamdhip64-dev rocm-device-libs clang-15 lld-15
  # xdna target (issue 13): XRT 2.13's xclbin headers and reader, libuuid
  libxrt-dev uuid-dev
  python3
  # the .deb is checked with lintian (tests/e2e/package_deb.sh)
  lintian
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"

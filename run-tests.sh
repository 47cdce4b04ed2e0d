#!/bin/bash
# The whole test suite: install dependencies, build everything, run ctest.
set -euo pipefail
cd "$(dirname "$0")"
packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
cd build
ctest --output-on-failure --timeout 900 -j"$(nproc)"

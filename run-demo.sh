#!/bin/bash
# The main job: install dependencies, build tesserac, compile the shipped
# specs for every available target, run the oracle on this machine, print the
# verdict table, then write, verify and inspect the fat archive out/kernels.tfat.
set -euo pipefail
cd "$(dirname "$0")"
packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target tesserac
echo
./build/tesserac targets
echo
mkdir -p out
./build/tesserac build specs/ -o out/kernels.tfat --json out/verdicts.json "$@"
echo
./build/tesserac verify out/kernels.tfat
./build/tesserac inspect out/kernels.tfat

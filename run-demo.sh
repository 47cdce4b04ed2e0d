#!/bin/bash
# The main job: install dependencies, build tesserac, compile the shipped
# specs for every available target, run the oracle on this machine and print
# the verdict table. Artifacts land in out/.
set -euo pipefail
cd "$(dirname "$0")"
packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target tesserac
echo
./build/tesserac targets
echo
mkdir -p out
./build/tesserac build specs/ --out-dir out/ --json out/verdicts.json "$@"

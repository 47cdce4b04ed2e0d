#!/bin/bash
# The main job: install dependencies, build tesserac, compile the shipped
# specs for every available target, run the oracle on this machine (GPU
# targets without a device in the CPU emulator), print the verdict table,
# write, verify and inspect the fat archive out/kernels.tfat, then qualify it
# on this machine's hardware (its table in out/qualify.txt) and admit the
# receipts into out/kernels.qualified.tfat.
set -euo pipefail
cd "$(dirname "$0")"
packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# tesserart too, so that `cmake --install build --prefix DIR` works afterwards.
cmake --build build --target tesserac tesserart
echo
./build/tesserac targets
echo
mkdir -p out
# --emulate: a GPU target without a device runs its generated source in the
# CPU emulator (PASS_EMULATED, never a hardware PASS; docs/emulator.md).
./build/tesserac build specs/ -o out/kernels.tfat --json out/verdicts.json --emulate "$@"
echo
./build/tesserac verify out/kernels.tfat
./build/tesserac inspect out/kernels.tfat
echo
# Hardware qualification (docs/receipt-format.md): the oracle again on the
# archive's own bytes on this machine, one receipt per hardware PASS, then
# the receipts attached to a copy of the archive.
# Its own table (the variants that ran here) goes to out/qualify.txt, so the
# verdict table above is the one printed; a FAIL prints it in full.
rm -rf out/receipts
./build/tesserac qualify out/kernels.tfat --receipts-out out/receipts > out/qualify.txt \
  || { cat out/qualify.txt; exit 1; }
echo "qualify: $(grep -c '^receipt for ' out/qualify.txt) hardware receipts in out/receipts/ (table: out/qualify.txt)"
./build/tesserac admit out/kernels.tfat --receipts out/receipts -o out/kernels.qualified.tfat
./build/tesserac verify out/kernels.qualified.tfat

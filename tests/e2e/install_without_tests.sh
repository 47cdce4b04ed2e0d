#!/bin/bash
# Installing without building the tests (docs/cmake-package.md): a tree
# configured with -DTESSERAC_BUILD_TESTS=OFF has no test or bench targets
# and, built, installs the whole package; a tree where the installed targets
# are not built (what run-demo.sh left before it built tesserart as well)
# stops `cmake --install` with the command to run, not CMake's
# "file INSTALL cannot find".
# The tests-off tree is built only with TESSERAC_E2E_INSTALL_BUILD=1 (311 s
# of CPU without ccache); otherwise its configure step is checked and
# this build's own tree is installed instead.
# usage: install_without_tests.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2; build=$3
source "$src/tests/e2e/lib/checks.bash"
source "$src/tests/e2e/lib/expect_exact.sh"   # expect_true
command -v cmake > /dev/null || { echo "SKIP: cmake not installed"; exit 77; }
generator="Unix Makefiles"; command -v ninja > /dev/null && generator=Ninja

cmake -S "$src" -B off -G "$generator" -DTESSERAC_BUILD_TESTS=OFF > configure.txt 2>&1
expect_true "configures with -DTESSERAC_BUILD_TESTS=OFF" test $? = 0
grep -q 'TESSERAC_BUILD_BENCH:BOOL=OFF' off/CMakeCache.txt
expect_true "the benchmarks follow the tests (TESSERAC_BUILD_BENCH off)" test $? = 0
expect_true "no tests directory configured" test ! -e off/tests
cmake --build off --target help > targets.txt 2>&1
expect_true "no test or bench target" bash -c "! grep -qE 'tesserac_unit_tests|fuzz_replay|stub_size' targets.txt"
expect_true "the installed targets exist" bash -c "grep -q 'tesserac' targets.txt && grep -q 'tesserart_static' targets.txt"

# Nothing built yet: the install names what to build.
cmake --install off --prefix "$work/none" > install.txt 2>&1; rc=$?
expect_true "cmake --install of an unbuilt tree fails" test $rc != 0
tr -s ' \n' '  ' < install.txt > install.line   # CMake wraps the message
expect_true "and names the command to run" \
  grep -q "tesserac: tesserac is not built; run: cmake --build $work/off --target tesserac tesserart tesserart_static " install.line
expect_true "without CMake's own missing-file error" bash -c "! grep -q 'cannot find' install.txt"

check_tree() {   # PREFIX: what `cmake --install` must leave there
  local p=$1 f
  for f in bin/tesserac include/tesserart.h include/tesserart_kernel.h lib/libtesserart.a lib/libtesserart.so.0.1.0 \
           lib/cmake/tesserac/tesseracConfig.cmake lib/cmake/tesserac/tesseracConfigVersion.cmake \
           lib/cmake/tesserac/tesseracTargets.cmake lib/cmake/tesserac/tesseracArchive.cmake lib/pkgconfig/tesserart.pc \
           share/man/man1/tesserac.1.gz share/doc/tesserac/copyright share/doc/tesserac/changelog.gz; do
    expect_true "installed $f" test -f "$p/$f"
  done
  expect_true "libtesserart.so -> .so.0.1 -> .so.0.1.0" \
    test "$(readlink "$p/lib/libtesserart.so")" = libtesserart.so.0.1 -a "$(readlink "$p/lib/libtesserart.so.0.1")" = libtesserart.so.0.1.0
  expect_true "the installed compiler runs" test "$("$p/bin/tesserac" --version)" = "$("$tesserac" --version)"
}

if [ "${TESSERAC_E2E_INSTALL_BUILD:-0}" = 1 ]; then
  cmake --build off > build.txt 2>&1
  expect_true "the tests-off tree builds" test $? = 0
  cmake --install off --prefix "$work/prefix" > install.txt 2>&1
  expect_true "and installs" test $? = 0
else
  echo "note: TESSERAC_E2E_INSTALL_BUILD=1 also builds the tests-off tree; installing $build instead"
  cmake --install "$build" --prefix "$work/prefix" > install.txt 2>&1
  expect_true "cmake --install of this build" test $? = 0
fi
check_tree "$work/prefix"
finish

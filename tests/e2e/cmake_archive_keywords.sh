#!/bin/bash
# tesserac_add_archive() names a misspelt keyword instead of letting it
# become a value of the list before it ("TARGETS is required"): a project
# that includes packaging/tesseracArchive.cmake is configured (no compiler,
# no build) with each call, and CMake's error text is checked.
# usage: cmake_archive_keywords.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2
command -v cmake > /dev/null || { echo "SKIP: cmake not installed"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
touch "$work/k.yaml"
# configure NAME WANT_RC TEXT ARGS...: one project calling tesserac_add_archive(k ARGS...).
configure() {
  local name=$1 want=$2 text=$3; shift 3
  local dir=$work/$name
  mkdir -p "$dir"
  cat > "$dir/CMakeLists.txt" << EOF2
cmake_minimum_required(VERSION 3.20)
project(keywords NONE)
add_executable(tesserac::tesserac IMPORTED)
set_target_properties(tesserac::tesserac PROPERTIES IMPORTED_LOCATION "$tesserac")
include("$src/packaging/tesseracArchive.cmake")
tesserac_add_archive(k $*)
EOF2
  cmake -S "$dir" -B "$dir/b" > "$dir/out" 2>&1; local rc=$?
  # CMake wraps long messages; compare on one line.
  local said; said=$(tr -s ' \n' ' ' < "$dir/out")
  if { [ "$want" = 0 ] && [ $rc = 0 ]; } || { [ "$want" != 0 ] && [ $rc != 0 ] && [[ "$said" == *"$text"* ]]; }; then
    pass=$((pass+1)); echo "ok   $name"
  else
    fail=$((fail+1)); echo "FAIL $name: exit $rc, want ${want/1/an error with: $text}"; cat "$dir/out"
  fi
}
configure target_for_targets 1 "tesserac_add_archive(k): unknown keyword 'TARGET' (did you mean 'TARGETS'?)" \
  SPECS "$work/k.yaml" TARGET x86:v3
configure spec_for_specs 1 "tesserac_add_archive(k): unknown keyword 'SPEC' (did you mean 'SPECS'?)" \
  SPEC "$work/k.yaml" TARGETS x86:v3
configure embedded_for_embed 1 "tesserac_add_archive(k): unknown keyword 'EMBEDDED' (did you mean 'EMBED'?)" \
  SPECS "$work/k.yaml" TARGETS x86:v3 EMBEDDED
configure no_near_keyword 1 "tesserac_add_archive(k): unknown keyword 'FROB' Call Stack" \
  SPECS "$work/k.yaml" FROB TARGETS x86:v3
# Upper-case values of OUTPUT and OPTIONS are values, not keywords.
configure upper_case_values 0 "" SPECS "$work/k.yaml" TARGETS x86:v3 OUTPUT KERNELS OPTIONS --seed 7 --error-limit 0
configure still_requires_targets 1 "tesserac_add_archive(k): TARGETS is required" SPECS "$work/k.yaml"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

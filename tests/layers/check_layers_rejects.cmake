# That check_layers.cmake fails when it should: each case copies src/ to a
# scratch tree, adds one offending include, runs the checker there and
# expects exit code != 0 and the offence named with its file and line.
#
#   cmake -DROOT=<source dir> -DSCRATCH=<empty dir> -P tests/layers/check_layers_rejects.cmake
cmake_minimum_required(VERSION 3.20)

if(NOT ROOT OR NOT SCRATCH)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -DSCRATCH=<dir> -P check_layers_rejects.cmake")
endif()

set(failures 0)

# case_name, file to edit (under src/), the include line added at its end,
# and a regex the checker's output must match.
function(expect_rejected case_name file include_line expected)
  set(tree "${SCRATCH}/${case_name}")
  file(REMOVE_RECURSE "${tree}")
  file(MAKE_DIRECTORY "${tree}")
  file(COPY "${ROOT}/src" DESTINATION "${tree}")
  file(APPEND "${tree}/src/${file}" "${include_line}\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${tree} -P ${ROOT}/tests/layers/check_layers.cmake
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(NOTICE "FAIL ${case_name}: the checker accepted ${include_line} in src/${file}")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  elseif(NOT "${out}${err}" MATCHES "${expected}")
    message(NOTICE "FAIL ${case_name}: exit ${rc} but not the expected message (${expected}):\n${out}${err}")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  else()
    string(REGEX MATCH "layers: [^\n]*" first "${out}${err}")
    message(STATUS "ok ${case_name}: ${first}")
  endif()
  file(REMOVE_RECURSE "${tree}")
endfunction()

# core includes the pipeline (the oracle): a back-edge two layers up.
expect_rejected(core_includes_pipeline core/spec/kernel_spec.cc "#include \"oracle/oracle.h\""
  "src/core/spec/kernel_spec.cc:[0-9]+: core includes \"oracle/oracle.h\" of pipeline, a higher layer")
# a backend includes the pipeline (what the emulator once did).
expect_rejected(backend_includes_pipeline backends/emulator/emulator.cc "#include \"receipts/receipt_rules.h\""
  "src/backends/emulator/emulator.cc:[0-9]+: backends includes \"receipts/receipt_rules.h\" of pipeline")
# the pipeline includes the cli.
expect_rejected(pipeline_includes_cli pipeline/driver/plan.cc "#include \"cli/option_policy.h\""
  "src/pipeline/driver/plan.cc:[0-9]+: pipeline includes \"cli/option_policy.h\" of cli")
# a backend includes the runtime's private header.
expect_rejected(backend_includes_runtime_private backends/x86/cpu_features.cc "#include \"runtime-stub/src/tsr_cpu_x86.h\""
  "src/backends/x86/cpu_features.cc:[0-9]+: includes the runtime stub's private header")
# a directory cycle inside one layer: support includes spec, which includes support.
expect_rejected(directory_cycle core/support/file_io.cc "#include \"spec/kernel_spec.h\""
  "a cycle between directories: core/spec<->core/support")

if(failures GREATER 0)
  message(FATAL_ERROR "check_layers_rejects: ${failures} case(s) not rejected")
endif()

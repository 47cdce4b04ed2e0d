# tesserac_add_archive(<name> SPECS <spec.yaml>... TARGETS <kind:arch>...
#                      [EMBED] [SYMBOL <c-identifier>] [OUTPUT <file.tfat>]
#                      [OPTIONS <extra tesserac build arguments>...])
#
# Builds the specs into one archive at build time with `tesserac build`,
# which writes a depfile: the archive is rebuilt when a spec, a file it
# names, or the compiler changes, and only then (docs/cmake-package.md).
#
# Without EMBED, <name> is a custom target (part of ALL) producing the
# archive. With EMBED, <name> is a static library holding the archive as
# data (`tesserac embed -o .o`: const unsigned char SYMBOL[] and const
# size_t SYMBOL_size, default SYMBOL <name>_archive) that links
# tesserac::tesserart, so `target_link_libraries(app PRIVATE <name>)` is
# all a program needs. Either way the target's TESSERAC_ARCHIVE property is
# the archive's path.
function(tesserac_add_archive name)
  _tesserac_archive_check_keywords(${name} ${ARGN})
  cmake_parse_arguments(PARSE_ARGV 1 arg "EMBED" "SYMBOL;OUTPUT" "SPECS;TARGETS;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tesserac_add_archive(${name}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SPECS)
    message(FATAL_ERROR "tesserac_add_archive(${name}): SPECS is required (the kernel spec files)")
  endif()
  if(NOT arg_TARGETS)
    message(FATAL_ERROR "tesserac_add_archive(${name}): TARGETS is required (e.g. x86:v3 cuda:sm_90)")
  endif()
  if(arg_SYMBOL AND NOT arg_EMBED)
    message(FATAL_ERROR "tesserac_add_archive(${name}): SYMBOL needs EMBED")
  endif()
  if(NOT arg_OUTPUT)
    set(arg_OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${name}.tfat")
  endif()
  cmake_path(ABSOLUTE_PATH arg_OUTPUT BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  set(specs "")
  foreach(spec IN LISTS arg_SPECS)
    cmake_path(ABSOLUTE_PATH spec BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    list(APPEND specs "${spec}")
  endforeach()
  list(JOIN arg_TARGETS "," targets)
  cmake_path(GET arg_OUTPUT FILENAME archive_name)

  add_custom_command(
    OUTPUT "${arg_OUTPUT}"
    COMMAND tesserac::tesserac build ${specs} -t "${targets}" -o "${arg_OUTPUT}"
            --depfile "${arg_OUTPUT}.d" ${arg_OPTIONS}
    DEPENDS ${specs} tesserac::tesserac
    DEPFILE "${arg_OUTPUT}.d"
    COMMENT "tesserac build -> ${archive_name}"
    VERBATIM)

  if(NOT arg_EMBED)
    add_custom_target(${name} ALL DEPENDS "${arg_OUTPUT}")
  else()
    if(NOT arg_SYMBOL)
      set(arg_SYMBOL "${name}_archive")
    endif()
    set(object "${CMAKE_CURRENT_BINARY_DIR}/${name}_archive.o")
    add_custom_command(
      OUTPUT "${object}"
      COMMAND tesserac::tesserac embed "${arg_OUTPUT}" -o "${object}" --symbol "${arg_SYMBOL}"
      DEPENDS "${arg_OUTPUT}" tesserac::tesserac
      COMMENT "tesserac embed -> ${name}_archive.o"
      VERBATIM)
    set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    add_library(${name} STATIC "${object}")
    set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
    target_link_libraries(${name} INTERFACE tesserac::tesserart)
  endif()
  set_target_properties(${name} PROPERTIES TESSERAC_ARCHIVE "${arg_OUTPUT}")
endfunction()

# A misspelt keyword (TARGET) would otherwise become a value of the list
# before it and surface as "TARGETS is required": name it. A keyword is an
# upper-case word outside the values of SYMBOL, OUTPUT and OPTIONS; the
# suggestion is the keyword it is a prefix of, or that is a prefix of it.
function(_tesserac_archive_check_keywords name)
  set(keywords EMBED SYMBOL OUTPUT SPECS TARGETS OPTIONS)
  set(value_next FALSE)
  set(in_options FALSE)
  foreach(word IN LISTS ARGN)
    if(word IN_LIST keywords)
      set(in_options FALSE)
      if(word STREQUAL "OPTIONS")
        set(in_options TRUE)
      elseif(word STREQUAL "SYMBOL" OR word STREQUAL "OUTPUT")
        set(value_next TRUE)
      endif()
    elseif(value_next)
      set(value_next FALSE)
    elseif(NOT in_options AND word MATCHES "^[A-Z][A-Z_]+$")
      set(hint "")
      foreach(keyword IN LISTS keywords)
        string(FIND "${keyword}" "${word}" word_in_keyword)
        string(FIND "${word}" "${keyword}" keyword_in_word)
        if(hint STREQUAL "" AND (word_in_keyword EQUAL 0 OR keyword_in_word EQUAL 0))
          set(hint " (did you mean '${keyword}'?)")
        endif()
      endforeach()
      message(FATAL_ERROR "tesserac_add_archive(${name}): unknown keyword '${word}'${hint}")
    endif()
  endforeach()
endfunction()

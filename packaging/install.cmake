# Install rules and the CMake package (docs/cmake-package.md):
#   bin/tesserac
#   lib/libtesserart.so, lib/libtesserart.a, include/tesserart.h, include/tesserart_kernel.h
#   lib/cmake/tesserac/  tesseracConfig.cmake, tesseracConfigVersion.cmake,
#                        tesseracTargets*.cmake, tesseracArchive.cmake
#   lib/pkgconfig/tesserart.pc
#   share/man/man1/tesserac.1.gz, share/doc/tesserac/{copyright,changelog.gz},
#   share/lintian/overrides/tesserac (the Debian package's, docs/packaging.md)
# find_package(tesserac) gives tesserac::tesserac (the compiler),
# tesserac::tesserart (shared), tesserac::tesserart_static and
# tesserac_add_archive().
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TSR_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tesserac)

# `cmake --install` of a tree where only some targets were built (run-demo.sh
# builds tesserac and tesserart) stops with the command that builds the rest,
# instead of CMake's "file INSTALL cannot find" on the first missing file.
set(TSR_INSTALLED_TARGETS tesserac)
if(TARGET tesserart)
  list(APPEND TSR_INSTALLED_TARGETS tesserart tesserart_static)
endif()
list(JOIN TSR_INSTALLED_TARGETS " " TSR_INSTALLED_TARGET_NAMES)
foreach(t ${TSR_INSTALLED_TARGETS})
  install(CODE "if(NOT EXISTS \"$<TARGET_FILE:${t}>\")
  message(FATAL_ERROR \"tesserac: $<TARGET_FILE_NAME:${t}> is not built; run: cmake --build ${CMAKE_BINARY_DIR} --target ${TSR_INSTALLED_TARGET_NAMES} (or configure a tree with -DTESSERAC_BUILD_TESTS=OFF for an install without tests: docs/cmake-package.md)\")
endif()")
endforeach()

set_target_properties(tesserart_static PROPERTIES EXPORT_NAME tesserart_static)
install(TARGETS tesserac EXPORT tesseracTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET tesserart)
  install(TARGETS tesserart tesserart_static EXPORT tesseracTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES runtime-stub/include/tesserart.h runtime-stub/include/tesserart_kernel.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
install(EXPORT tesseracTargets NAMESPACE tesserac:: DESTINATION ${TSR_CMAKE_INSTALL_DIR})

configure_package_config_file(packaging/tesseracConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/package/tesseracConfig.cmake
                              INSTALL_DESTINATION ${TSR_CMAKE_INSTALL_DIR})
# 0.x: a minor version may change the archive format or the C API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/package/tesseracConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/package/tesseracConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/package/tesseracConfigVersion.cmake
              packaging/tesseracArchive.cmake
        DESTINATION ${TSR_CMAKE_INSTALL_DIR})

# pkg-config for the runtime stub; paths relative to the .pc file's prefix.
file(RELATIVE_PATH TSR_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(packaging/tesserart.pc.in ${CMAKE_CURRENT_BINARY_DIR}/package/tesserart.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/package/tesserart.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The manual page and the Debian package's documentation (docs/packaging.md),
# compressed at configure time so that an install needs nothing built for
# them; gzip -9n stores no name or time, so the bytes are reproducible.
foreach(f tesserac.1 debian/changelog)
  get_filename_component(name ${f} NAME)
  configure_file(packaging/${f} ${CMAKE_CURRENT_BINARY_DIR}/package/${name} COPYONLY)
  execute_process(COMMAND gzip -9n -c ${CMAKE_CURRENT_BINARY_DIR}/package/${name}
                  OUTPUT_FILE ${CMAKE_CURRENT_BINARY_DIR}/package/${name}.gz COMMAND_ERROR_IS_FATAL ANY)
endforeach()
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/package/tesserac.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES packaging/debian/copyright ${CMAKE_CURRENT_BINARY_DIR}/package/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES packaging/debian/lintian-overrides RENAME tesserac DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides)

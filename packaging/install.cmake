# Install rules and the CMake package (docs/cmake-package.md):
#   bin/tesserac
#   lib/libtesserart.so, lib/libtesserart.a, include/tesserart.h, include/tesserart_kernel.h
#   lib/cmake/tesserac/  tesseracConfig.cmake, tesseracConfigVersion.cmake,
#                        tesseracTargets*.cmake, tesseracArchive.cmake
#   lib/pkgconfig/tesserart.pc
# find_package(tesserac) gives tesserac::tesserac (the compiler),
# tesserac::tesserart (shared), tesserac::tesserart_static and
# tesserac_add_archive().
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TSR_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tesserac)

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

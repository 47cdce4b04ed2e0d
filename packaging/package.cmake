# `cpack -G DEB` (docs/packaging.md): one Debian package with the compiler,
# libtesserart (shared and static), its headers, the CMake package and the
# pkg-config file, installed under /usr. Binaries are stripped; the
# shared-library dependencies come from dpkg-shlibdeps; SOURCE_DATE_EPOCH,
# when set, is every timestamp in the package (CPack DEB, CMake >= 3.13).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tesserac)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the tesserac project")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ahead-of-time kernel compiler with an oracle, fat archives and a small C runtime")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_FILE_NAME "tesserac_${PROJECT_VERSION}_amd64")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "tesserac engineers <tesserac@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The x86 target compiles with clang at build time; without it x86 targets
# report their toolchain missing (tesserac targets).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-14, lld-14")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "tesserac reads YAML kernel specs, emits C for x86 and CUDA for NVIDIA GPUs,\n runs an oracle differential test and packs the kernels into one versioned\n archive that the libtesserart runtime stub loads and launches.")
include(CPack)

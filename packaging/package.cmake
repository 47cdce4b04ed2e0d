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
# A project address, not a person's (docs/packaging.md).
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "tesserac maintainers <maintainers@tesserac.dev>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# DEBIAN/shlibs for libtesserart.so.0.1, and the ldconfig trigger instead of
# the ldconfig calls CPack would write into postinst and postrm (ours do not).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/triggers
    ${PROJECT_SOURCE_DIR}/packaging/debian/postinst ${PROJECT_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Compilers found at run time (tesserac targets): clang-14 and lld-14 for x86,
# clang-15 and lld-15 for HIP (device code only, -nogpulib -nogpuinc: no ROCm
# headers or device libraries). Without them those targets report their
# toolchain missing. The CUDA toolkit is not a Debian package.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-14, lld-14, clang-15, lld-15")
# What libtesserart dlopens to launch on a device: ROCm's HIP runtime, XRT.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libamdhip64-5, libxrt1")
# The extended description, one line per "\n" (CPack indents each by one space).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "tesserac reads YAML kernel specs and emits C for x86 CPUs, CUDA C++ for\nNVIDIA GPUs (PTX and cubins through NVRTC, from a CUDA toolkit that is not\npart of this package) and HIP C++ for AMD GPUs (code objects with clang-15).\nFor AMD XDNA NPUs it packs device artifacts that an AIE toolchain built into\nxclbins (a closed manifest of two kernels). It runs an oracle differential\ntest on the hardware present (GPU targets without a device in a CPU\nemulator, reported as emulated, never as a hardware pass) and packs the\nkernels into one versioned archive that the libtesserart runtime loads and\nlaunches.")
include(CPack)

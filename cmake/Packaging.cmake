# Packages of one build (docs/install.md): `--target package` (CPack) writes
# build/packages/gestell_<v>_<arch>.deb and gestell-<v>-linux-<cpu>.tar.gz,
# `--target wheel` writes build/packages/gestell-<v>-py3-none-<platform>.whl
# (tools/make_wheel.py). The version is project(VERSION) everywhere.

# The copyright file (Debian's place for it) with the third-party notices of
# what is compiled in, and the project's LICENSE, in every package.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright
              ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(GESTELL_PACKAGE_DIR ${CMAKE_BINARY_DIR}/packages)
set(GESTELL_PACKAGE_MAINTAINER "gestell developers <gestell@users.noreply.github.com>"
  CACHE STRING "Maintainer field of the .deb")

set(CPACK_PACKAGE_NAME gestell)
set(CPACK_PACKAGE_VENDOR gestell)
set(CPACK_PACKAGE_CONTACT "${GESTELL_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/gestell/gestell")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "static analyzer for Triton compiler output (TTGIR, PTX, SASS, cubin)")
set(CPACK_PACKAGE_DESCRIPTION "\
gestell lints the artifacts a Triton compile leaves behind (a Triton cache or
a TRITON_DUMP_DIR) like clang-tidy, with checks from plugins and TOML rule
packs, reports text, JSON or SARIF for GitHub code scanning, and diffs the
compiled output of two builds. It needs no GPU. The package holds the
gestell binary, its built-in check modules and rule packs, and the SDK
(headers and CMake package) for building check plugins.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_OUTPUT_FILE_PREFIX ${GESTELL_PACKAGE_DIR})
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_STRIP_FILES ON)            # the build is RelWithDebInfo
set(CPACK_PACKAGE_FILE_NAME
  "gestell-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR}")

# .deb: /usr, libraries in /usr/lib/<multiarch> (GNUInstallDirs), Depends
# computed by dpkg-shlibdeps from what the ELF files NEED (libc6, libstdc++6,
# libgcc-s1). A shlibs control file for libgestell.so.0, so that a packaged
# plugin's Depends names this exact version (the SDK's C++ ABI); written
# here because CPack's GENERATE_SHLIBS warns about every plugin, which has no
# soname. CPack adds the postinst and postrm that run ldconfig.
set(GESTELL_DEB_CONTROL ${CMAKE_BINARY_DIR}/deb-control)
file(WRITE ${GESTELL_DEB_CONTROL}/shlibs
  "libgestell ${PROJECT_VERSION_MAJOR} gestell (= ${PROJECT_VERSION})\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${GESTELL_DEB_CONTROL}/shlibs)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Building a plugin against the SDK (find_package(gestell)) needs LLVM's
# headers and CMake package of the same major version.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
  "llvm-${LLVM_VERSION_MAJOR}-dev, cmake, g++ | clang")

include(CPack)

# The wheel: the stripped install tree, zipped by tools/make_wheel.py, which
# refuses a NEEDED library outside glibc and libstdc++ and names the platform
# after the newest GLIBC_ symbol version the ELF files reference.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_custom_target(wheel
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tools/make_wheel.py
          --build ${CMAKE_BINARY_DIR} --cmake ${CMAKE_COMMAND}
          --version ${PROJECT_VERSION} --libdir ${CMAKE_INSTALL_LIBDIR}
          --datadir ${CMAKE_INSTALL_DATADIR} --docdir ${CMAKE_INSTALL_DOCDIR}
          --out ${GESTELL_PACKAGE_DIR}
  COMMENT "Writing the wheel into ${GESTELL_PACKAGE_DIR}"
  VERBATIM USES_TERMINAL)
add_dependencies(wheel gestell gestell-sdk gestell-triton gestell-nvidia)

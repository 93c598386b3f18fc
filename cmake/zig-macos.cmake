# Cross-builds mcphealth for macOS on Linux with zig's clang, which bundles Apple's SDK headers (macOS 11-13) and
# libSystem's link stubs: scripts/test --macos-cross and scripts/release use it; docs/developing.md says where zig
# comes from. The binaries are linked here and never run here.
#   cmake -S . -B build-macos-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/zig-macos.cmake \
#         -DMCPHEALTH_TARGET=aarch64-macos -DMCPHEALTH_ZIG=/path/to/zig
# MCPHEALTH_TARGET is aarch64-macos or x86_64-macos; MCPHEALTH_ZIG the zig 0.11 binary (else `zig` on PATH).
# The libraries mcphealth builds with are header-only here as on Linux (Boost, CLI11, spdlog over fmt, toml++,
# libcurl's headers, Catch2): they are taken from the host's include folder (MCPHEALTH_HOST_INCLUDE, /usr/include),
# one folder each, never the folder itself, whose C library headers are Linux's (cmake/cross_headers.cmake).
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MCPHEALTH_TARGET MCPHEALTH_ZIG MCPHEALTH_HOST_INCLUDE)
if(NOT MCPHEALTH_TARGET)
  set(MCPHEALTH_TARGET aarch64-macos)
endif()
if(MCPHEALTH_TARGET STREQUAL "aarch64-macos")
  set(CMAKE_SYSTEM_PROCESSOR arm64)
elseif(MCPHEALTH_TARGET STREQUAL "x86_64-macos")
  set(CMAKE_SYSTEM_PROCESSOR x86_64)
else()
  message(FATAL_ERROR "MCPHEALTH_TARGET is aarch64-macos or x86_64-macos, not '${MCPHEALTH_TARGET}'")
endif()
if(NOT MCPHEALTH_ZIG)
  find_program(MCPHEALTH_ZIG zig REQUIRED)
endif()
set(CMAKE_SYSTEM_NAME Darwin)
# The oldest macOS zig 0.11 has headers for: what the binaries say they need (LC_BUILD_VERSION's minos).
set(CMAKE_OSX_DEPLOYMENT_TARGET 11.0 CACHE STRING "")
set(CMAKE_C_COMPILER ${MCPHEALTH_ZIG} cc)
set(CMAKE_CXX_COMPILER ${MCPHEALTH_ZIG} c++)
# zig's llvm-ar and llvm-ranlib, named as zig's subcommands (CMAKE_AR is one program, so the rules name them).
foreach(lang C CXX)
  set(CMAKE_${lang}_ARCHIVE_CREATE "${MCPHEALTH_ZIG} ar qc <TARGET> <LINK_FLAGS> <OBJECTS>")
  set(CMAKE_${lang}_ARCHIVE_APPEND "${MCPHEALTH_ZIG} ar q <TARGET> <LINK_FLAGS> <OBJECTS>")
  set(CMAKE_${lang}_ARCHIVE_FINISH "${MCPHEALTH_ZIG} ranlib <TARGET>")
endforeach()
set(CMAKE_C_COMPILER_TARGET ${MCPHEALTH_TARGET}.11.0-none)
set(CMAKE_CXX_COMPILER_TARGET ${MCPHEALTH_TARGET}.11.0-none)
# Nothing of the host's is searched for libraries or programs of the target.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

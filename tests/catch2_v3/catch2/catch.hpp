#pragma once
// Catch2 3 (Homebrew, Arch) where the tests are written to Catch2 2's single header (Debian 12's): tests/CMakeLists.txt
// puts this folder first on the include path when it finds Catch2 3. The tests use only what both versions share
// (TEST_CASE, SECTION, CHECK, REQUIRE, INFO, Catch::Session). Not built here: Debian 12 has Catch2 2 alone.
#include <catch2/catch_all.hpp>

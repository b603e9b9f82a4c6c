# `cmake --install`: Veil as a library. Installs the floors' static libraries, the public headers
# (include/veil/, without the testing-only crypto/testing/), a CMake package (find_package(Veil):
# Veil::base, Veil::sqlite, Veil::crypto, Veil::ec, Veil::zk, Veil::ledger, Veil::net, Veil::guardian, each
# linking the floors below it and its own dependencies) with a version file, and pkg-config files:
# veil.pc (every floor) and veil-FLOOR.pc (one floor and the floors below it). tests/install/check
# builds a program outside the tree against both.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The floors as they link, bottom up; a floor whose directory is absent is left out.
set(veil_floors base sqlite crypto ec zk ledger net guardian)
set(veil_installed_targets)
foreach(floor IN LISTS veil_floors)
  if(TARGET veil_${floor})
    set_target_properties(veil_${floor} PROPERTIES EXPORT_NAME ${floor})
    list(APPEND veil_installed_targets veil_${floor})
  endif()
endforeach()
# Consumers compile Veil's headers as C++20.
target_compile_features(veil_base PUBLIC cxx_std_20)
# The floors link veil_options privately, so a static floor's link interface names it: exported
# as Veil::options, with the warnings and paths it gives this build's own compiles left behind
# (cmake/VeilWarnings.cmake keeps them to the build tree) and only the link options a consumer
# needs (-fsanitize for a sanitizer build's libraries).
set_target_properties(veil_options PROPERTIES EXPORT_NAME options)

install(TARGETS veil_options ${veil_installed_targets}
  EXPORT VeilTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/veil
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h"
  PATTERN "testing" EXCLUDE)

set(veil_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Veil)
install(EXPORT VeilTargets NAMESPACE Veil:: DESTINATION ${veil_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/install/VeilConfig.cmake.in
  ${PROJECT_BINARY_DIR}/VeilConfig.cmake INSTALL_DESTINATION ${veil_cmake_dir})
# The interfaces change between minor versions while Veil is below 1.0.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/VeilConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/VeilConfig.cmake ${PROJECT_BINARY_DIR}/VeilConfigVersion.cmake
  DESTINATION ${veil_cmake_dir})

# pkg-config: each floor's file requires the floor (or floors) it links and the pkg-config
# modules of its dependencies; the libraries are static, so a dependency a floor links privately
# is required all the same (plain `pkg-config --libs` reads Requires, not Requires.private).
set(veil_pc_base "libsodium >= 1.0.18 nlohmann_json >= 3.11")
set(veil_pc_sqlite "veil-base sqlite3")
set(veil_pc_crypto "veil-base libsodium >= 1.0.18 libcrypto >= 3.0")
set(veil_pc_ec "veil-crypto")
set(veil_pc_zk "veil-ec libsodium >= 1.0.18")
set(veil_pc_ledger "veil-crypto veil-ec veil-sqlite sqlite3 nlohmann_json >= 3.11 libpq >= 15 simdjson >= 3.0")
set(veil_pc_net
  "veil-crypto nlohmann_json >= 3.11 cpp-httplib >= 0.11 libssl >= 3.0 libcrypto >= 3.0")
set(veil_pc_guardian "veil-net veil-crypto veil-sqlite nlohmann_json >= 3.11 sqlite3")
# Relocatable: the prefix is found from the file's own place (pkg-config's ${pcfiledir}), so
# `cmake --install --prefix DIR` gives files that are right in DIR.
set(VEIL_PC_PREFIX "\${pcfiledir}")
string(REPLACE "/" ";" veil_pc_depth "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
foreach(component IN LISTS veil_pc_depth)
  string(APPEND VEIL_PC_PREFIX "/..")
endforeach()
set(VEIL_PC_LINK_OPTIONS "")
if(VEIL_SANITIZE)
  set(VEIL_PC_LINK_OPTIONS " -fsanitize=address,undefined")
endif()
set(veil_pc_all)
foreach(floor IN LISTS veil_floors)
  if(NOT TARGET veil_${floor})
    continue()
  endif()
  set(VEIL_PC_NAME veil-${floor})
  set(VEIL_PC_DESCRIPTION "Veil's ${floor} floor")
  set(VEIL_PC_REQUIRES "${veil_pc_${floor}}")
  set(VEIL_PC_LIBS "-L\${libdir} -lveil_${floor}")
  if(floor STREQUAL "net")
    string(APPEND VEIL_PC_LIBS " -pthread")
  endif()
  string(APPEND VEIL_PC_LIBS "${VEIL_PC_LINK_OPTIONS}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/install/veil.pc.in
    ${PROJECT_BINARY_DIR}/pkgconfig/veil-${floor}.pc @ONLY)
  list(APPEND veil_pc_all veil-${floor})
endforeach()
set(VEIL_PC_NAME veil)
set(VEIL_PC_DESCRIPTION "Veil: a cryptographic core with a ledger and a key guardian")
list(JOIN veil_pc_all " " VEIL_PC_REQUIRES)
set(VEIL_PC_LIBS "")
configure_file(${PROJECT_SOURCE_DIR}/cmake/install/veil.pc.in
  ${PROJECT_BINARY_DIR}/pkgconfig/veil.pc @ONLY)
install(DIRECTORY ${PROJECT_BINARY_DIR}/pkgconfig/ DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  FILES_MATCHING PATTERN "*.pc")

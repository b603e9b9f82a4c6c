# One place for compiler flags shared by every target of the project. Its compile options are the
# build tree's own (BUILD_INTERFACE): the installed package (cmake/VeilInstall.cmake) exports this
# target for its link options alone, which a consumer of a sanitizer build's libraries needs.
add_library(veil_options INTERFACE)
target_compile_options(veil_options INTERFACE
  "$<BUILD_INTERFACE:-Wall;-Wextra;-Wpedantic;-Wshadow;-Wconversion;-Wsign-conversion>"
  "$<BUILD_INTERFACE:-Wnon-virtual-dtor;-Wold-style-cast;-Wcast-align>"
  "$<BUILD_INTERFACE:-Wimplicit-fallthrough;-Wformat=2>")
# Paths in debug info and __FILE__ relative to the source tree: an object does not depend on
# where the tree is checked out, so ccache (scripts/test gives it the tree as base_dir) serves one
# clone's objects to the next.
target_compile_options(veil_options INTERFACE
  "$<BUILD_INTERFACE:-ffile-prefix-map=${PROJECT_SOURCE_DIR}/=>")
if(VEIL_WERROR)
  target_compile_options(veil_options INTERFACE $<BUILD_INTERFACE:-Werror>)
endif()
if(VEIL_SANITIZE)
  target_compile_options(veil_options INTERFACE
    "$<BUILD_INTERFACE:-fsanitize=address,undefined;-fno-sanitize-recover=all>"
    "$<BUILD_INTERFACE:-fno-omit-frame-pointer>")
  target_link_options(veil_options INTERFACE -fsanitize=address,undefined)
endif()
if(VEIL_BUILD_FUZZ)
  # Coverage instrumentation for libFuzzer in every library the fuzz targets link.
  target_compile_options(veil_options INTERFACE $<BUILD_INTERFACE:-fsanitize=fuzzer-no-link>)
endif()

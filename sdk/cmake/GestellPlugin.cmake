# gestell_add_plugin(NAME SOURCES...): a check module as gestell loads it: a
# shared library named NAME.so (no "lib" prefix) that links the one
# libgestell.so, exports only its entry point, and is C++20 like the SDK.
# Used by the built-in modules and by plugins built against an installed SDK.
function(gestell_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    CXX_STANDARD 20
    CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${name} PRIVATE gestell::sdk)
  # A plugin must not resolve symbols from anything but what it links.
  target_link_options(${name} PRIVATE LINKER:--no-undefined)
endfunction()

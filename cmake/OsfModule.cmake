# osf_module(NAME DIR [DEPS ...]): a static library from every .cpp in DIR, so
# adding a file needs no CMake edit. Headers live beside the sources and are
# included as "<module>/<file>.hpp" relative to the parent of DIR.
function(osf_module name dir)
  file(GLOB sources CONFIGURE_DEPENDS "${dir}/*.cpp")
  list(FILTER sources EXCLUDE REGEX ".*_main\\.cpp$")
  get_filename_component(parent "${dir}" DIRECTORY)
  if(sources)
    add_library(${name} STATIC ${sources})
    target_include_directories(${name} PUBLIC "${parent}")
    target_link_libraries(${name} PUBLIC ${ARGN})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE "${parent}")
    target_link_libraries(${name} INTERFACE ${ARGN})
  endif()
endfunction()

# CPACK_PROJECT_CONFIG_FILE (cmake/Packaging.cmake), read by cpack: each Debian
# package's Depends from dpkg-shlibdeps run with the dpkg database of the root
# file system whose glibc the programs are linked against, so they name the
# oldest libc6 the binaries need (Debian 11's symbols files), not the build
# machine's. Replaces CPackDeb's own dpkg-shlibdeps run, which reads only the
# build machine's database.
if(NOT CPACK_GENERATOR STREQUAL "DEB" OR NOT CPACK_OSF_SHLIBDEPS_ADMINDIR)
  return()
endif()
if(NOT EXISTS "${CPACK_OSF_SHLIBDEPS_ADMINDIR}/status")
  message(FATAL_ERROR "no dpkg database in ${CPACK_OSF_SHLIBDEPS_ADMINDIR} (packaging/static/glibc-sysroot.sh)")
endif()
find_program(OSF_DPKG_SHLIBDEPS dpkg-shlibdeps REQUIRED)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
# dpkg-shlibdeps wants to run in a source package's directory.
if(NOT CPACK_PACKAGE_DIRECTORY)
  message(FATAL_ERROR "CPACK_PACKAGE_DIRECTORY is not set")
endif()
set(shlibdeps_dir "${CPACK_PACKAGE_DIRECTORY}/_osf_shlibdeps")
file(MAKE_DIRECTORY "${shlibdeps_dir}/debian")
file(WRITE "${shlibdeps_dir}/debian/control" "")
foreach(component IN LISTS CPACK_COMPONENTS_ALL)
  string(TOUPPER "${component}" upper)
  set(binary "${CPACK_OSF_BINARY_${upper}}")
  execute_process(
    COMMAND ${OSF_DPKG_SHLIBDEPS} "--admindir=${CPACK_OSF_SHLIBDEPS_ADMINDIR}" -O "${binary}"
    WORKING_DIRECTORY "${shlibdeps_dir}"
    OUTPUT_VARIABLE shlibdeps
    ERROR_VARIABLE shlibdeps_error
    RESULT_VARIABLE shlibdeps_result
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT shlibdeps_result EQUAL 0 OR NOT shlibdeps MATCHES "^shlibs:Depends=")
    message(FATAL_ERROR "dpkg-shlibdeps ${binary}: ${shlibdeps_error}")
  endif()
  # A symbol the root's libraries lack would be left out of Depends silently:
  # the binary was not linked against that root.
  if(shlibdeps_error MATCHES "found in none of the libraries")
    file(REMOVE_RECURSE "${shlibdeps_dir}")
    message(FATAL_ERROR "${binary} needs symbols that ${CPACK_OSF_SHLIBDEPS_ADMINDIR}'s libraries "
                        "lack (not linked against that root?): ${shlibdeps_error}")
  endif()
  string(REGEX REPLACE "^shlibs:Depends=" "" shlibdeps "${shlibdeps}")
  if(DEFINED CPACK_DEBIAN_${upper}_PACKAGE_DEPENDS)
    set(CPACK_DEBIAN_${upper}_PACKAGE_DEPENDS "${CPACK_DEBIAN_${upper}_PACKAGE_DEPENDS}, ${shlibdeps}")
  else()
    set(CPACK_DEBIAN_${upper}_PACKAGE_DEPENDS "${shlibdeps}")
  endif()
endforeach()
file(REMOVE_RECURSE "${shlibdeps_dir}")

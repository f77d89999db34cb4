# Debian packages (CPack's DEB generator), one per program, from whatever the
# build preset linked: the static preset's binaries, so egress-proxy and
# sandbox-kubernetes install on Debian 11 and newer, sandbox-local (bubblewrap
# 0.8) on Debian 12 and newer (packaging/README.md). dpkg-shlibdeps computes
# Depends from the binaries, against the symbols files of the glibc they are
# linked against (cmake/PackagingDepends.cmake). The man pages
# (packaging/man-pages.sh: help2man, from each program's and each subcommand's
# --help) and the bash completions (--bash-completion) are made from the built
# programs, so they describe exactly the options they accept.
option(OSF_PACKAGE_DOCS "Make man pages and bash completions to install (needs help2man)" OFF)

set(osf_packaged_programs egress-proxy sandbox-kubernetes)
if(TARGET sandbox-local)
  list(APPEND osf_packaged_programs sandbox-local)
endif()
set(osf_summary_egress-proxy "per-sandbox egress proxy: host allowlist, TLS interception, secrets, MCP filtering")
set(osf_summary_sandbox-kubernetes "agent-sandbox sandboxes on Kubernetes behind their own egress proxy")
set(osf_summary_sandbox-local "sandboxes on this machine (bubblewrap, loopback only) behind their own egress proxy")

if(OSF_PACKAGE_DOCS)
  find_program(OSF_HELP2MAN help2man REQUIRED)
  set(docs_dir "${CMAKE_BINARY_DIR}/packaging")
  set(docs_outputs)
  foreach(program IN LISTS osf_packaged_programs)
    # PROGRAM(1) and one PROGRAM-SUBCOMMAND(1) per subcommand (packaging/man-pages.sh).
    set(man_dir "${docs_dir}/man/${program}")
    set(man_stamp "${docs_dir}/man/${program}.stamp")
    set(completion "${docs_dir}/completions/${program}")
    add_custom_command(
      OUTPUT "${man_stamp}" "${completion}"
      COMMAND "${PROJECT_SOURCE_DIR}/packaging/man-pages.sh" $<TARGET_FILE:${program}> ${program}
              "${osf_summary_${program}}" "${man_dir}"
      COMMAND ${CMAKE_COMMAND} -E touch "${man_stamp}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${docs_dir}/completions"
      COMMAND sh -c "\"$0\" --bash-completion > \"$1\"" $<TARGET_FILE:${program}> "${completion}"
      DEPENDS ${program} "${PROJECT_SOURCE_DIR}/packaging/man-pages.sh"
      COMMENT "man pages and bash completion of ${program}"
      VERBATIM)
    list(APPEND docs_outputs "${man_stamp}" "${completion}")
    install(DIRECTORY "${man_dir}/" DESTINATION share/man/man1 COMPONENT ${program}
            FILES_MATCHING PATTERN "*.1.gz")
    install(FILES "${completion}" DESTINATION share/bash-completion/completions COMPONENT ${program})
  endforeach()
  add_custom_target(osf_package_docs ALL DEPENDS ${docs_outputs})
endif()

# The licence (Apache-2.0) and the notices of what the static binaries link in:
# Debian's place for them is /usr/share/doc/<package>/copyright (DEP-5, made by
# packaging/third-party-notices.py), with LICENSE, NOTICE (Apache-2.0 section
# 4) and THIRD-PARTY-NOTICES (the full texts) beside it.
foreach(program IN LISTS osf_packaged_programs)
  install(FILES "${PROJECT_SOURCE_DIR}/packaging/debian/copyright" "${PROJECT_SOURCE_DIR}/LICENSE"
                "${PROJECT_SOURCE_DIR}/NOTICE" "${PROJECT_SOURCE_DIR}/THIRD-PARTY-NOTICES"
          DESTINATION share/doc/${program} COMPONENT ${program})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME osf-sandbox)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "osf-sandbox maintainers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${osf_packaged_programs})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # name_version-release_arch.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Linked against an older glibc (the static preset's Debian 11 root): Depends
# from that root's symbols files, not the build machine's, which date symbols
# by the newer glibc (Debian 12 dates all of libdl to 2.34). The project config
# file runs dpkg-shlibdeps with the root's dpkg database at cpack time.
if(OSF_GLIBC_SYSROOT)
  set(CPACK_OSF_SHLIBDEPS_ADMINDIR "${OSF_GLIBC_SYSROOT}/var/lib/dpkg")
  foreach(program IN LISTS osf_packaged_programs)
    get_target_property(binary_dir ${program} BINARY_DIR)
    string(TOUPPER "${program}" component)
    set(CPACK_OSF_BINARY_${component} "${binary_dir}/${program}")
  endforeach()
  set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_LIST_DIR}/PackagingDepends.cmake")
endif()
# Inter-package Depends (sandbox-local on egress-proxy) name the same version.
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_EGRESS-PROXY_PACKAGE_NAME egress-proxy)
set(CPACK_DEBIAN_EGRESS-PROXY_PACKAGE_SECTION net)
set(CPACK_COMPONENT_EGRESS-PROXY_DESCRIPTION "${osf_summary_egress-proxy}
One runs per sandbox, as its only way out: it allows the hosts the sandbox
spec names, intercepts TLS with an in-memory CA, substitutes secret
placeholders, filters MCP tools and writes a JSON-lines egress log.")
set(CPACK_DEBIAN_SANDBOX-KUBERNETES_PACKAGE_NAME sandbox-kubernetes)
set(CPACK_DEBIAN_SANDBOX-KUBERNETES_PACKAGE_SECTION admin)
# It drives the cluster through kubectl; Debian 12's kubernetes-client is too
# old for exec over WebSocket, so recommend the Kubernetes project's package.
set(CPACK_DEBIAN_SANDBOX-KUBERNETES_PACKAGE_RECOMMENDS kubectl)
set(CPACK_COMPONENT_SANDBOX-KUBERNETES_DESCRIPTION "${osf_summary_sandbox-kubernetes}
The CLI creates kubernetes-sigs/agent-sandbox claims, each with its own
egress proxy pod, and runs commands, copies files, takes snapshots and reads
the egress log of those sandboxes, through kubectl.")
set(CPACK_DEBIAN_SANDBOX-LOCAL_PACKAGE_NAME sandbox-local)
set(CPACK_DEBIAN_SANDBOX-LOCAL_PACKAGE_SECTION admin)
# It runs bwrap (--disable-userns: bubblewrap 0.8, Debian 12's) and the
# egress-proxy next to it or in PATH; image templates need buildah, and root.
set(CPACK_COMPONENT_SANDBOX-LOCAL_DEPENDS egress-proxy)
set(CPACK_DEBIAN_SANDBOX-LOCAL_PACKAGE_DEPENDS "bubblewrap (>= 0.8.0)")
set(CPACK_DEBIAN_SANDBOX-LOCAL_PACKAGE_SUGGESTS buildah)
set(CPACK_COMPONENT_SANDBOX-LOCAL_DESCRIPTION "${osf_summary_sandbox-local}
The same commands and specs as sandbox-kubernetes, without a cluster: each
sandbox is a bubblewrap sandbox in its own namespaces whose network holds
only loopback; its egress proxy, outside that namespace, is its only way out.
Templates: the host's root read-only, a root file system directory, a
snapshot, or an image in buildah's local storage (root only).")
include(CPack)

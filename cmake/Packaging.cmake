# Debian packages (CPack's DEB generator), one per program, from whatever the
# build preset linked: the static preset's binaries, so the packages install on
# Debian 11 and newer (packaging/README.md). dpkg-shlibdeps computes Depends from
# the binaries. The man pages (help2man, from --help and --version) and the bash
# completions (--bash-completion) are made from the built programs, so they
# describe exactly the options they accept.
option(OSF_PACKAGE_DOCS "Make man pages and bash completions to install (needs help2man)" OFF)

set(osf_packaged_programs egress-proxy sandbox-kubernetes)
set(osf_summary_egress-proxy "per-sandbox egress proxy: host allowlist, TLS interception, secrets, MCP filtering")
set(osf_summary_sandbox-kubernetes "agent-sandbox sandboxes on Kubernetes behind their own egress proxy")

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
include(CPack)

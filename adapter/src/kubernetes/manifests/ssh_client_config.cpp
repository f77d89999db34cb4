#include "kubernetes/manifests/ssh_client_config.hpp"

namespace osf::kubernetes::manifests {

std::string ssh_client_config(const std::string& proxy_host, int proxy_port) {
    // ssh expands %h and %p and wants every other % doubled. bash reads the
    // proxy's answer line by line (a byte at a time on a socket), so nothing
    // of the tunnel is consumed before the two cats relay it.
    // The script is in single quotes for the shell ssh runs it with, so it
    // has none itself.
    const std::string script =
        "exec 3<>/dev/tcp/$0/$1 || exit 1; "
        "printf \"CONNECT %%s:%%s HTTP/1.1\\r\\nHost: %%s:%%s\\r\\n\\r\\n\" \"$2\" \"$3\" \"$2\" "
        "\"$3\" >&3; "
        "IFS= read -r status <&3; "
        "case \"$status\" in \"HTTP/1.\"?\" 200\"*) ;; "
        "*) echo \"osf egress proxy: $2:$3 refused (${status%%?}): only the tcp destinations of "
        "the spec are reachable\" >&2; exit 1;; esac; "
        "while IFS= read -r line <&3 && [ ${#line} -gt 1 ]; do :; done; "
        "cat <&3 & cat >&3";
    return "# Written by sandbox-kubernetes: every SSH connection goes through the sandbox's\n"
           "# egress proxy, which lets through only the spec's tcp destinations (host:port).\n"
           "Host *\n"
           "    ProxyCommand /bin/bash -c '" +
           script + "' " + proxy_host + " " + std::to_string(proxy_port) + " %h %p\n";
}

} // namespace osf::kubernetes::manifests

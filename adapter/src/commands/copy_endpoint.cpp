#include "commands/copy_endpoint.hpp"

#include "commands/sandbox_id_argument.hpp"
#include "manifests/sandbox_objects.hpp"

namespace osf::commands {

CopyEndpoint parse_copy_endpoint(const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos || text.substr(0, colon).find('/') != std::string::npos)
        return {std::nullopt, text};
    CopyEndpoint endpoint;
    endpoint.id = parse_sandbox_id(text.substr(0, colon));
    std::string path = text.substr(colon + 1);
    if (path.empty() || path == ".")
        path = manifests::kWorkspaceDir;
    else if (path.front() != '/')
        path = std::string(manifests::kWorkspaceDir) + "/" + path;
    endpoint.path = path;
    return endpoint;
}

} // namespace osf::commands

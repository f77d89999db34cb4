#include "commands/copy_endpoint.hpp"

#include "commands/sandbox_id_argument.hpp"
#include "sandbox/sandbox_paths.hpp"

namespace osf::commands {

CopyEndpoint parse_copy_endpoint(const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos || text.substr(0, colon).find('/') != std::string::npos)
        return {std::nullopt, text};
    CopyEndpoint endpoint;
    endpoint.id = parse_sandbox_id(text.substr(0, colon));
    std::string path = text.substr(colon + 1);
    if (path.empty() || path == ".")
        path = sandbox::kWorkspaceDir;
    else if (path.front() != '/')
        path = std::string(sandbox::kWorkspaceDir) + "/" + path;
    endpoint.path = path;
    return endpoint;
}

} // namespace osf::commands

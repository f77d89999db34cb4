#include "backends/kubernetes/tool_check.hpp"

#include <ostream>
#include <sstream>

namespace osf::commands {

namespace {

std::string last_line(const std::string& text) {
    std::string line, last;
    std::istringstream lines(text);
    while (std::getline(lines, line))
        if (!line.empty()) last = line;
    return last;
}

const char* what_fails(const std::string& tool) {
    if (tool == "tar") return "copy and snapshot will not work";
    if (tool == "cp") return "a sandbox started from a snapshot of this one will not start";
    return "";
}

} // namespace

std::vector<std::string> tool_check_command() {
    return {"sh", "-c",
            "for tool in tar cp; do command -v \"$tool\" >/dev/null 2>&1 || "
            "echo \"$tool\"; done"};
}

std::vector<std::string> tool_warnings(const kubectl::KubectlResult& result) {
    std::vector<std::string> warnings;
    if (!result.ok()) {
        // kubectl reports the runtime's "executable file not found" (or exit
        // 126/127) when the image has no sh.
        const std::string& err = result.err;
        if (err.find("executable file not found") != std::string::npos ||
            err.find("no such file or directory") != std::string::npos ||
            err.find("exit code 126") != std::string::npos ||
            err.find("exit code 127") != std::string::npos)
            warnings.push_back("the image has no sh: a sandbox started from a snapshot of this "
                               "one will not start (its restore step runs sh and cp)");
        else
            warnings.push_back("could not check the image for sh and tar: " + last_line(err));
        return warnings;
    }
    std::istringstream lines(result.out);
    std::string tool;
    while (std::getline(lines, tool))
        if (*what_fails(tool))
            warnings.push_back("the image has no " + tool + ": " + what_fails(tool));
    return warnings;
}

void check_sandbox_tools(CommandContext& context, kubectl::Kubectl& kube, const std::string& pod) {
    kubectl::KubectlCall call;
    call.args = {"exec", pod, "--namespace", kube.ns(), "--"};
    for (auto& word : tool_check_command())
        call.args.push_back(word);
    for (const auto& warning : tool_warnings(kube.runner().run(call)))
        context.err << "warning: " << warning << "\n";
}

} // namespace osf::commands

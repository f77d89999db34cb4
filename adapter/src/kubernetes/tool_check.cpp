#include "kubernetes/tool_check.hpp"

#include "commands/command_errors.hpp"

#include <sstream>

namespace osf::kubernetes {

namespace {

std::string last_line(const std::string& text) {
    std::string line, last;
    std::istringstream lines(text);
    while (std::getline(lines, line))
        if (!line.empty()) last = line;
    return last;
}

std::string what_needs(const std::string& tool) {
    if (tool == "env") return "exec";
    if (tool == "tar") return "copy and snapshot";
    if (tool == "cp") return "a sandbox started from a snapshot of this one";
    return "OSF_SANDBOX_REQUIRED_TOOLS";
}

} // namespace

std::vector<std::string> tool_check_command(const std::vector<std::string>& extra_tools) {
    // The names are checked to be plain words (settings), so they go in as they are.
    std::string tools = "env tar cp";
    for (const auto& tool : extra_tools)
        tools += " " + tool;
    return {"sh", "-c",
            "for tool in " + tools +
                "; do command -v \"$tool\" >/dev/null 2>&1 || "
                "echo \"$tool\"; done"};
}

std::optional<std::string> tool_problem(const kubectl::KubectlResult& result) {
    if (!result.ok()) {
        // kubectl reports the runtime's "executable file not found" (or exit
        // 126/127) when the image has no sh.
        const std::string& err = result.err;
        if (err.find("executable file not found") != std::string::npos ||
            err.find("no such file or directory") != std::string::npos ||
            err.find("exit code 126") != std::string::npos ||
            err.find("exit code 127") != std::string::npos)
            return "the image has no sh (exec, copy, snapshot and a snapshot's restore run it)";
        return "could not check the image's tools: " + last_line(err);
    }
    std::istringstream lines(result.out);
    std::string tool, missing;
    while (std::getline(lines, tool))
        if (!tool.empty())
            missing += (missing.empty() ? "" : ", ") + tool + " (" + what_needs(tool) + ")";
    if (missing.empty()) return std::nullopt;
    return "the image has no " + missing;
}

void check_sandbox_tools(OperationContext&, kubectl::Kubectl& kube, const std::string& pod,
                         const std::vector<std::string>& extra_tools) {
    kubectl::KubectlCall call;
    call.args = {"exec", pod, "--namespace", kube.ns(), "--"};
    for (auto& word : tool_check_command(extra_tools))
        call.args.push_back(word);
    if (const auto problem = tool_problem(kube.runner().run(call)))
        throw commands::CommandFailed(*problem + "; use an image that has them");
}

} // namespace osf::kubernetes

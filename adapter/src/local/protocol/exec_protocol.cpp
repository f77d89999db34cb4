#include "local/protocol/exec_protocol.hpp"

#include "sandbox/exec_stop.hpp"

#include <charconv>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

namespace osf::local {

std::string encode_exec_message(const ExecMessage& message) {
    return nlohmann::json{
        {"command", message.command}, {"terminal", message.terminal}, {"term", message.term}}
        .dump();
}

std::optional<ExecMessage> decode_exec_message(const std::string& text) {
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (!json.is_object() || !json.contains("command") || !json["command"].is_array())
        return std::nullopt;
    ExecMessage message;
    for (const auto& arg : json["command"]) {
        if (!arg.is_string()) return std::nullopt;
        message.command.push_back(arg.get<std::string>());
    }
    if (message.command.empty()) return std::nullopt;
    message.terminal = json.value("terminal", false);
    message.term = json.value("term", "");
    return message;
}

std::string encode_exit(int code) {
    return "exit " + std::to_string(code) + "\n";
}

std::optional<int> decode_exit(const std::string& text) {
    if (!text.starts_with("exit ") || !text.ends_with("\n")) return std::nullopt;
    int code = 0;
    const char* begin = text.data() + 5;
    const char* end = text.data() + text.size() - 1;
    const auto [ptr, error] = std::from_chars(begin, end, code);
    if (error != std::errc() || ptr != end || code < 0 || code > 255) return std::nullopt;
    return code;
}

} // namespace osf::local

#include "kubernetes/kubectl/kubectl_version.hpp"

#include <charconv>
#include <nlohmann/json.hpp>

namespace osf::kubernetes::kubectl {

namespace {

// The leading decimal digits of `text`, or nullopt when it starts with none.
std::optional<int> leading_number(std::string_view text) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data()) return std::nullopt;
    return value;
}

std::string text_field(const nlohmann::json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

} // namespace

std::optional<KubectlVersion> parse_client_version(std::string_view json_output) {
    const auto document = nlohmann::json::parse(json_output, nullptr, /*allow_exceptions=*/false);
    if (!document.is_object()) return std::nullopt;
    const auto client = document.find("clientVersion");
    if (client == document.end() || !client->is_object()) return std::nullopt;
    const auto major = leading_number(text_field(*client, "major"));
    const auto minor = leading_number(text_field(*client, "minor"));
    if (!major || !minor) return std::nullopt;
    std::string text = text_field(*client, "gitVersion");
    if (text.empty()) text = "v" + std::to_string(*major) + "." + std::to_string(*minor);
    return KubectlVersion{*major, *minor, std::move(text)};
}

bool is_supported(const KubectlVersion& version) {
    if (version.major != kMinimumKubectlMajor) return version.major > kMinimumKubectlMajor;
    return version.minor >= kMinimumKubectlMinor;
}

std::string too_old_message(const KubectlVersion& version) {
    return "kubectl " + version.text + " is too old: sandbox-kubernetes needs kubectl " +
           std::to_string(kMinimumKubectlMajor) + "." + std::to_string(kMinimumKubectlMinor) +
           " or newer on PATH (adapter/README.md says where to get one)";
}

} // namespace osf::kubernetes::kubectl

#include "kubernetes/manifests/pod_security_refusal.hpp"

namespace osf::kubernetes::manifests {

std::string pod_security_refusal(const std::string& admission_message, bool has_user) {
    constexpr std::string_view marker = "violates PodSecurity \"";
    std::string text = admission_message;
    if (const auto at = admission_message.find(marker); at != std::string::npos) {
        const auto level_start = at + marker.size();
        const auto level_end = admission_message.find('"', level_start);
        if (level_end != std::string::npos) {
            std::string fields = admission_message.substr(level_end + 1);
            if (fields.rfind(": ", 0) == 0) fields.erase(0, 2);
            text = "Pod Security \"" +
                   admission_message.substr(level_start, level_end - level_start) + "\" forbids " +
                   fields;
        }
    }
    const bool about_root = admission_message.find("runAsNonRoot") != std::string::npos ||
                            admission_message.find("runAsUser=0") != std::string::npos;
    if (about_root && !has_user)
        text += " (without \"user\" in its spec a sandbox runs in root mode, which Pod Security "
                "\"restricted\" refuses)";
    return text;
}

} // namespace osf::kubernetes::manifests

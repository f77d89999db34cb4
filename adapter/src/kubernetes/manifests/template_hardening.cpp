#include "kubernetes/manifests/template_hardening.hpp"

#include "sandbox/labels.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <utility>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

// Suffixes of a quantity, binary and decimal (Kubernetes' resource.Quantity).
constexpr std::pair<std::string_view, long double> kSuffixes[] = {
    {"Ki", 1024.0L},
    {"Mi", 1024.0L * 1024},
    {"Gi", 1024.0L * 1024 * 1024},
    {"Ti", 1024.0L * 1024 * 1024 * 1024},
    {"Pi", 1024.0L * 1024 * 1024 * 1024 * 1024},
    {"Ei", 1024.0L * 1024 * 1024 * 1024 * 1024 * 1024},
    {"n", 1e-9L},
    {"u", 1e-6L},
    {"m", 1e-3L},
    {"k", 1e3L},
    {"M", 1e6L},
    {"G", 1e9L},
    {"T", 1e12L},
    {"P", 1e15L},
    {"E", 1e18L},
};

std::string volume_type(const json& volume) {
    for (const auto& [key, value] : volume.items())
        if (key != "name") return key;
    return "";
}

struct LimitRow {
    const char* spec_field;
    const char* resource;
    const std::optional<std::string>& wanted;
};

} // namespace

// By hand: no Debian package parses Kubernetes quantities for C++, and only
// comparisons need it (a long double holds every quantity a pod can ask for).
std::optional<long double> parse_quantity(std::string_view text) {
    if (text.empty()) return std::nullopt;
    long double scale = 1;
    for (const auto& [suffix, factor] : kSuffixes)
        if (text.size() > suffix.size() && text.ends_with(suffix)) {
            text.remove_suffix(suffix.size());
            scale = factor;
            break;
        }
    // A decimal exponent ("1e3") instead of a suffix.
    int exponent = 0;
    if (scale == 1) {
        const auto e = text.find_first_of("eE");
        if (e != std::string_view::npos) {
            const auto digits = text.substr(e + 1);
            const auto [end, ec] =
                std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
            if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
                return std::nullopt;
            text = text.substr(0, e);
        }
    }
    if (text.starts_with('+')) text.remove_prefix(1);
    if (text.empty() || text.front() == '.' || text.back() == '.') return std::nullopt;
    long double value = 0;
    long double fraction = 0;
    bool in_fraction = false;
    for (const char c : text) {
        if (c == '.' && !in_fraction) {
            in_fraction = true;
            fraction = 1;
            continue;
        }
        if (c < '0' || c > '9') return std::nullopt;
        if (in_fraction) {
            fraction /= 10;
            value += fraction * (c - '0');
        } else {
            value = value * 10 + (c - '0');
        }
    }
    return value * scale * std::pow(10.0L, exponent);
}

std::optional<std::string> template_refusal(const json& pod_template, const osf::Spec& spec) {
    const json pod_spec =
        pod_template.is_object() ? pod_template.value("spec", json::object()) : json::object();
    for (const auto& volume : pod_spec.value("volumes", json::array())) {
        if (!volume.is_object()) continue;
        const std::string type = volume_type(volume);
        if (std::find(std::begin(kRestrictedVolumeTypes), std::end(kRestrictedVolumeTypes), type) !=
            std::end(kRestrictedVolumeTypes))
            continue;
        return "the template's volume '" + volume.value("name", "") + "' is a " +
               (type.empty() ? std::string("volume of no type") : type + " volume") +
               ", which Pod Security \"restricted\" forbids (spec.volumes): remove it from "
               "the SandboxTemplate";
    }

    const json labels =
        pod_template.is_object()
            ? pod_template.value("metadata", json::object()).value("labels", json::object())
            : json::object();
    if (labels.contains(sandbox::kSnapshotOfLabel)) return std::nullopt;
    const json containers = pod_spec.value("containers", json::array());
    if (containers.empty() || !containers[0].is_object()) return std::nullopt;
    const json limits =
        containers[0].value("resources", json::object()).value("limits", json::object());
    const LimitRow rows[] = {{"cpu", "cpu", spec.cpu},
                             {"memory", "memory", spec.memory},
                             {"storage", "ephemeral-storage", spec.storage}};
    for (const auto& row : rows) {
        if (!row.wanted || !limits.contains(row.resource) || !limits[row.resource].is_string())
            continue;
        const std::string ceiling = limits[row.resource].get<std::string>();
        const auto wanted = parse_quantity(*row.wanted);
        const auto most = parse_quantity(ceiling);
        if (!wanted || !most || *wanted <= *most) continue;
        return std::string("spec \"") + row.spec_field + "\": " + *row.wanted +
               " is above the template's limit of " + ceiling +
               " (a spec cannot raise a SandboxTemplate's limits): ask for at most " + ceiling;
    }
    return std::nullopt;
}

} // namespace osf::kubernetes::manifests

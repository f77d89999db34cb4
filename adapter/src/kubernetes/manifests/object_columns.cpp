#include "kubernetes/manifests/object_columns.hpp"

#include "kubernetes/manifests/suspension.hpp"
#include "sandbox/labels.hpp"

#include <string_view>
#include <vector>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

// A jsonpath key: its dots escaped, as kubectl's jsonpath reads a label key.
std::string key_path(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '.') out += '\\';
        out += c;
    }
    return out;
}

// The columns, in order: the jsonpath of each (the values hold no tab or
// line break: names, labels, timestamps, reasons, image references).
std::vector<std::string> column_paths() {
    return {".kind", ".metadata.name", ".metadata.labels." + key_path(sandbox::kSandboxIdLabel),
            ".metadata.labels." + key_path(sandbox::kRoleLabel), ".metadata.creationTimestamp",
            ".spec.lifecycle.shutdownTime",
            ".metadata.annotations." + key_path(kSuspendedAtAnnotation), ".status.sandbox.name",
            ".status.conditions[?(@.type==\"Ready\")].status",
            ".status.conditions[?(@.type==\"Ready\")].reason", ".status.phase", ".status.reason",
            ".spec.podTemplate.spec.containers[0].image",
            // Every label, as kubectl prints a map (JSON): the user's labels a
            // selector matches (label syntax allows no tab or line break).
            ".metadata.labels"};
}

std::vector<std::string> split_tabs(std::string_view line) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto tab = line.find('\t', start);
        out.emplace_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
        if (tab == std::string_view::npos) return out;
        start = tab + 1;
    }
}

void set_if(json& object, const json::json_pointer& at, const std::string& value) {
    if (!value.empty()) object[at] = value;
}

} // namespace

std::string object_columns_jsonpath() {
    std::string text = "{range .items[*]}";
    const auto paths = column_paths();
    for (std::size_t i = 0; i < paths.size(); ++i)
        text += "{" + paths[i] + "}" + (i + 1 < paths.size() ? "{\"\\t\"}" : "{\"\\n\"}");
    return text + "{end}";
}

json objects_from_columns(const std::string& text) {
    const std::size_t columns = column_paths().size();
    json items = json::array();
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const auto fields = split_tabs(std::string_view(text).substr(start, end - start));
        start = end + 1;
        if (fields.size() != columns) continue;
        json object = {{"kind", fields[0]}, {"metadata", {{"name", fields[1]}}}};
        json labels = json::object();
        if (!fields[2].empty()) labels[sandbox::kSandboxIdLabel] = fields[2];
        if (!fields[3].empty()) labels[sandbox::kRoleLabel] = fields[3];
        object["metadata"]["labels"] = labels;
        set_if(object, json::json_pointer("/metadata/creationTimestamp"), fields[4]);
        set_if(object, json::json_pointer("/spec/lifecycle/shutdownTime"), fields[5]);
        if (!fields[6].empty())
            object["metadata"]["annotations"] = {{kSuspendedAtAnnotation, fields[6]}};
        set_if(object, json::json_pointer("/status/sandbox/name"), fields[7]);
        if (!fields[8].empty()) {
            json ready = {{"type", "Ready"}, {"status", fields[8]}};
            if (!fields[9].empty()) ready["reason"] = fields[9];
            object["status"]["conditions"] = json::array({ready});
        }
        set_if(object, json::json_pointer("/status/phase"), fields[10]);
        set_if(object, json::json_pointer("/status/reason"), fields[11]);
        if (!fields[12].empty())
            object["spec"]["podTemplate"]["spec"]["containers"] =
                json::array({json{{"image", fields[12]}}});
        if (!fields[13].empty()) {
            const json all = json::parse(fields[13], nullptr, false);
            if (all.is_object())
                for (const auto& [key, value] : all.items())
                    if (value.is_string()) object["metadata"]["labels"][key] = value;
        }
        items.push_back(std::move(object));
    }
    return items;
}

} // namespace osf::kubernetes::manifests

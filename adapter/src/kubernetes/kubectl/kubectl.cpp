#include "kubernetes/kubectl/kubectl.hpp"

#include "kubernetes/kubectl/api_paths.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/kubectl/list_item_splitter.hpp"

#include <algorithm>
#include <cstddef>

namespace osf::kubernetes::kubectl {

namespace {

// kubectl throttles itself: after a burst of 10 requests one process sends at
// most 5 a second (client-go's defaults, which kubectl has no flag for), so a
// call naming 50 objects spends seconds waiting on itself. A call naming many
// objects is split into calls that each fit the burst, by what kubectl sends
// per object: one request (a get, a delete not waited for), two (a delete and
// the get that sees it gone), four (a foreground delete: the object stays
// while its dependents go, so the wait lists and watches it too). Two of the
// ten are left for discovery, which kubectl fetches when it has no cache.
constexpr std::size_t kOneRequestEach = 8;
constexpr std::size_t kTwoRequestsEach = 4;
constexpr std::size_t kFourRequestsEach = 2;

// Runs `run` on consecutive slices of `names`, `per_call` at most each.
template <typename Run>
void in_calls_of(std::size_t per_call, const std::vector<std::string>& names, Run&& run) {
    for (std::size_t first = 0; first < names.size(); first += per_call) {
        const auto begin = names.begin() + static_cast<std::ptrdiff_t>(first);
        const auto end =
            names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), first + per_call));
        run(std::vector<std::string>(begin, end));
    }
}

} // namespace

KubectlResult Kubectl::run_checked(const KubectlCall& call) {
    KubectlResult result = runner_.run(call);
    check(call.args, result);
    return result;
}

std::optional<nlohmann::json> Kubectl::get(const std::string& resource, const std::string& name) {
    KubectlCall call;
    call.args = {"get", resource, name, "--namespace", ns_, "--ignore-not-found", "-o", "json"};
    const KubectlResult result = run_checked(call);
    if (result.out.find_first_not_of(" \t\r\n") == std::string::npos) return std::nullopt;
    try {
        return nlohmann::json::parse(result.out);
    } catch (const nlohmann::json::exception&) {
        throw KubectlError("kubectl get failed: output is not JSON");
    }
}

bool Kubectl::exists(const std::string& resource, const std::string& name) {
    KubectlCall call;
    call.args = {"get", resource, name, "--namespace", ns_, "--ignore-not-found", "-o", "name"};
    return run_checked(call).out.find_first_not_of(" \t\r\n") != std::string::npos;
}

std::vector<std::string> Kubectl::existing(const std::string& resource,
                                           const std::vector<std::string>& names) {
    std::vector<std::string> found;
    in_calls_of(kOneRequestEach, names, [&](const std::vector<std::string>& part) {
        KubectlCall call;
        call.args = {"get", resource};
        call.args.insert(call.args.end(), part.begin(), part.end());
        call.args.insert(call.args.end(), {"--namespace", ns_, "--ignore-not-found", "-o", "name"});
        const std::string out = run_checked(call).out;
        std::size_t start = 0;
        while (start < out.size()) {
            auto end = out.find('\n', start);
            if (end == std::string::npos) end = out.size();
            std::string line = out.substr(start, end - start);
            while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
                line.pop_back();
            // "<kind>.<group>/<name>"
            if (const auto slash = line.rfind('/'); slash != std::string::npos)
                found.push_back(line.substr(slash + 1));
            start = end + 1;
        }
    });
    return found;
}

nlohmann::json Kubectl::list(const std::string& resources, const std::string& selector) {
    KubectlCall call;
    call.args = {"get", resources, "--namespace", ns_, "-l", selector, "-o", "json"};
    const KubectlResult result = run_checked(call);
    try {
        const auto list = nlohmann::json::parse(result.out);
        return list.value("items", nlohmann::json::array());
    } catch (const nlohmann::json::exception&) {
        throw KubectlError("kubectl get failed: output is not JSON");
    }
}

namespace {

// The `continue` token of a page's metadata, empty on the last page.
std::string continue_token(const std::string& metadata) {
    if (metadata.empty()) return "";
    const auto parsed = nlohmann::json::parse(metadata, nullptr, false);
    if (!parsed.is_object()) return "";
    const auto token = parsed.find("continue");
    return token != parsed.end() && token->is_string() ? token->get<std::string>() : "";
}

} // namespace

void Kubectl::list_items(const std::string& resources, const std::string& selector,
                         const std::function<void(nlohmann::json item)>& on_item) {
    list_items(resources, selector, ListOptions{}, on_item);
}

void Kubectl::list_items(const std::string& resources, const std::string& selector,
                         const ListOptions& options,
                         const std::function<void(nlohmann::json item)>& on_item) {
    std::size_t start = 0;
    while (start <= resources.size()) {
        auto comma = resources.find(',', start);
        if (comma == std::string::npos) comma = resources.size();
        const std::string resource = resources.substr(start, comma - start);
        start = comma + 1;
        const auto where = collection(resource, ns_);
        if (!where) throw KubectlError("no API path known for " + resource);
        std::string token;
        do {
            bool bad_item = false;
            ListItemSplitter splitter([&](std::string_view text) {
                auto item = nlohmann::json::parse(text, nullptr, false);
                if (!item.is_object()) {
                    bad_item = true;
                    return;
                }
                if (!item.contains("kind")) item["kind"] = where->kind;
                on_item(std::move(item));
            });
            std::string query = where->path + "?labelSelector=" + query_escape(selector);
            if (!options.field_selector.empty())
                query += "&fieldSelector=" + query_escape(options.field_selector);
            query += "&limit=" + std::to_string(options.page_size);
            if (!token.empty()) query += "&continue=" + query_escape(token);
            KubectlCall call;
            call.args = {"get", "--raw", query};
            call.on_stdout = [&](std::string_view chunk) { splitter.feed(chunk); };
            run_checked(call);
            if (bad_item || !splitter.complete())
                throw KubectlError("kubectl get --raw " + where->path +
                                   " failed: output is not a list");
            std::string next = continue_token(splitter.metadata());
            // A server answering the same token again would never end the read.
            if (!next.empty() && next == token)
                throw KubectlError("kubectl get --raw " + where->path +
                                   " failed: the API server repeated its continue token");
            token = std::move(next);
        } while (!token.empty());
    }
}

void Kubectl::create(const nlohmann::json& objects) {
    KubectlCall call;
    call.args = {"create", "--namespace", ns_, "-f", "-"};
    call.input = objects.dump();
    run_checked(call);
}

void Kubectl::delete_by_label(const std::string& resources, const std::string& selector) {
    KubectlCall call;
    call.args = {"delete", resources, "--namespace", ns_, "-l", selector, "--ignore-not-found"};
    run_checked(call);
}

void Kubectl::delete_named(const std::string& resource, const std::string& name) {
    KubectlCall call;
    call.args = {"delete", resource, name, "--namespace", ns_, "--ignore-not-found"};
    run_checked(call);
}

void Kubectl::delete_in_calls(const std::vector<std::string>& command,
                              const std::vector<std::string>& names, std::size_t per_call,
                              const std::vector<std::string>& flags) {
    in_calls_of(per_call, names, [&](const std::vector<std::string>& part) {
        KubectlCall call;
        call.args = command;
        call.args.insert(call.args.end(), part.begin(), part.end());
        call.args.insert(call.args.end(), {"--namespace", ns_, "--ignore-not-found"});
        call.args.insert(call.args.end(), flags.begin(), flags.end());
        run_checked(call);
    });
}

void Kubectl::delete_all_named(const std::vector<std::string>& objects) {
    delete_in_calls({"delete"}, objects, kTwoRequestsEach, {});
}

void Kubectl::delete_with_dependents(const std::string& resource, const std::string& name) {
    delete_with_dependents(resource, std::vector<std::string>{name});
}

void Kubectl::delete_with_dependents(const std::string& resource,
                                     const std::vector<std::string>& names) {
    delete_in_calls({"delete", resource}, names, kFourRequestsEach, {"--cascade=foreground"});
}

void Kubectl::delete_without_waiting(const std::string& resource,
                                     const std::vector<std::string>& names) {
    delete_in_calls({"delete", resource}, names, kOneRequestEach, {"--wait=false"});
}

void Kubectl::delete_without_waiting(const std::string& resource, const std::string& name) {
    delete_without_waiting(resource, std::vector<std::string>{name});
}

std::string Kubectl::exec_output(const std::string& pod, const std::string& container,
                                 const std::vector<std::string>& command) {
    KubectlCall call;
    call.args = {"exec", pod, "--namespace", ns_, "-c", container, "--"};
    call.args.insert(call.args.end(), command.begin(), command.end());
    return run_checked(call).out;
}

} // namespace osf::kubernetes::kubectl

// Kubectl: the few kubectl invocations the commands need, built in one place
// and bound to one namespace. Every failure becomes a KubectlError.
#pragma once

#include "kubernetes/kubectl/kubectl_runner.hpp"

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::kubernetes::kubectl {

class Kubectl {
public:
    Kubectl(KubectlRunner& runner, std::string ns) : runner_(runner), ns_(std::move(ns)) {}

    const std::string& ns() const { return ns_; }
    KubectlRunner& runner() { return runner_; }

    // The object, or nullopt when it does not exist.
    std::optional<nlohmann::json> get(const std::string& resource, const std::string& name);
    // Whether the object exists (its name only is read).
    bool exists(const std::string& resource, const std::string& name);
    // Which of the objects named exist (one call, their names only read).
    std::vector<std::string> existing(const std::string& resource,
                                      const std::vector<std::string>& names);
    // The items of every object of `resources` (comma-separated) matching `selector`.
    nlohmann::json list(const std::string& resources, const std::string& selector);
    // How list_items reads: a field selector the API server applies (empty:
    // none), and objects per page. A page is what the API server builds and
    // kubectl buffers whole (`get --raw` copies one response), so both hold
    // one page, never the namespace; each page is one more kubectl process.
    // Pages are sized by the kind's weight: 1,000 (twice kubectl's own 500)
    // for kinds whose objects are kilobytes (pods, templates, ConfigMaps that
    // may hold CA bundles), more for small ones.
    static constexpr int kPageOfLargeObjects = 1000;
    // Claims and warm pools, each under a kilobyte: a page is about 4.5 MiB,
    // and a namespace of 5,000 sandboxes is read in one call a kind.
    static constexpr int kPageOfSmallObjects = 5000;
    struct ListOptions {
        std::string field_selector;
        int page_size = kPageOfLargeObjects;
    };
    // Each object of `resources` (comma-separated, as api_paths.hpp knows
    // them) matching `selector`, handed over one at a time as it streams in
    // (`kubectl get --raw`, a page of `limit` objects at a time, following
    // `continue`): neither the API server, kubectl nor the adapter holds the
    // list. Each has its "kind".
    void list_items(const std::string& resources, const std::string& selector,
                    const std::function<void(nlohmann::json item)>& on_item);
    void list_items(const std::string& resources, const std::string& selector,
                    const ListOptions& options,
                    const std::function<void(nlohmann::json item)>& on_item);
    // The calls below that name several objects are split into calls that
    // each fit kubectl's burst of requests (kubectl.cpp).
    // Creates an object or every item of a List, sent on stdin.
    void create(const nlohmann::json& objects);
    void delete_by_label(const std::string& resources, const std::string& selector);
    void delete_named(const std::string& resource, const std::string& name);
    // One call deleting each "resource/name"; those that do not exist are fine.
    void delete_all_named(const std::vector<std::string>& objects);
    // Foreground cascading deletion, waited for: returns when the object and
    // every dependent that blocks its deletion (a controller's) are gone.
    void delete_with_dependents(const std::string& resource, const std::string& name);
    // The same for several objects of one kind, in one call.
    void delete_with_dependents(const std::string& resource, const std::vector<std::string>& names);
    // Deletes without kubectl's wait for the object to go, which reads it (get,
    // then list and watch on its name): for Secrets, which the adapter never reads.
    void delete_without_waiting(const std::string& resource, const std::string& name);
    void delete_without_waiting(const std::string& resource, const std::vector<std::string>& names);
    // Runs a command in a container and returns its stdout.
    std::string exec_output(const std::string& pod, const std::string& container,
                            const std::vector<std::string>& command);

    // Runs one call; throws KubectlError when it fails.
    KubectlResult run_checked(const KubectlCall& call);

private:
    // `command`, then `names` in calls of `per_call` at most, each ending
    // with the namespace, --ignore-not-found and `flags`.
    void delete_in_calls(const std::vector<std::string>& command,
                         const std::vector<std::string>& names, std::size_t per_call,
                         const std::vector<std::string>& flags);

    KubectlRunner& runner_;
    std::string ns_;
};

} // namespace osf::kubernetes::kubectl

#include "secrets/live_secrets.hpp"

#include "secrets/file_source.hpp"
#include "secrets/value_rules.hpp"

#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

namespace osf::secrets {

bool LiveSecrets::Stamp::operator==(const Stamp& other) const {
    return device == other.device && inode == other.inode && size == other.size &&
           modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec &&
           changed.tv_sec == other.changed.tv_sec && changed.tv_nsec == other.changed.tv_nsec;
}

std::optional<LiveSecrets::Stamp> LiveSecrets::stamp_of(const std::string& path,
                                                        std::size_t index) {
    struct stat status {};
    // Followed: a Kubernetes Secret is a link into `..data`, swapped whole on update.
    if (::stat(path.c_str(), &status) != 0) return std::nullopt;
    return Stamp{index,          status.st_dev,  status.st_ino,
                 status.st_size, status.st_mtim, status.st_ctim};
}

LiveSecrets::LiveSecrets(SecretStore initial)
    : store_(std::make_shared<const SecretStore>(std::move(initial))) {
    const auto initial_store = store_.load();
    const auto& secrets = initial_store->secrets();
    for (std::size_t i = 0; i < secrets.size(); ++i) {
        if (secrets[i].file.empty()) continue;
        // A file not there now is looked at again on each use.
        stamps_.push_back(stamp_of(secrets[i].file, i).value_or(Stamp{i}));
    }
}

std::shared_ptr<const SecretStore> LiveSecrets::snapshot() const {
    return store_.load();
}

std::shared_ptr<const SecretStore> LiveSecrets::current() {
    if (stamps_.empty()) return store_.load();
    std::lock_guard lock(mutex_);
    const auto store = store_.load(); // only this function replaces it, under the lock
    std::vector<Secret> next;
    std::vector<std::string> rotated;
    for (auto& stamp : stamps_) {
        const auto& secret = store->secrets()[stamp.index];
        const auto now = stamp_of(secret.file, stamp.index);
        if (!now || *now == stamp) continue;
        const auto slash = secret.file.rfind('/');
        auto read = read_file_secret(secret.file.substr(slash + 1), secret.file.substr(0, slash));
        if (!read.ok() || value_problem(read.value)) {
            spdlog::warn("secret {}: its file changed but cannot be used ({}); the previous "
                         "value stays in force",
                         secret.name, read.ok() ? *value_problem(read.value) : read.error);
            continue;
        }
        stamp = *now;
        if (read.value == secret.value) continue; // touched, not changed
        if (next.empty()) next = store->secrets();
        next[stamp.index].value = read.value;
        OPENSSL_cleanse(read.value.data(), read.value.size());
        rotated.push_back(secret.name);
    }
    if (rotated.empty()) return store;
    // The previous store (and its values) is wiped when the last request holding it ends.
    auto fresh = std::make_shared<const SecretStore>(std::move(next));
    store_.store(fresh);
    for (const auto& name : rotated) {
        spdlog::info("secret {} rotated: its file changed", name);
        if (listener_) listener_(name, *fresh);
    }
    return fresh;
}

} // namespace osf::secrets

// The secrets in force while the proxy runs. A `ref:file/` secret is re-read
// when its file changes (a Kubernetes Secret update, an atomic rename by a
// rotation job), without a restart: the next request that uses it gets the
// new value, and the old one is wiped from memory once no request in flight
// holds it (SecretStore's destructor).
#pragma once

#include "secrets/secret_store.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace osf::secrets {

class LiveSecrets {
public:
    explicit LiveSecrets(SecretStore initial);

    // The store in force, without looking at files: for what does not
    // depend on values (names, bindings, placeholders).
    std::shared_ptr<const SecretStore> snapshot() const;

    // The store in force, after re-reading every file secret whose file
    // changed since it was read. One stat(2) per file secret, asked only by a
    // request that is about to have a file secret's value written: cheaper and
    // simpler than an inotify watch (no thread, no descriptor, no missed event
    // when a Kubernetes mount swaps its `..data` link), and a rotation is seen
    // by the very next request. A file that cannot be read, or holds a value
    // that cannot be used, keeps the old value (and is tried again next time).
    std::shared_ptr<const SecretStore> current();

    // True when some secret comes from a file (only those ever change).
    bool has_files() const { return !stamps_.empty(); }

    // Called, under the rotation lock, with each secret rotated and the
    // store now in force: the proxy logs the change and keeps the new forms
    // for answer masking.
    using RotationListener = std::function<void(const std::string& name, const SecretStore&)>;
    void on_rotation(RotationListener listener) { listener_ = std::move(listener); }

private:
    struct Stamp {
        std::size_t index; // in the store's secrets
        dev_t device = 0;
        ino_t inode = 0;
        off_t size = 0;
        struct timespec modified {};
        struct timespec changed {};
        bool operator==(const Stamp& other) const;
    };
    static std::optional<Stamp> stamp_of(const std::string& path, std::size_t index);

    std::mutex mutex_; // one re-read at a time
    // Read by every request without the lock; replaced whole by a rotation.
    std::atomic<std::shared_ptr<const SecretStore>> store_;
    std::vector<Stamp> stamps_;
    RotationListener listener_;
};

} // namespace osf::secrets

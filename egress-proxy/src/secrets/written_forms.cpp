#include "secrets/written_forms.hpp"

#include "secrets/secret_store.hpp"

#include <algorithm>
#include <mutex>

namespace osf::secrets {

std::size_t form_bytes(const EchoForm& form) {
    return form.real.size() + form.shown.size() + form.name.size() + sizeof(EchoForm);
}

WrittenForms::WrittenForms(const SecretStore& store, Limits limits)
    : limits_(limits), forms_(store.value_forms()) {
    for (const auto& form : forms_)
        bytes_ += form_bytes(form);
    none_ = store.empty();
}

WrittenForms::WrittenForms(const SecretStore& store, std::span<const EchoForm> more)
    : WrittenForms(store, Limits{}) {
    for (const auto& form : more) {
        forms_.push_back(form);
        bytes_ += form_bytes(form);
    }
    none_ = none_ && more.empty();
}

bool WrittenForms::remember(std::span<const EchoForm> forms) {
    if (forms.empty()) return true;
    auto known = [this](const EchoForm& form) {
        return std::any_of(forms_.begin(), forms_.end(),
                           [&](const EchoForm& k) { return k.real == form.real; });
    };
    {
        // Most requests write forms known already (git sends the same
        // credentials each time): a shared look first.
        std::shared_lock lock(mutex_);
        if (std::all_of(forms.begin(), forms.end(), known)) return true;
    }
    std::unique_lock lock(mutex_);
    std::vector<const EchoForm*> fresh;
    std::size_t added = 0;
    for (const auto& form : forms) {
        if (form.real.empty() || known(form)) continue;
        if (std::any_of(fresh.begin(), fresh.end(),
                        [&](const EchoForm* f) { return f->real == form.real; }))
            continue;
        fresh.push_back(&form);
        added += form_bytes(form);
    }
    if (forms_.size() + fresh.size() > limits_.max_forms || bytes_ + added > limits_.max_bytes)
        return false;
    for (const EchoForm* form : fresh)
        forms_.push_back(*form);
    bytes_ += added;
    return true;
}

bool WrittenForms::mask_answer_head(boost::beast::http::response_header<>& head) const {
    if (none_) return true;
    std::shared_lock lock(mutex_);
    return SecretStore::mask_answer_head_with(head, forms_);
}

std::size_t WrittenForms::size() const {
    std::shared_lock lock(mutex_);
    return forms_.size();
}

std::size_t WrittenForms::bytes() const {
    std::shared_lock lock(mutex_);
    return bytes_;
}

} // namespace osf::secrets

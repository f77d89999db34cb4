#include "mcp/session_registry.hpp"

#include "text/ascii.hpp"

#include <algorithm>

namespace osf::mcp {

SessionRegistry::SessionRegistry(std::size_t max_sessions, std::size_t max_pending_per_session,
                                 std::size_t max_bytes, std::chrono::seconds max_idle, Clock now)
    : max_sessions_(std::max<std::size_t>(1, max_sessions)),
      max_pending_per_session_(std::max<std::size_t>(1, max_pending_per_session)),
      max_bytes_(max_bytes), max_idle_(max_idle), now_(std::move(now)) {}

bool SessionRegistry::recordable(std::string_view session_id, std::string_view request_id) {
    return session_id.size() <= kMaxIdBytes && request_id.size() <= kMaxIdBytes;
}

void SessionRegistry::erase_locked(Sessions::iterator it) {
    bytes_ -= it->second.bytes;
    by_age_.erase(it->second.created);
    sessions_.erase(it);
}

void SessionRegistry::trim_locked(std::string_view keep) {
    const auto now = now_();
    // Idle sessions, looked for at most once a second (a walk over all of them).
    if (now - last_sweep_ >= std::chrono::seconds(1)) {
        last_sweep_ = now;
        for (auto it = sessions_.begin(); it != sessions_.end();) {
            auto next = std::next(it);
            if (now - it->second.touched >= max_idle_ && it->first != keep) erase_locked(it);
            it = next;
        }
    }
    for (auto oldest = by_age_.begin(); bytes_ > max_bytes_ && oldest != by_age_.end();) {
        auto next = std::next(oldest);
        if (oldest->second != keep) erase_locked(sessions_.find(oldest->second));
        oldest = next;
    }
}

SessionRegistry::Session& SessionRegistry::session_locked(std::string_view session_id) {
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) {
        if (sessions_.size() >= max_sessions_)
            erase_locked(sessions_.find(by_age_.begin()->second));
        Session session;
        session.created = next_sequence_++;
        session.bytes = session_id.size();
        bytes_ += session.bytes;
        by_age_.emplace(session.created, std::string(session_id));
        it = sessions_.emplace(std::string(session_id), std::move(session)).first;
    }
    it->second.touched = now_();
    return it->second;
}

void SessionRegistry::expect_tools_list(std::string_view session_id, std::string_view request_id) {
    if (!recordable(session_id, request_id)) return;
    std::lock_guard lock(mutex_);
    auto& session = session_locked(session_id);
    auto& pending = session.pending_ids;
    if (pending.size() >= max_pending_per_session_) {
        session.bytes -= pending.front().size();
        bytes_ -= pending.front().size();
        pending.pop_front();
    }
    pending.emplace_back(request_id);
    session.bytes += request_id.size();
    bytes_ += request_id.size();
    trim_locked(session_id);
}

void SessionRegistry::expect_refusal(std::string_view session_id, std::string_view request_id,
                                     std::string answer) {
    if (!recordable(session_id, request_id)) return;
    std::lock_guard lock(mutex_);
    auto& session = session_locked(session_id);
    auto& refusals = session.refusals;
    if (refusals.size() >= max_pending_per_session_) {
        const auto size = refusals.front().first.size() + refusals.front().second.size();
        session.bytes -= size;
        bytes_ -= size;
        refusals.pop_front();
    }
    const auto size = request_id.size() + answer.size();
    refusals.emplace_back(std::string(request_id), std::move(answer));
    session.bytes += size;
    bytes_ += size;
    trim_locked(session_id);
}

std::optional<std::string> SessionRegistry::take_refusal(std::string_view session_id,
                                                         std::string_view request_id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return std::nullopt;
    auto& refusals = it->second.refusals;
    for (auto r = refusals.begin(); r != refusals.end(); ++r) {
        if (r->first == request_id) {
            const auto size = r->first.size() + r->second.size();
            it->second.bytes -= size;
            bytes_ -= size;
            std::string answer = std::move(r->second);
            refusals.erase(r);
            return answer;
        }
    }
    return std::nullopt;
}

bool SessionRegistry::has_refusals(std::string_view session_id) const {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    return it != sessions_.end() && !it->second.refusals.empty();
}

bool SessionRegistry::take_tools_list(std::string_view session_id, std::string_view request_id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return false;
    auto& pending = it->second.pending_ids;
    auto id = std::find(pending.begin(), pending.end(), request_id);
    if (id == pending.end()) return false;
    it->second.bytes -= id->size();
    bytes_ -= id->size();
    pending.erase(id);
    it->second.touched = now_();
    return true;
}

void SessionRegistry::forget(std::string_view session_id) {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return;
    erase_locked(it);
}

std::size_t SessionRegistry::session_count() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
}

std::size_t SessionRegistry::bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

namespace {

using text::hex_value;

std::string percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 &&
            hex_value(s[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2])));
            i += 2;
        } else if (s[i] == '+') {
            out.push_back(' ');
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

} // namespace

std::optional<std::string> session_id_from_url(std::string_view url) {
    url = url.substr(0, url.find('#'));
    std::size_t question = url.find('?');
    if (question == std::string_view::npos) return std::nullopt;
    std::string_view query = url.substr(question + 1);
    while (!query.empty()) {
        std::size_t amp = query.find('&');
        std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
        std::size_t eq = pair.find('=');
        if (pair.substr(0, eq) == "sessionId" && eq != std::string_view::npos) {
            return percent_decode(pair.substr(eq + 1));
        }
    }
    return std::nullopt;
}

} // namespace osf::mcp

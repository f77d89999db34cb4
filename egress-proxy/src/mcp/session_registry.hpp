// The 2024-11-05 HTTP+SSE transport splits an exchange over two HTTP
// requests: the client POSTs JSON-RPC to the URL the GET stream's "endpoint"
// event named (it carries `sessionId`), the server answers 202, and the real
// answer arrives as a "message" event on the GET stream. The proxy records
// (session, request id) of each tools/list POST here, and the GET stream's
// filter looks them up. Shared by connections, so thread-safe; bounded in
// count, bytes and time, so a client cannot grow it without limit: ids longer
// than kMaxIdBytes are never recorded (the caller refuses the request), past
// max_bytes or max_sessions the oldest session is forgotten, and a session no
// request or stream has touched for max_idle is forgotten (a session whose
// GET stream never opens holds nothing for long).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace osf::mcp {

class SessionRegistry {
public:
    using Clock = std::function<std::chrono::steady_clock::time_point()>;
    static constexpr std::size_t kMaxIdBytes = 512; // a session id, a request id

    explicit SessionRegistry(std::size_t max_sessions = 4096,
                             std::size_t max_pending_per_session = 256,
                             std::size_t max_bytes = 8 * 1024 * 1024,
                             std::chrono::seconds max_idle = std::chrono::minutes(15),
                             Clock now = std::chrono::steady_clock::now);

    // Whether ids of these sizes can be recorded: false for an id over
    // kMaxIdBytes, and then the request is refused (never forwarded unrecorded).
    static bool recordable(std::string_view session_id, std::string_view request_id);

    // A tools/list request with this id (canonical JSON, as in RequestVerdict::tools_list_ids)
    // was POSTed in the session. Ignored when not recordable().
    void expect_tools_list(std::string_view session_id, std::string_view request_id);
    // True (and forgets it) when the answer with this id was expected in the session.
    bool take_tools_list(std::string_view session_id, std::string_view request_id);
    // The proxy answered the request with this id itself (a refused tools/call)
    // and forwarded a ping with the same id instead; `answer` replaces the
    // server's answer to that ping on the GET stream.
    void expect_refusal(std::string_view session_id, std::string_view request_id,
                        std::string answer);
    // The replacement for the answer with this id (forgotten once taken).
    std::optional<std::string> take_refusal(std::string_view session_id,
                                            std::string_view request_id);
    bool has_refusals(std::string_view session_id) const;
    // The session's GET stream ended.
    void forget(std::string_view session_id);

    std::size_t session_count() const;
    std::size_t bytes() const; // what the ids and answers held take

private:
    struct Session {
        std::uint64_t created = 0;
        std::chrono::steady_clock::time_point touched;
        std::size_t bytes = 0;
        std::deque<std::string> pending_ids;
        std::deque<std::pair<std::string, std::string>> refusals; // (id, answer)
    };
    using Sessions = std::map<std::string, Session, std::less<>>;

    Session& session_locked(std::string_view session_id);
    void erase_locked(Sessions::iterator it);
    // Forgets idle sessions, then the oldest ones while over max_bytes (never `keep`).
    void trim_locked(std::string_view keep);

    const std::size_t max_sessions_;
    const std::size_t max_pending_per_session_;
    const std::size_t max_bytes_;
    const std::chrono::seconds max_idle_;
    const Clock now_;
    mutable std::mutex mutex_;
    std::uint64_t next_sequence_ = 0;
    std::size_t bytes_ = 0;
    std::chrono::steady_clock::time_point last_sweep_{};
    Sessions sessions_;
    std::map<std::uint64_t, std::string> by_age_;
};

// The `sessionId` query parameter of a request target or URL ("/messages?sessionId=abc",
// "https://h/messages?sessionId=abc"), percent-decoded; nullopt when absent.
std::optional<std::string> session_id_from_url(std::string_view url);

} // namespace osf::mcp

// The 2024-11-05 HTTP+SSE transport splits an exchange over two HTTP
// requests: the client POSTs JSON-RPC to the URL the GET stream's "endpoint"
// event named (it carries `sessionId`), the server answers 202, and the real
// answer arrives as a "message" event on the GET stream. The proxy records
// (session, request id) of each tools/list POST here, and the GET stream's
// filter looks them up. Shared by connections, so thread-safe; bounded, so a
// client cannot grow it without limit (the oldest session is forgotten).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace osf::mcp {

class SessionRegistry {
public:
    explicit SessionRegistry(std::size_t max_sessions = 4096,
                             std::size_t max_pending_per_session = 256);

    // A tools/list request with this id (canonical JSON, as in RequestVerdict::tools_list_ids)
    // was POSTed in the session.
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

private:
    struct Session {
        std::uint64_t created = 0;
        std::deque<std::string> pending_ids;
        std::deque<std::pair<std::string, std::string>> refusals; // (id, answer)
    };

    Session& session_locked(std::string_view session_id);

    const std::size_t max_sessions_;
    const std::size_t max_pending_per_session_;
    mutable std::mutex mutex_;
    std::uint64_t next_sequence_ = 0;
    std::map<std::string, Session, std::less<>> sessions_;
    std::map<std::uint64_t, std::string> by_age_;
};

// The `sessionId` query parameter of a request target or URL ("/messages?sessionId=abc",
// "https://h/messages?sessionId=abc"), percent-decoded; nullopt when absent.
std::optional<std::string> session_id_from_url(std::string_view url);

} // namespace osf::mcp

// One exchange's egress log line: begun when a request (or a CONNECT) arrives,
// written exactly once. finish() writes it on the paths that know how the
// exchange ended; on every other way out (an early return, an exception, a
// coroutine destroyed at shutdown) the destructor writes it as an error with
// the reason recorded so far (`rec.error`, else ErrorKind::aborted). No path can leave
// an exchange without a line, and no path can write two.
#pragma once

#include "log/log_record.hpp"
#include "net/proxy_runtime.hpp"
#include "net/session_types.hpp"
#include "osf/log_fields.hpp"

#include <chrono>
#include <string>

namespace osf::net {

class Exchange {
public:
    Exchange(ProxyRuntime& context, const ConnectionInfo& conn, std::string method) : ctx(context) {
        rec.time = std::chrono::system_clock::now();
        rec.connection = conn.id;
        rec.client = conn.client;
        rec.http2 = conn.http2;
        rec.via = conn.via;
        rec.method = std::move(method);
    }
    Exchange(const Exchange&) = delete;
    Exchange& operator=(const Exchange&) = delete;
    ~Exchange() {
        if (state_ != State::Open) return;
        try {
            if (!rec.error) rec.error = ErrorKind::aborted;
            finish(Outcome::error, responded ? rec.status : 0);
        } catch (...) { // a destructor must not throw; the line is lost only if memory is
        }
    }

    ProxyRuntime& ctx;
    log::LogRecord rec;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    unsigned client_version = 11;
    bool client_keep = false; // the client may send another request afterwards
    bool responded = false;   // the client has a response head
    // A refused MCP call replaced by a ping (legacy transport): why it was refused.
    std::optional<RefusalReason> refused_in_place;

    // Writes the line (only the first call does anything).
    void finish(Outcome outcome, int status) {
        if (state_ != State::Open) return;
        state_ = State::Written;
        if (refused_in_place && outcome == Outcome::allowed) {
            outcome = Outcome::refused;
            rec.refused_by = *refused_in_place;
        }
        rec.outcome = outcome;
        rec.status = status;
        rec.duration_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        ctx.write_log(rec);
    }

    // Ends as an error of kind `error`: the client got `status` (0: no answer).
    void finish_error(ErrorKind error, int status) {
        if (state_ != State::Open) return;
        rec.error = error;
        finish(Outcome::error, status);
    }

    // This exchange needs no line of its own: an allowed CONNECT whose tunnel
    // carried requests, each with its own line.
    void carried_by_requests() { state_ = State::NotLogged; }

    bool finished() const { return state_ != State::Open; }

private:
    enum class State { Open, Written, NotLogged };
    State state_ = State::Open;
};

} // namespace osf::net

// Keeps the egress log bounded under a flood of requests that carried nothing
// out (refusals decided before anything was sent, clients that left or timed
// out before their request went upstream, connections to a closed port):
// such a flood costs the sandbox nothing and would otherwise grow the log at
// its own rate. Within each window, the first lines of each kind are written
// whole; the rest are counted, and the window ends with one folded line per
// kind (a request line with `count` and `since`), written into the chain like
// any other. Every request is still accounted for: the sum of `count` over
// the lines is the number of requests. Pure: the caller passes the time.
#pragma once

#include "log/log_record.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace osf::log {

struct FoldingLimits {
    std::chrono::milliseconds window{std::chrono::seconds(60)};
    std::size_t whole_per_kind = 20;    // whole lines of one kind in a window
    std::size_t whole_per_window = 120; // whole lines of every kind together in a window
    // Kinds with a folded line of their own in a window; the rest fold into
    // one line per outcome and reason, its host, method and tool empty.
    std::size_t kinds_per_window = 120;
};

class RefusalFolder {
public:
    using time_point = std::chrono::system_clock::time_point;

    explicit RefusalFolder(FoldingLimits limits = {});

    // Whether a line may fold (pure). `whole`: never; an exchange that
    // reached an origin is always one whole line. `fold`: may be counted,
    // and past the window's kinds into a line without host, method or
    // secrets. `fold_named`: may be counted in a line of its own kind only;
    // past the window's kinds it is written whole (its host name went out
    // to DNS, so no folded line may hide it).
    enum class Folding { whole, fold, fold_named };
    static Folding folding_of(const LogRecord& record);
    static bool foldable(const LogRecord& record) { return folding_of(record) != Folding::whole; }

    // Call with the time of `record` first passed to take_due(). True: write
    // `record` whole. False: it is counted in a folded line to come.
    bool admit(const LogRecord& record);

    // The folded lines of a window that ended before `now` (or of the current
    // one too, when `all`), in the order their kinds were first seen; the
    // window then starts afresh.
    std::vector<LogRecord> take_due(time_point now, bool all = false);

private:
    // outcome, reason, host, port, scheme, method, MCP server, tool, secrets, egress rule
    using Kind = std::tuple<int, int, std::string, std::uint16_t, std::string, std::string,
                            std::string, std::string, std::vector<std::string>, std::string>;
    struct Tally {
        std::size_t whole = 0;
        std::size_t order = 0; // when first folded, for the output order
        LogRecord folded;      // count in `folded.count`; empty count: nothing folded yet
    };

    static Kind kind_of(const LogRecord& record);
    void fold_into(Tally& tally, const LogRecord& record);

    FoldingLimits limits_;
    bool open_ = false;
    time_point window_start_{};
    std::size_t whole_ = 0;
    std::size_t folded_kinds_ = 0;
    std::map<Kind, Tally> tallies_;
};

} // namespace osf::log

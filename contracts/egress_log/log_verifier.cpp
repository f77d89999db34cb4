#include "egress_log/log_verifier.hpp"

#include "egress_log/line_fields.hpp"
#include "egress_log/log_chain.hpp"
#include "osf/log_fields.hpp"

#include <nlohmann/json.hpp>

namespace osf::egress_log {

namespace field = osf::log_evidence_field;
using nlohmann::json;

std::vector<std::string_view> whole_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    for (;;) {
        const auto end = text.find('\n', start);
        if (end == std::string_view::npos) break;
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

namespace {

struct Run {
    std::string log_id;
    std::string key; // raw
    std::size_t lines = 0;
    std::size_t final_at = 0; // line of its final checkpoint
};

class Verifier {
public:
    Verifier(std::string_view text, const std::optional<std::string>& trusted)
        : text_(text), trusted_(trusted) {}

    VerifyReport run() {
        const auto lines = whole_lines(text_);
        report_.lines = lines.size();
        std::size_t consumed = 0;
        for (const auto& l : lines)
            consumed += l.size() + 1;
        report_.torn_tail_bytes = text_.size() - consumed;
        if (lines.empty()) return fail(0, "the log holds no whole line");
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::size_t number = i + 1;
            const std::string_view bytes(lines[i].data(), lines[i].size() + 1); // with '\n'
            const std::string_view previous =
                i ? std::string_view(lines[i - 1].data(), lines[i - 1].size() + 1)
                  : std::string_view();
            const json line = json::parse(lines[i], nullptr, false);
            if (!line.is_object())
                return fail(number, "line " + std::to_string(number) +
                                        " is not a JSON object: it was changed");
            if (!check_line(line, number, previous)) return report_;
        }
        if (trusted_) {
            if (!report_.last_checkpoint)
                return fail(0, "no checkpoint: nothing in this log is signed by the given key");
            if (last_checkpoint_key_ != *trusted_)
                return fail(report_.last_checkpoint,
                            "line " + std::to_string(report_.last_checkpoint) +
                                ": the last checkpoint is signed by a key other than the given "
                                "one (not the proxy that published it)");
            report_.trusted_key = true;
        }
        report_.ok = true;
        return report_;
    }

private:
    VerifyReport fail(std::size_t line, std::string problem) {
        report_.ok = false;
        report_.bad_line = line;
        report_.problem = std::move(problem);
        return report_;
    }

    // The chain field of line `number` names `previous`.
    bool follows(const std::string& chain, std::string_view previous, std::size_t number) {
        if (chain == to_hex(sha256(previous))) return true;
        fail(number, "line " + std::to_string(number) + " does not follow line " +
                         std::to_string(number - 1) + ": line " + std::to_string(number - 1) +
                         " was changed, or lines were removed, added or moved between them");
        return false;
    }

    bool check_line(const json& line, std::size_t number, std::string_view previous) {
        const std::string n = std::to_string(number);
        const std::string chain = text_of(line, field::chain);
        if (!is_lower_hex(chain, 64)) {
            fail(number,
                 "line " + n + " has no chain field (64 hex digits): it was changed or added");
            return false;
        }
        const std::string kind = text_of(line, field::kind);
        if (kind == osf::log_kind::start) return check_start(line, number, previous, chain);
        if (number == 1) {
            fail(1, "line 1 is not a start line: the beginning of the log is missing");
            return false;
        }
        if (!follows(chain, previous, number)) return false;
        if (run_.final_at) {
            fail(number, "line " + n + " follows the final checkpoint at line " +
                             std::to_string(run_.final_at) +
                             " but is not a start line: it was added after the proxy stopped");
            return false;
        }
        ++run_.lines;
        if (kind == osf::log_kind::checkpoint) return check_checkpoint(line, number, chain);
        // A policy line is evidence as a request line is: in the chain, covered by
        // the next checkpoint (the proxy writes one right after it).
        if (kind == osf::log_kind::policy) return true;
        if (line.contains(field::kind)) {
            fail(number, "line " + n + " has an unknown kind");
            return false;
        }
        return true;
    }

    bool check_start(const json& line, std::size_t number, std::string_view previous,
                     const std::string& chain) {
        const std::string n = std::to_string(number);
        const std::string log_id = text_of(line, field::log_id);
        const auto key = base64_decode(text_of(line, field::public_key));
        if (!is_lower_hex(log_id, log_id_hex_digits) || !key || key->size() != public_key_bytes) {
            fail(number, "line " + n + ": a start line without a valid logId and publicKey");
            return false;
        }
        if (number == 1) {
            if (chain != to_hex(sha256(log_id))) {
                fail(1, "line 1 continues an earlier log whose lines are not in this file: the "
                        "beginning of the log is missing");
                return false;
            }
        } else if (!follows(chain, previous, number)) {
            return false;
        }
        run_ = Run{log_id, *key, 1, 0};
        ++report_.runs;
        return true;
    }

    bool check_checkpoint(const json& line, std::size_t number, const std::string& chain) {
        const std::string n = std::to_string(number);
        const auto it = line.find(field::lines);
        const auto signature = base64_decode(text_of(line, field::signature));
        const auto final_it = line.find(field::final);
        const bool final =
            final_it != line.end() && final_it->is_boolean() && final_it->get<bool>();
        if (it == line.end() || !it->is_number_unsigned() || !signature) {
            fail(number, "line " + n + ": a checkpoint without lines and signature");
            return false;
        }
        if (text_of(line, field::log_id) != run_.log_id) {
            fail(number, "line " + n + ": a checkpoint of another log (logId) than its run's");
            return false;
        }
        const auto lines = it->get<std::uint64_t>();
        if (lines != run_.lines - 1) {
            fail(number, "line " + n + ": the checkpoint counts " + std::to_string(lines) +
                             " lines before it in its run, the log has " +
                             std::to_string(run_.lines - 1));
            return false;
        }
        const std::string message = checkpoint_message(
            run_.log_id, lines, text_of(line, osf::log_field::time), chain, final);
        if (!verify_signature(run_.key, message, *signature)) {
            fail(number, "line " + n +
                             ": the checkpoint's signature does not verify: the "
                             "checkpoint was changed or not written by this run's proxy");
            return false;
        }
        ++report_.checkpoints;
        report_.last_checkpoint = number;
        last_checkpoint_key_ = run_.key;
        if (final) run_.final_at = number;
        report_.ends_final = final && number == report_.lines;
        return true;
    }

    std::string_view text_;
    const std::optional<std::string>& trusted_;
    VerifyReport report_;
    Run run_;
    std::string last_checkpoint_key_;
};

std::string plural(std::size_t n, std::string_view word) {
    return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

} // namespace

VerifyReport verify_log(std::string_view text, const std::optional<std::string>& trusted_key) {
    return Verifier(text, trusted_key).run();
}

std::string describe(const VerifyReport& r, std::string_view name) {
    const std::string file(name);
    if (!r.ok)
        return file + (r.bad_line ? ":" + std::to_string(r.bad_line) : std::string()) + ": " +
               r.problem + "\n";
    std::string out = file + ": verified: " + plural(r.lines, "line") + ", chain intact, " +
                      plural(r.checkpoints, "checkpoint") + " verify (" + plural(r.runs, "run") +
                      " of the proxy)\n";
    if (r.last_checkpoint) {
        out += "signed: lines 1-" + std::to_string(r.last_checkpoint) + " (checkpoint at line " +
               std::to_string(r.last_checkpoint) + "), " +
               (r.trusted_key ? "by the given key\n"
                              : "by the key the log's start line names: pass --pubkey to check "
                                "it against the published key\n");
    } else {
        out += "signed: nothing yet (no checkpoint)\n";
    }
    if (r.last_checkpoint < r.lines)
        out += "unsigned tail: lines " + std::to_string(r.last_checkpoint + 1) + "-" +
               std::to_string(r.lines) +
               " come after the last checkpoint: their chain holds, but no signature covers "
               "them (the proxy is still running or was killed), so they could have been "
               "removed or rewritten together\n";
    out += r.ends_final ? "complete: the log ends with the proxy's final checkpoint (written at "
                          "shutdown)\n"
                        : "not ended by a final checkpoint: the proxy is running or was killed, "
                          "or lines after line " +
                              std::to_string(r.lines) + " were removed\n";
    if (r.torn_tail_bytes)
        out += "note: the last " + plural(r.torn_tail_bytes, "byte") +
               " are not a whole line (a write cut short, or the file was cut) and were not "
               "verified\n";
    return out;
}

} // namespace osf::egress_log

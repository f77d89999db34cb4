#include "mcp/json_reader.hpp"

#include <set>
#include <vector>

namespace osf::mcp {

namespace {

// Tracks the keys of every open object while nlohmann's parser runs, since
// the DOM it builds silently keeps one value per key.
class DuplicateKeyGuard {
public:
    bool on_event(Json::parse_event_t event, const Json& parsed) {
        switch (event) {
        case Json::parse_event_t::object_start:
            open_.emplace_back();
            open_.back().is_object = true;
            return depth_ok();
        case Json::parse_event_t::array_start:
            open_.emplace_back();
            return depth_ok();
        case Json::parse_event_t::object_end:
        case Json::parse_event_t::array_end:
            if (!open_.empty()) open_.pop_back();
            return true;
        case Json::parse_event_t::key:
            if (!open_.empty() && open_.back().is_object &&
                !open_.back().keys.insert(parsed.get<std::string>()).second) {
                fail("duplicate key");
            }
            return true;
        case Json::parse_event_t::value:
            return true;
        }
        return true;
    }

    const std::string& error() const { return error_; }

private:
    struct Container {
        bool is_object = false;
        std::set<std::string> keys;
    };

    bool depth_ok() {
        if (open_.size() > kMaxJsonDepth) fail("nesting too deep");
        return true;
    }
    void fail(const char* why) {
        if (error_.empty()) error_ = why;
    }

    std::vector<Container> open_;
    std::string error_;
};

} // namespace

JsonReadResult read_strict_json(std::string_view text) {
    DuplicateKeyGuard guard;
    Json::parser_callback_t callback = [&guard](int, Json::parse_event_t event, Json& parsed) {
        return guard.on_event(event, parsed);
    };
    // A UTF-8 byte order mark is not JSON text (RFC 8259 section 8.1: must
    // not be added); nlohmann would skip it, a server might not.
    if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
        static_cast<unsigned char>(text[1]) == 0xBB &&
        static_cast<unsigned char>(text[2]) == 0xBF) {
        return {std::nullopt, "byte order mark"};
    }
    // nlohmann's lexer takes a NUL byte for the end of the input, so
    // `{}\0garbage` would read as `{}`; a raw NUL is never valid JSON.
    if (text.find('\0') != std::string_view::npos) return {std::nullopt, "NUL byte"};
    Json value = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false,
                             /*ignore_comments=*/false);
    if (!guard.error().empty()) return {std::nullopt, guard.error()};
    if (value.is_discarded()) return {std::nullopt, "not JSON"};
    return {std::move(value), {}};
}

std::string write_json(const Json& value) {
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

} // namespace osf::mcp

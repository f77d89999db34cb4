#include "osf/strict_json.hpp"

#include "json_path.hpp"

#include <nlohmann/json.hpp>
#include <set>

namespace osf::strict_json {

namespace {

using spec_detail::index_path;
using spec_detail::json_quoted;
using spec_detail::member_path;

// Builds the document as nlohmann's DOM parser does, keeping the open
// containers so that a duplicate key, a number or too deep a nesting can be
// reported by JSONPath (spelled only when needed: the MCP filter reads many
// messages and reports none of them by place).
template <class Json> class DocumentBuilder : public nlohmann::json_sax<Json> {
    using Base = nlohmann::json_sax<Json>;

public:
    DocumentBuilder(ReadResult<Json>& result, const ReadOptions& options)
        : result_(result), options_(options) {}

    bool null() override { return put(Json(nullptr)); }
    bool boolean(bool value) override { return put(Json(value)); }
    bool number_integer(typename Base::number_integer_t value) override {
        if (options_.record_numbers) result_.numbers[next_path()] = std::to_string(value);
        return put(Json(value));
    }
    bool number_unsigned(typename Base::number_unsigned_t value) override {
        if (options_.record_numbers) result_.numbers[next_path()] = std::to_string(value);
        return put(Json(value));
    }
    bool number_float(typename Base::number_float_t value,
                      const typename Base::string_t& text) override {
        if (options_.record_numbers) result_.numbers[next_path()] = text;
        return put(Json(value));
    }
    bool string(typename Base::string_t& value) override { return put(Json(std::move(value))); }
    bool binary(typename Base::binary_t& value) override {
        return put(Json::binary(std::move(value)));
    }

    bool start_object(std::size_t) override { return open(Json::object()); }
    bool start_array(std::size_t) override { return open(Json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool key(typename Base::string_t& name) override {
        Frame& frame = frames_.back();
        frame.key = name;
        if (!frame.keys.insert(name).second) {
            result_.errors.push_back(
                {member_path(path_of(frames_.size() - 1), name),
                 "duplicate key " + json_quoted(name) +
                     ": each key may appear once in an object, or readers disagree on which "
                     "value counts"});
        }
        return true;
    }

    bool parse_error(std::size_t, const std::string&,
                     const nlohmann::detail::exception& error) override {
        std::string what = error.what();
        // "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at ..."
        if (const auto end = what.find("] ");
            what.starts_with("[json.exception") && end != std::string::npos)
            what.erase(0, end + 2);
        // "; last read: '...'" would repeat the text, which may be a pasted secret.
        if (const auto last = what.find("; last read: "); last != std::string::npos)
            what.erase(last);
        result_.errors.push_back({"$", "not valid JSON: " + what});
        return false;
    }

private:
    struct Frame {
        Json* container;
        std::string key;            // objects: the member being read
        std::set<std::string> keys; // objects: members seen so far
    };

    // The JSONPath of the container of frame `depth` (0 is the root's).
    std::string path_of(std::size_t depth) const {
        std::string path = "$";
        // Each enclosing array holds the open container as its last element.
        for (std::size_t i = 0; i < depth; ++i)
            path = child_path(frames_[i], path, 1);
        return path;
    }
    // The path of the element `back` places before the end of the frame's
    // container (0: the value about to be placed), inside `base`.
    static std::string child_path(const Frame& frame, const std::string& base, std::size_t back) {
        if (frame.container->is_object()) return member_path(base, frame.key);
        return index_path(base, frame.container->size() - back);
    }
    std::string next_path() const {
        if (frames_.empty()) return "$";
        return child_path(frames_.back(), path_of(frames_.size() - 1), 0);
    }

    Json* place(Json value) {
        if (frames_.empty()) {
            result_.document = std::move(value);
            return &result_.document;
        }
        Frame& frame = frames_.back();
        if (frame.container->is_object()) {
            Json& slot = (*frame.container)[frame.key];
            slot = std::move(value); // a duplicate's last value, as other readers keep
            return &slot;
        }
        frame.container->push_back(std::move(value));
        return &frame.container->back();
    }

    bool put(Json value) {
        place(std::move(value));
        return true;
    }

    bool open(Json empty) {
        if (frames_.size() >= options_.max_depth) {
            result_.errors.push_back(
                {next_path(),
                 "nests deeper than " + std::to_string(options_.max_depth) + " levels"});
            return false;
        }
        Json* container = place(std::move(empty));
        frames_.push_back({container, {}, {}});
        return true;
    }

    bool close() {
        frames_.pop_back();
        return true;
    }

    ReadResult<Json>& result_;
    const ReadOptions& options_;
    std::vector<Frame> frames_;
};

bool has_byte_order_mark(std::string_view text) {
    return text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
           static_cast<unsigned char>(text[1]) == 0xBB &&
           static_cast<unsigned char>(text[2]) == 0xBF;
}

} // namespace

template <class Json> ReadResult<Json> read(std::string_view text, const ReadOptions& options) {
    ReadResult<Json> result;
    if (!options.allow_byte_order_mark && has_byte_order_mark(text)) {
        result.errors.push_back(
            {"$", "not valid JSON: a byte order mark (RFC 8259 section 8.1: JSON text must not "
                  "begin with one)"});
        return result;
    }
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        result.errors.push_back({"$", "not valid JSON: a NUL byte at offset " +
                                          std::to_string(nul) +
                                          " (JSON text never holds one raw)"});
        return result;
    }
    DocumentBuilder<Json> builder(result, options);
    result.complete = Json::sax_parse(text, &builder, nlohmann::json::input_format_t::json,
                                      /*strict=*/true, /*ignore_comments=*/false);
    return result;
}

template ReadResult<nlohmann::json> read<nlohmann::json>(std::string_view, const ReadOptions&);
template ReadResult<nlohmann::ordered_json> read<nlohmann::ordered_json>(std::string_view,
                                                                         const ReadOptions&);

} // namespace osf::strict_json

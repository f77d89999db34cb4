#include "json_reader.hpp"

#include "json_path.hpp"

#include <set>

namespace osf::spec_detail {

namespace {

using json = nlohmann::json;

// Builds the document like nlohmann's DOM parser, keeping a JSONPath for the
// value being read so that duplicate keys and numbers can be reported by place.
class DocumentBuilder : public nlohmann::json_sax<json> {
public:
    explicit DocumentBuilder(JsonReadResult& result) : result_(result) {}

    bool null() override { return put(json(nullptr)); }
    bool boolean(bool value) override { return put(json(value)); }
    bool number_integer(number_integer_t value) override {
        result_.numbers[next_path()] = std::to_string(value);
        return put(json(value));
    }
    bool number_unsigned(number_unsigned_t value) override {
        result_.numbers[next_path()] = std::to_string(value);
        return put(json(value));
    }
    bool number_float(number_float_t value, const string_t& text) override {
        result_.numbers[next_path()] = text;
        return put(json(value));
    }
    bool string(string_t& value) override { return put(json(std::move(value))); }
    bool binary(binary_t& value) override { return put(json::binary(std::move(value))); }

    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool key(string_t& name) override {
        Frame& frame = frames_.back();
        frame.key = name;
        if (!frame.keys.insert(name).second) {
            result_.errors.push_back(
                {member_path(frame.path, name),
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
        json* container;
        std::string path;
        std::string key;            // objects: the member being read
        std::set<std::string> keys; // objects: members seen so far
    };

    std::string next_path() const {
        if (frames_.empty()) return "$";
        const Frame& frame = frames_.back();
        if (frame.container->is_object()) return member_path(frame.path, frame.key);
        return index_path(frame.path, frame.container->size());
    }

    json* place(json value) {
        if (frames_.empty()) {
            result_.document = std::move(value);
            return &result_.document;
        }
        Frame& frame = frames_.back();
        if (frame.container->is_object()) {
            json& slot = (*frame.container)[frame.key];
            slot = std::move(value); // a duplicate's last value, as other readers keep
            return &slot;
        }
        frame.container->push_back(std::move(value));
        return &frame.container->back();
    }

    bool put(json value) {
        place(std::move(value));
        return true;
    }

    bool open(json empty) {
        if (frames_.size() >= max_json_depth) {
            result_.errors.push_back(
                {next_path(), "nests deeper than " + std::to_string(max_json_depth) + " levels"});
            return false;
        }
        std::string path = next_path();
        json* container = place(std::move(empty));
        frames_.push_back({container, std::move(path), {}, {}});
        return true;
    }

    bool close() {
        frames_.pop_back();
        return true;
    }

    JsonReadResult& result_;
    std::vector<Frame> frames_;
};

} // namespace

JsonReadResult read_json(std::string_view text) {
    JsonReadResult result;
    DocumentBuilder builder(result);
    result.complete = json::sax_parse(text, &builder, json::input_format_t::json, true, false);
    return result;
}

} // namespace osf::spec_detail

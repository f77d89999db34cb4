#include "json_path.hpp"
#include "spec_sections.hpp"

namespace osf::spec_detail {

std::optional<bool> check_collection(const nlohmann::json& value, const SpecCheck& check,
                                     const std::string& path, Shape shape,
                                     std::string_view expected, std::size_t limit,
                                     std::string_view noun) {
    if (shape == Shape::array ? !value.is_array() : !value.is_object()) {
        check.fail(path, "must be " + std::string(expected) + "; got " + describe_type(value));
        return std::nullopt;
    }
    if (value.size() <= limit) return true;
    check.fail(path, "has " + std::to_string(value.size()) + " " + std::string(noun) +
                         "; at most " + std::to_string(limit) + " are allowed");
    return false;
}

} // namespace osf::spec_detail

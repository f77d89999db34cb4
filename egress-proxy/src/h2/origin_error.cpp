#include "h2/origin_error.hpp"

#include <string>

namespace osf::h2 {

namespace {
class Category final : public boost::system::error_category {
public:
    const char* name() const noexcept override { return "osf.h2.origin"; }
    std::string message(int e) const override {
        switch (static_cast<OriginError>(e)) {
        case OriginError::broke_protocol:
            return "the origin broke HTTP/2's rules";
        case OriginError::bad_answer_head:
            return "the origin's HTTP/2 answer head is not a valid answer";
        case OriginError::refused_stream:
            return "the origin refused the stream";
        }
        return "HTTP/2 origin error";
    }
};
} // namespace

const boost::system::error_category& origin_error_category() {
    static const Category category;
    return category;
}

} // namespace osf::h2

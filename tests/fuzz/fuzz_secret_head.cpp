// Fuzz target: secret substitution into a request head and masking of an
// answer head, with large and repeated values. The input is header lines;
// "%L" and "%S" in a value stand for the placeholders of a 32 KiB secret and
// of a 2-byte one, "%l" and "%s" for their real values (an upstream's echo),
// and the first byte repeats each line's value up to 255 times.
//
// Invariants: nothing throws (Beast's fields::insert throws past 64 KiB a
// field); a substituted head is within its bound or left as it was with a
// reason; a masked answer head holds no real value, or is refused.
#include "fuzz_check.hpp"
#include "secrets/secret_store.hpp"

#include <boost/beast/http/message.hpp>
#include <string>
#include <vector>

namespace {

namespace http = boost::beast::http;
using osf::secrets::SecretStore;

const std::string& long_value() {
    static const std::string v(32 * 1024, 'L');
    return v;
}

const SecretStore& store() {
    static const SecretStore s({
        {"LONG", osf::secret_placeholder("LONG"), long_value(), {}, {}},
        {"SHORT", osf::secret_placeholder("SHORT"), "s1", {}, {}},
    });
    return s;
}

std::string expand(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 1 < text.size()) {
            const char c = text[i + 1];
            if (c == 'L' || c == 'S' || c == 'l' || c == 's') {
                out += c == 'L'   ? osf::secret_placeholder("LONG")
                       : c == 'S' ? osf::secret_placeholder("SHORT")
                       : c == 'l' ? long_value()
                                  : std::string("s1");
                ++i;
                continue;
            }
        }
        out.push_back(text[i]);
    }
    return out;
}

// name: value lines; a value repeated `repeats` times, at most 8 MiB in all.
template <class Fields> void fill(Fields& fields, std::string_view text, std::size_t repeats) {
    std::size_t total = 0;
    while (!text.empty() && total < 8u << 20) {
        const auto end = text.find('\n');
        const auto line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        const auto colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0) continue;
        const auto name = line.substr(0, colon);
        if (name.find_first_of(" \t\r") != std::string_view::npos) continue;
        std::string one = expand(line.substr(colon + 1));
        std::string value;
        for (std::size_t i = 0; i < repeats && value.size() < 60000; ++i)
            value += one;
        if (value.size() > SecretStore::kMaxFieldValue) value.resize(SecretStore::kMaxFieldValue);
        total += value.size();
        fields.insert(name, value);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::size_t repeats = 1 + data[0];
    const auto text = osf::fuzz::as_text(data + 1, size - 1);
    constexpr std::size_t bound = 128 * 1024;

    http::request_header<> request;
    fill(request, text, repeats);
    std::vector<std::string> before;
    for (const auto& f : request)
        before.emplace_back(f.value());
    std::vector<osf::secrets::EchoForm> produced;
    const auto result = store().substitute_within(request, bound, &produced);
    if (result.too_large.empty()) {
        std::size_t total = 0;
        for (const auto& f : request) {
            OSF_FUZZ_CHECK(f.value().size() <= SecretStore::kMaxFieldValue);
            total += f.name_string().size() + f.value().size() + 4;
        }
        OSF_FUZZ_CHECK(result.names.empty() || total <= bound);
    } else {
        std::size_t i = 0;
        for (const auto& f : request)
            OSF_FUZZ_CHECK(f.value() == before[i++]); // left as it was
        OSF_FUZZ_CHECK(result.names.empty());
    }

    http::response_header<> answer;
    fill(answer, text, repeats);
    if (store().mask_answer_head(answer, produced))
        for (const auto& f : answer)
            OSF_FUZZ_CHECK(f.value().find(long_value()) == std::string_view::npos);
    return 0;
}

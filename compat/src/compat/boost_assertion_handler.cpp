// Boost's assertion handler (BOOST_ENABLE_ASSERT_DEBUG_HANDLER, set for every
// target): in builds without NDEBUG, BOOST_ASSERT calls this instead of
// assert(). It reports and aborts as assert() does, except for one assertion
// known to be wrong in Boost 1.81.
//
// Beast's basic_parser::parse_chunk_header asserts `n >= 5` when it resumes a
// final chunk's trailer section, but a peer that sends "0\r\n" and then one
// more byte reaches it with 3 or 4 bytes, which the code after the assertion
// handles (it waits for more). A Debug-built proxy would abort on such an
// answer from any upstream server. Fixed in Boost 1.86 (boostorg/beast#2861).
#include "compat/boost_assertion_handler.hpp"

#include <boost/assert.hpp>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace osf::compat {

bool known_false_assertion(std::string_view expression, std::string_view file) {
    return expression == "n >= 5" && file.ends_with("boost/beast/http/impl/basic_parser.ipp");
}

} // namespace osf::compat

namespace boost {

void assertion_failed_msg(char const* expr, char const* msg, char const* function, char const* file,
                          long line) {
    if (osf::compat::known_false_assertion(expr, file)) return;
    std::fprintf(stderr, "%s:%ld: %s: Assertion `%s' failed%s%s.\n", file, line, function, expr,
                 msg ? ": " : "", msg ? msg : "");
    std::fflush(stderr);
    std::abort();
}

void assertion_failed(char const* expr, char const* function, char const* file, long line) {
    assertion_failed_msg(expr, nullptr, function, file, line);
}

} // namespace boost

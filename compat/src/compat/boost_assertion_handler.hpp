#pragma once
// Boost's assertion handler for builds without NDEBUG (see the .cpp for why
// the project has one). boost/assert.hpp declares the handler functions.
#include <string_view>

namespace osf::compat {

// True for an assertion Boost 1.81 makes that valid input breaks; the handler
// lets the code after it run instead of aborting.
bool known_false_assertion(std::string_view expression, std::string_view file);

} // namespace osf::compat

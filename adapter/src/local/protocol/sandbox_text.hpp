// Text a sandbox chose (a file name, a command's stderr), made safe to print on
// the user's terminal: the sandbox controls every byte of it. Pure.
#pragma once

#include <string>

namespace osf::local {

// A name the sandbox chose, safe to print on a terminal: control bytes and
// backslashes written as \xNN.
std::string printable_name(const std::string& name);

// Text the sandbox wrote (a copy's stderr), safe to pass on as the CLI's own:
// as printable_name, but newlines and tabs stay.
std::string printable_text(const std::string& text);

} // namespace osf::local

// Text from the egress log as the HTML report shows it. Every name in a log
// (host, path, tool, server, reason) was chosen by code in the sandbox: it
// goes through display_label() (the text summary's rule: plain printable
// ASCII bare, anything else quoted with escapes, so the shown name is ASCII
// and holds no control, bidirectional or look-alike character), then through
// the escaping of the place it lands in. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace osf::egress_log {

// For HTML text and SVG <text>/<title> content: `&`, `<` and `>` as
// character references, so no text can open or close an element.
std::string escape_text(std::string_view text);

// For a double- or single-quoted attribute value: escape_text() and both quotes.
std::string escape_attribute(std::string_view text);

// A name from the log as the report shows it: display_label(name), and when
// that is longer than `max_chars`, its first characters (never half an escape
// such as `\u{202e}`) followed by "… (N bytes)", N the name's length in the
// log. Not yet escaped for HTML.
std::string shown_name(std::string_view name, std::size_t max_chars);

// A host as the report shows it: "(no host)" for an empty one, as the text summary.
std::string shown_host(std::string_view host, std::size_t max_chars);

// A whole log line (JSON text) made visible: printable ASCII as it is,
// control bytes as `\xNN` and every non-ASCII character as `\u{X}` (the
// escapes of display_label(), without its quotes); cut after `max_bytes` of
// the line, marked "… (N bytes)".
std::string visible_line(std::string_view line, std::size_t max_bytes);

// The name of the log (a path the reviewer typed, or "egress log of <ID>"):
// as given when it is printable ASCII (so that the verdict reads exactly as
// `verify` prints it), else through display_label().
std::string shown_source(std::string_view name);

} // namespace osf::egress_log

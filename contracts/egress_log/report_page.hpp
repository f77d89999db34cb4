// The reviewer's report of an egress log: one self-contained HTML page (no
// script, no request for anything: styles inline, the timeline inline SVG),
// headed by the verification verdict as `log verify` words it, then the
// timeline, the tables of `log summary` with links to the lines each row
// counts, and those lines. Its Content-Security-Policy allows nothing but
// its own style sheet, so even a name that escaped its escaping could not
// run or load anything. Pure.
#pragma once

#include "egress_log/report_model.hpp"

#include <string>
#include <string_view>

namespace osf::egress_log {

std::string render_report_page(const ReportModel& model);

// build_report() and render_report_page() of a log's bytes, as both CLIs write it.
std::string render_report(std::string_view text, const egress_log::VerifyReport& verification,
                          std::string_view source);

// The page's Content-Security-Policy (the hash is its style sheet's).
std::string report_content_security_policy();

} // namespace osf::egress_log

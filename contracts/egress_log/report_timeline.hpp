// The report's timeline as inline SVG, drawn from the model: a lane per host
// (most requests first; the rest share one), a bar per time bucket whose
// height is its requests against the lane's busiest bucket (allowed, failed
// and refused stacked), a red mark under every bucket holding a refusal
// however small its bar, and a dashed line at each policy change. Each bar
// has a <title> (the browser's tooltip). Pure; colours are presentation
// attributes, never a style attribute or a script, so the page's
// Content-Security-Policy holds.
#pragma once

#include "egress_log/report_model.hpp"

#include <string>

namespace osf::egress_log {

// Empty when no request has a readable time.
std::string render_timeline_svg(const ReportModel& model);

} // namespace osf::egress_log

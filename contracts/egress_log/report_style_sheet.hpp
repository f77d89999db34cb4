// The report page's one style sheet, inline in the page: its SHA-256 is the
// only style source the page's Content-Security-Policy allows
// (report_content_security_policy()), so any change here changes that hash.
#pragma once

#include <string_view>

namespace osf::egress_log {

inline constexpr std::string_view report_style_sheet = R"(
body{font-family:sans-serif;margin:0;color:#1b1b1b;background:#fff;font-size:14px}
main,footer{padding:0 24px}
h2{margin:28px 0 8px;font-size:18px;border-bottom:1px solid #ccc}
.verdict{padding:16px 24px;border-bottom:6px solid}
.verdict.ok{background:#e6f4ea;border-color:#1e7b34}
.verdict.warn{background:#fff4ce;border-color:#b78103}
.verdict.bad{background:#b00020;border-color:#5c0010;color:#fff}
.verdict-word{font-size:34px;font-weight:bold;margin:0}
.verdict-line{font-size:17px;margin:6px 0 10px}
.verdict pre{white-space:pre-wrap;background:rgba(255,255,255,.85);color:#1b1b1b;padding:8px;margin:0}
.key{margin:8px 0 0;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:4px 0 8px;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0;white-space:nowrap}
td.name{overflow-wrap:anywhere;min-width:10em}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.refused,span.refused{color:#c62828;font-weight:bold}
td.lines{font-size:12px;min-width:7em;max-width:16em}
td.t{white-space:nowrap}
tr.more td{font-style:italic;color:#555}
tr:target{background:#fff4ce}
code,pre{font-family:monospace;overflow-wrap:anywhere}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
.legend .allowed{background:#4a78b5}.legend .error{background:#e69f00}
.legend .refused{background:#c62828}.legend .policy{background:#7b3294}
.note{color:#555}
svg{max-width:100%;height:auto}
)";

} // namespace osf::egress_log

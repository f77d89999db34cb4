#include "egress_log/report_timeline.hpp"

#include "egress_log/report_escaping.hpp"
#include "egress_log/report_time.hpp"

#include <algorithm>
#include <cstdio>

namespace osf::egress_log {

namespace {

// Geometry (px): labels left of the plot, the busiest bucket's count right of it.
constexpr double width = 1000, plot_x = 240, plot_width = 680;
constexpr double top = 26, lane_height = 30, bar_height = 20, axis_height = 34;
constexpr std::size_t label_chars = 18; // of a host beside its lane; the <title> has more
constexpr std::size_t title_chars = 256;

constexpr const char* allowed_colour = "#4a78b5";
constexpr const char* error_colour = "#e69f00";
constexpr const char* refused_colour = "#c62828";
constexpr const char* policy_colour = "#7b3294";

std::string px(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}

std::string rect(double x, double y, double w, double h, const char* fill) {
    return "<rect x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) + "\" height=\"" +
           px(h) + "\" fill=\"" + fill + "\"/>";
}

std::string text_at(double x, double y, const char* anchor, const std::string& escaped,
                    const char* extra = "") {
    return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\" text-anchor=\"" + anchor + "\"" + extra +
           ">" + escaped + "</text>";
}

std::string bucket_title(const TimeBuckets& b, std::size_t i, const TimelineBucket& bucket) {
    const std::int64_t from = b.start_ms + static_cast<std::int64_t>(i) * b.width_ms;
    return format_date_time(from) + " + " + describe_width(b.width_ms) + ": " +
           std::to_string(bucket.total()) + (bucket.total() == 1 ? " request, " : " requests, ") +
           std::to_string(bucket.allowed) + " allowed, " + std::to_string(bucket.refused) +
           " refused, " + std::to_string(bucket.errors) + " failed";
}

std::string lane_label(const TimelineLane& lane, std::size_t hosts_in_other_lane) {
    if (lane.other_hosts) return "(" + std::to_string(hosts_in_other_lane) + " other hosts)";
    return shown_host(lane.host, label_chars);
}

std::string policy_text(const PolicyChange& change) {
    std::string text = "line " + std::to_string(change.line) + ": policy change";
    if (!change.change.empty()) text += " " + shown_name(change.change, 64);
    for (const auto& entry : change.entries)
        text += " " + shown_name(entry, title_chars);
    if (!change.by.empty()) text += " by " + shown_name(change.by, title_chars);
    return text;
}

} // namespace

std::string render_timeline_svg(const ReportModel& model) {
    const auto& timeline = model.timeline;
    if (timeline.lanes.empty()) return {};
    const auto& b = timeline.buckets;
    const double plot_height = lane_height * static_cast<double>(timeline.lanes.size());
    const double height = top + plot_height + axis_height;
    const double slot = plot_width / static_cast<double>(b.count);
    const double gap = slot > 4 ? 1 : 0;
    const double span_ms = static_cast<double>(b.width_ms) * static_cast<double>(b.count);

    std::string svg = "<svg role=\"img\" width=\"" + px(width) + "\" height=\"" + px(height) +
                      "\" viewBox=\"0 0 " + px(width) + " " + px(height) +
                      "\" font-family=\"sans-serif\" font-size=\"12\" aria-labelledby=\"timeline-"
                      "title\"><title id=\"timeline-title\">Requests per host over time, " +
                      describe_width(b.width_ms) + " per bar</title>\n";
    for (std::size_t l = 0; l < timeline.lanes.size(); ++l) {
        const auto& lane = timeline.lanes[l];
        const double lane_top = top + lane_height * static_cast<double>(l);
        const double base = lane_top + 4 + bar_height;
        svg += "<g class=\"lane\">";
        svg += rect(plot_x, lane_top, plot_width, lane_height - 1, l % 2 ? "#ffffff" : "#f4f6f8");
        const std::string label = lane_label(lane, timeline.hosts_in_other_lane);
        svg += "<g><title>" +
               escape_text(lane.other_hosts ? label : shown_host(lane.host, title_chars)) + ": " +
               std::to_string(lane.requests) + (lane.requests == 1 ? " request, " : " requests, ") +
               std::to_string(lane.refused) + " refused</title>" +
               text_at(plot_x - 8, base - 4, "end", escape_text(label),
                       lane.other_hosts ? " font-style=\"italic\"" : "") +
               "</g>";
        for (std::size_t i = 0; i < lane.buckets.size(); ++i) {
            const auto& bucket = lane.buckets[i];
            if (!bucket.total()) continue;
            const double x = plot_x + slot * static_cast<double>(i);
            const double w = std::max(1.0, slot - gap);
            const double scale = bar_height / static_cast<double>(lane.busiest);
            svg += "<g><title>" + escape_text(bucket_title(b, i, bucket)) + "</title>";
            double y = base;
            for (const auto& [n, colour] :
                 {std::pair{bucket.allowed, allowed_colour}, std::pair{bucket.errors, error_colour},
                  std::pair{bucket.refused, refused_colour}}) {
                if (!n) continue;
                const double h = std::max(1.5, scale * static_cast<double>(n));
                y -= h;
                svg += rect(x, y, w, h, colour);
            }
            if (bucket.refused) svg += rect(x, base + 1, std::max(2.0, w), 3, refused_colour);
            svg += "</g>";
        }
        svg += text_at(plot_x + plot_width + 6, base - 4, "start",
                       "max " + std::to_string(lane.busiest), " fill=\"#555555\"");
        svg += "</g>\n";
    }
    // The axis: about six labelled ticks on bucket edges.
    const double axis_y = top + plot_height;
    svg += "<g class=\"axis\" fill=\"#333333\">";
    svg += "<line x1=\"" + px(plot_x) + "\" y1=\"" + px(axis_y) + "\" x2=\"" +
           px(plot_x + plot_width) + "\" y2=\"" + px(axis_y) + "\" stroke=\"#333333\"/>";
    const std::size_t step = std::max<std::size_t>(1, (b.count + 5) / 6);
    for (std::size_t i = 0; i <= b.count; i += step) {
        const double x = plot_x + slot * static_cast<double>(i);
        svg += "<line x1=\"" + px(x) + "\" y1=\"" + px(axis_y) + "\" x2=\"" + px(x) + "\" y2=\"" +
               px(axis_y + 5) + "\" stroke=\"#333333\"/>";
        svg += text_at(
            x, axis_y + 18, "middle",
            format_axis_time(b.start_ms + static_cast<std::int64_t>(i) * b.width_ms, b.width_ms));
    }
    svg += "</g>\n";
    // Policy changes: a dashed line across every lane, numbered as in their table.
    for (std::size_t p = 0; p < model.policy.size(); ++p) {
        const auto& change = model.policy[p];
        if (!change.at_ms) continue;
        const double at = static_cast<double>(*change.at_ms - b.start_ms);
        if (at < 0 || at > span_ms) continue;
        const double x = plot_x + plot_width * at / span_ms;
        svg += "<g class=\"policy\"><title>" + escape_text(policy_text(change)) + "</title>";
        svg += "<line x1=\"" + px(x) + "\" y1=\"" + px(top - 6) + "\" x2=\"" + px(x) + "\" y2=\"" +
               px(axis_y) + "\" stroke=\"" + policy_colour +
               "\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>";
        svg += text_at(x, top - 10, "middle", "P" + std::to_string(p + 1),
                       " fill=\"#7b3294\" font-weight=\"bold\"");
        svg += "</g>\n";
    }
    svg += "</svg>";
    return svg;
}

} // namespace osf::egress_log

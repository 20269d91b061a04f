#pragma once
// Renderers: four views of one Report. They format; they decide nothing.
#include <string>
#include <string_view>

#include "core/report/report.hpp"

namespace attribution {

class JsonWriter;

// Text for a terminal: lines wrapped (evidence cut) to `width` columns; 0: no wrapping.
constexpr size_t kDefaultTextWidth = 100;  // when the output is not a terminal
std::string render_text(const Report& report, size_t width = kDefaultTextWidth);
std::string render_json(const Report& report);
std::string render_markdown(const Report& report);
// One self-contained HTML page (inline CSS and SVG, nothing fetched, no script): a ticket attachment.
std::string render_html(const Report& report);
// The report's timeline picture alone, an <svg> element (no stylesheet needed): for embedding.
std::string render_timeline_svg(const Report& report);
// Text for HTML element content or a quoted attribute: & < > " ' escaped.
std::string html_escape(std::string_view text);

// The workload's fields (id .. window) into an object the caller has begun: the report's
// "workload" section, and an evidence bundle's workload.json.
void write_workload_fields(JsonWriter& j, const Workload& w);

// Helpers shared by the text and Markdown renderers.
std::string short_time(Micros t, bool inferred);  // "2025-03-14T09:41:07.123Z", "~" prefix when inferred
std::string join_ints(const std::vector<int>& v, size_t max = 12);
std::string join_strings(const std::vector<std::string>& v, size_t max = 12);

// "3 text(s) cut at 2048 bytes; ..." when this run hit a limit, else empty.
std::string limits_hit(const Limits& limits);

}  // namespace attribution

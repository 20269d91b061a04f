#pragma once
// What a diagnosis parses of a built-in ruleset: its samples and comments are for the build's
// `rules test` and for readers, and parsing them on every run was most of a small diagnosis's
// start-up.
#include <optional>
#include <string>
#include <string_view>

namespace attribution {

// The text with comment lines and the `match`/`no_match` arrays blanked; every line stays, so
// each rule keeps its line number. nullopt when the text is not laid out as the built-ins are
// (`match = [` alone on its line, closed by `]` alone; no multi-line strings).
std::optional<std::string> without_samples(std::string_view text);

}  // namespace attribution

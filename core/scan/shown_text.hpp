#pragma once
// Text as a terminal or a web page showed it, back to what the program printed. Pasted logs carry
// a viewer's marks: colour codes (whole, or with ESC lost to U+FFFD or dropped: "[2m[36m(raylet)[0m"),
// a page's typographic quotes and no-break spaces, HTML entities. Rules are written against the
// program's own bytes, so a file holding such marks is read with them undone.
#include <optional>
#include <string>
#include <string_view>

namespace attribution {

// The text with the marks undone, or nothing when the file shows none (the usual case: no copy).
// Newlines are never added or removed, so line numbers stay the file's.
std::optional<std::string> printed_text(std::string_view shown);

}  // namespace attribution

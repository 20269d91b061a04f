#pragma once
// A block of lines read as one text, for rules whose pattern spans lines (a stack, a table, a
// multi-line message): each line as printed, joined by '\n'.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attribution {

// A multi-line rule's text: `lines` lines from `start` (a line start in `buf`), each without its
// rank/label prefix (a time prefix stays: block patterns read the message layout), joined by '\n'.
// `starts` gets each line's start.
// `messages`: every line's stamp goes too (a stamp before each line of a block, as a CI log or a
// collector writes them, would break the layout a block pattern reads).
std::string join_block_lines(std::string_view buf, size_t start, int lines, std::vector<size_t>* starts = nullptr,
                             bool messages = false);

// A joined block with the blanks every non-empty line starts with removed (a block pasted indented, as a
// code block or under a reply): the lines' layout relative to each other stays. None when no blank is common.
std::optional<std::string> without_common_indent(std::string_view block);

}  // namespace attribution

#pragma once
// Small text helpers used across layers: one implementation each.
#include <optional>
#include <string>
#include <string_view>

#include "core/base/result.hpp"

namespace attribution {

// The line of `buf` starting at `start`, without its "\n" or "\r\n".
std::string_view line_at(std::string_view buf, size_t start);

// Calls `visit(start, line)` for each line of `buf` (line_at's text) until it returns false.
template <class Visit>
void for_each_line(std::string_view buf, Visit visit) {
  for (size_t pos = 0; pos < buf.size();) {
    if (!visit(pos, line_at(buf, pos))) return;
    const size_t eol = buf.find('\n', pos);
    if (eol == std::string_view::npos) return;
    pos = eol + 1;
  }
}

// Where the line holding `pos` starts: one past the last '\n' before `pos` (0 if none). memrchr, not
// rfind: the scan walks back over whole runs of lines with it.
size_t line_start(std::string_view buf, size_t pos);

// `s` without trailing spaces, tabs, CRs and newlines.
std::string_view trim_right(std::string_view s);

// A Markdown table cell: '|' escaped, line breaks as spaces. Log text (`authored` false) has its
// backticks turned into quotes so it cannot open a code span; authored text keeps its code spans.
std::string markdown_cell(std::string_view s, bool authored = false);

// `s` with its first letter upper-case / lower-case, to start or continue a sentence. lower_first
// leaves acronyms alone ("NCCL error" stays).
std::string capitalised(std::string s);
std::string lower_first(std::string s);

// A whole file as text. An Error names the file and says to check the path.
Result<std::string> read_text_file(const std::string& path);

// A credential from a file: its text without trailing whitespace (the newline editors add).
// Callers say which credential in their error; the value never enters an error.
Result<std::string> read_secret_file(const std::string& path);
// A credential from an environment variable; nullopt when unset or empty.
std::optional<std::string> secret_from_env(const std::string& name);

}  // namespace attribution

#pragma once
// What a paste puts before each line it copied, so that rules read the line as it was printed.
#include <cstddef>
#include <string_view>

namespace attribution {

// A reply's or a mail client's quote markers ("> ", "> > ", ">>", with any blanks before them), and a
// viewer's or grep's line number before them (cat -n's "    12<tab>", grep -n's "12:", grep's
// "train.log:12:"): their length, or 0.
size_t paste_markers(std::string_view line);

}  // namespace attribution

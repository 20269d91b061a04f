#include "core/scan/error_words.hpp"

#include <array>

#include "core/scan/host_word.hpp"

namespace attribution {
namespace {

bool lower(char c) { return c >= 'a' && c <= 'z'; }
bool upper(char c) { return c >= 'A' && c <= 'Z'; }
bool word_char(char c) { return ascii_alnum(c) || c == '_'; }

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Words that say something went wrong, as programs spell them. A plural or past form is listed
// where programs print it ("errors", "aborted").
constexpr std::array<std::string_view, 34> kWords = {
    "error",   "Error",   "ERROR",   "errors",   "failed",    "Failed",  "FAILED",  "failure", "Failure",
    "FAILURE", "fatal",   "Fatal",   "FATAL",    "abort",     "Abort",   "aborted", "Aborted", "ABORT",
    "panic",   "Killed",  "killed",  "cannot",   "Cannot",    "Unable",  "unable",  "refused", "denied",
    "Timeout", "exceeded", "SIGSEGV", "SIGABRT", "SIGBUS",   "Unhealthy", "unhealthy"};

// Phrases read as they stand (their words alone are too common).
constexpr std::array<std::string_view, 11> kPhrases = {
    "timed out",    "Timed out",           "not found",     "No such file",   "Segmentation fault",  "core dumped",
    "Bus error",    "Segmentation violation", "Illegal instruction", "out of memory", "Out of memory"};

// "0 errors", "no error", "without error": the word counts none.
bool counts_none(std::string_view line, size_t at) {
  std::string_view before = line.substr(0, at);
  while (!before.empty() && (before.back() == ' ' || before.back() == '\t')) before.remove_suffix(1);
  for (std::string_view none : {"0", "no", "No", "without", "zero"}) {
    if (before.size() >= none.size() && before.substr(before.size() - none.size()) == none &&
        (before.size() == none.size() || !word_char(before[before.size() - none.size() - 1])))
      return true;
  }
  // "errors: 0", "error=0", "error count 0"
  std::string_view after = line.substr(at);
  size_t i = 0;
  while (i < after.size() && word_char(after[i])) ++i;
  while (i < after.size() && (after[i] == ':' || after[i] == '=' || after[i] == ' ')) ++i;
  return i < after.size() && after[i] == '0' && (i + 1 == after.size() || !ascii_alnum(after[i + 1]));
}

// The word at `at` of `size` bytes stands alone: no identifier's letters, digits or '_' around it
// (an exception's class, "RuntimeError", is checked by exception_class).
bool alone(std::string_view line, size_t at, size_t size) {
  // a path's or a dotted name's part ("/var/log/errors", "torch.errors", "error.log") is a name
  if (at > 0 && (word_char(line[at - 1]) || line[at - 1] == '.' || line[at - 1] == '/')) return false;
  const size_t end = at + size;
  if (end + 1 < line.size() && line[end] == '.' && word_char(line[end + 1])) return false;
  return end == line.size() || !word_char(line[end]);
}

// "ValueError:", "torch.OutOfMemoryError", "java.io.IOException": a CamelCase class ending in
// Error or Exception, followed by ':' or the line's end.
bool exception_class(std::string_view line) {
  for (std::string_view suffix : {std::string_view("Error"), std::string_view("Exception")}) {
    for (size_t at = line.find(suffix); at != std::string_view::npos; at = line.find(suffix, at + 1)) {
      const size_t end = at + suffix.size();
      if (at == 0 || !(lower(line[at - 1]) || upper(line[at - 1]))) continue;  // a word of its own: kWords
      if (end < line.size() && line[end] != ':') continue;
      return true;
    }
  }
  return false;
}

// A traceback's frame or marker, a stack's address line: context, not the error.
bool trace_line(std::string_view s) {
  return starts_with(s, "File \"") || starts_with(s, "Traceback (most recent call last)") || starts_with(s, "frame #") ||
         starts_with(s, "at ") || starts_with(s, "^") || starts_with(s, "~") || starts_with(s, "During handling of");
}

}  // namespace

bool looks_like_error(std::string_view line) {
  size_t lead = 0;
  while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
  std::string_view s = line.substr(lead);
  if (s.empty() || trace_line(s)) return false;
  for (std::string_view p : kPhrases)
    if (s.find(p) != std::string_view::npos) return true;
  for (std::string_view w : kWords)
    for (size_t at = s.find(w); at != std::string_view::npos; at = s.find(w, at + 1))
      if (alone(s, at, w.size()) && !counts_none(s, at)) return true;
  return exception_class(s);
}

}  // namespace attribution

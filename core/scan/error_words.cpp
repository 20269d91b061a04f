#include "core/scan/error_words.hpp"

#include <algorithm>
#include <array>

#include "core/scan/host_word.hpp"
#include "core/scan/written_time.hpp"

namespace attribution {
namespace {

bool letter(char c) { return ascii_alnum(c) && !is_digit(c); }
bool word_char(char c) { return ascii_alnum(c) || c == '_'; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// Words that say something went wrong, as programs spell them. A plural or past form is listed
// where programs print it ("errors", "aborted").
constexpr std::array<std::string_view, 40> kWords = {
    "error",    "Error",    "ERROR",   "errors",  "Errors",    "ERRORS",           "failed",   "Failed",
    "FAILED",   "failure",  "Failure", "FAILURE", "fatal",     "Fatal",            "FATAL",    "abort",
    "Abort",    "aborted",  "Aborted", "ABORT",   "panic",     "Killed",           "killed",   "cannot",
    "Cannot",   "Unable",   "unable",  "refused", "denied",    "Timeout",          "exceeded", "SIGSEGV",
    "SIGABRT",  "SIGBUS",   "Unhealthy", "unhealthy", "Exception", "Terminated", "OOMKilled", "CrashLoopBackOff"};

// Phrases read as they stand (their words alone are too common, or are part of a longer word).
constexpr std::array<std::string_view, 21> kPhrases = {
    "timed out",           "Timed out",          "not found",          "No such file",      "Segmentation fault",
    "core dumped",         "Bus error",          "Segmentation violation", "Illegal instruction", "out of memory",
    "Out of memory",       "panicked",           "Floating point exception", "terminate called",  "bad_alloc",
    "Broken pipe",         "Connection reset",   "connection reset",   "Stale file handle",  "Read-only file system", "No space left"};

// A level that says the line is not an error: INFO, DEBUG and TRACE as loggers print them (NCCL's
// "NCCL INFO", "[INFO]", "INFO:", "| INFO |", logfmt's level=info, glog's "I1207 ..."). Startup
// probes log their failures at these levels ("NET/IB : Unable to open device").
bool quiet_level(std::string_view s) {
  for (std::string_view level : {"INFO", "DEBUG", "TRACE"}) {
    for (size_t at = s.find(level); at != std::string_view::npos; at = s.find(level, at + 1)) {
      const size_t end = at + level.size();
      const bool open = at == 0 || !ascii_alnum(s[at - 1]);
      const bool close = end == s.size() || s[end] == ' ' || s[end] == ':' || s[end] == ']' || s[end] == '|';
      if (open && close) return true;
    }
  }
  if (contains(s, "level=info") || contains(s, "level=debug")) return true;
  // glog: severity letter, month and day, then the time ("I1207 09:15:07.980798")
  return s.size() > 6 && (s[0] == 'I' || s[0] == 'V') && std::all_of(s.begin() + 1, s.begin() + 5, is_digit) && s[5] == ' ';
}

// The word before position `at` (letters only): what a number before an error word counts.
std::string_view word_before(std::string_view s, size_t at) {
  while (at > 0 && !ascii_alnum(s[at - 1])) --at;
  size_t from = at;
  while (from > 0 && (letter(s[from - 1]) || s[from - 1] == '_')) --from;
  return s.substr(from, at - from);
}

// "0 errors", "no error", "without error", "errors: 0", "\"error\": null": the word counts none.
// A 0 that numbers something ("rank 0 failed", "GPU 0 error", "cuda:0 failed") is not a count.
bool counts_none(std::string_view line, size_t at) {
  std::string_view before = line.substr(0, at);
  while (!before.empty() && (before.back() == ' ' || before.back() == '\t')) before.remove_suffix(1);
  for (std::string_view none : {"no", "No", "without", "zero"})
    if (before.size() >= none.size() && before.substr(before.size() - none.size()) == none &&
        (before.size() == none.size() || !word_char(before[before.size() - none.size() - 1])))
      return true;
  if (!before.empty() && before.back() == '0' && (before.size() == 1 || before[before.size() - 2] == ' ')) {
    static constexpr std::array<std::string_view, 21> kNumbered = {
        "rank", "Rank", "RANK", "gpu",     "GPU",     "device",     "Device", "worker", "Worker", "node", "Node",
        "task", "Task", "process", "Process", "local_rank", "cuda",   "step",   "Step",   "epoch", "Epoch"};
    const std::string_view subject = word_before(before, before.size() - 1);
    if (std::find(kNumbered.begin(), kNumbered.end(), subject) == kNumbered.end()) return true;
  }
  std::string_view after = line.substr(at);
  size_t i = 0;
  while (i < after.size() && word_char(after[i])) ++i;
  while (i < after.size() && (after[i] == ':' || after[i] == '=' || after[i] == ' ' || after[i] == '"' || after[i] == '\'')) ++i;
  after.remove_prefix(i);
  if (!after.empty() && after[0] == '0' && (after.size() == 1 || !ascii_alnum(after[1]))) return true;
  for (std::string_view none : {"null", "None", "[]", "{}", "false", "False"})
    if (after.starts_with(none)) return true;
  return false;
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
      if (at == 0 || !letter(line[at - 1])) continue;  // a word of its own: kWords
      if (end < line.size() && line[end] != ':') continue;
      return true;
    }
  }
  return false;
}

// A traceback's frame or marker, a stack's address line, the source line a frame shows: context, not
// the error.
bool trace_line(std::string_view s) {
  for (std::string_view p : {"File \"", "Traceback (most recent call last)", "frame #", "at ", "^", "~", "During handling of",
                             "Exception raised from", "except ", "raise "})
    if (s.starts_with(p)) return true;
  return false;
}

}  // namespace

bool looks_like_error(std::string_view line) {
  size_t lead = 0;
  while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
  std::string_view s = line.substr(lead);
  if (s.empty() || trace_line(s) || quiet_level(s)) return false;
  for (std::string_view p : kPhrases)
    if (contains(s, p)) return true;
  for (std::string_view w : kWords)
    for (size_t at = s.find(w); at != std::string_view::npos; at = s.find(w, at + 1))
      if (alone(s, at, w.size()) && !counts_none(s, at)) return true;
  return exception_class(s);
}

}  // namespace attribution

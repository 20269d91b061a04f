#include "core/scan/file_times.hpp"

#include <algorithm>

#include "core/base/text.hpp"
#include "core/rules/literal_search.hpp"

namespace attribution {

namespace {
constexpr int64_t kInferSearchLines = 5000;  // how far a line without a time looks for its neighbours'
constexpr size_t kSweepBytes = size_t(64) << 10;  // a look-around sweeps this much between line counts
}  // namespace

FileTimes::FileTimes(std::string_view buf, TimeContext ctx, bool year_known, Micros unknown,
                     std::function<int64_t(size_t)> origin, std::function<void(size_t)> touch)
    : buf_(buf), ctx_(std::move(ctx)), year_known_(year_known), unknown_(unknown), origin_(std::move(origin)),
      touch_(std::move(touch)) {}

std::optional<Micros> FileTimes::time_of(const LinePrefix& p, bool note_guess) {
  if (!p.civil && !p.epoch && p.mono && !ctx_.boot) ctx_.boot = boot_from_file();
  if (note_guess && p.civil && p.civil->year == 0 && !year_known_) year_guessed_ = true;
  return resolve_time(p, ctx_);
}

// dmesg seconds since boot: the first line that gives both a wall time and its seconds since boot.
std::optional<Micros> FileTimes::boot_from_file() {
  if (boot_searched_) return boot_;
  boot_searched_ = true;
  size_t pos = 0;
  for (int n = 0; n < 200000 && pos < buf_.size(); ++n) {
    LinePrefix p = parse_line_prefix(line_at(buf_, pos));
    if (p.mono && (p.civil || p.epoch)) {
      TimeContext c = ctx_;
      c.boot.reset();
      LinePrefix wall = p;
      wall.mono.reset();
      if (auto t = resolve_time(wall, c)) {
        touch_(pos);
        boot_ = *t - *p.mono;
        return boot_;
      }
    }
    size_t eol = buf_.find('\n', pos);
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  return boot_;
}

// A time anchor: the time the line at `start` (one holding a stamp's mark) carries, if any; a line
// read for its time is recorded.
std::optional<FileTimes::Anchor> FileTimes::anchor_at(size_t start) {
  auto t = time_of(prefix_at(start));
  if (!t) return std::nullopt;
  touch_(start);
  return Anchor{start, t};
}

// The lines before q's (q starts a line), nearest first, at most kInferSearchLines of them, none
// starting at or before `floor` (unless floor is 0) and, with `reach`, none farther from q than that
// (in the original file): the first with a time. Only lines holding a stamp's mark are parsed; the
// sweep between them counts newlines, not lines visited one by one.
std::optional<FileTimes::Anchor> FileTimes::search_back(size_t q, size_t floor, std::optional<int64_t> reach) {
  size_t hi = q;          // marks are looked for before hi
  int64_t lines_up = 0;   // lines starting in [hi, q): the line containing hi - 1 is number lines_up
  auto beyond = [&](size_t pos) { return reach && origin_(q) - origin_(pos) > *reach; };
  while (hi > floor) {
    const size_t lo = hi - std::min(hi - floor, kSweepBytes);
    const size_t c = prev_time_mark(buf_, lo, hi);
    const size_t start = c == std::string_view::npos ? lo : line_start(buf_, c);  // of c's line, or the sweep's
    if (c != std::string_view::npos && floor > 0 && start <= floor) return std::nullopt;
    if (beyond(start)) return std::nullopt;
    lines_up += static_cast<int64_t>(count_byte(buf_.substr(start, hi - start), '\n'));
    if (lines_up > kInferSearchLines) return std::nullopt;  // c's line would be number lines_up - 1
    if (c != std::string_view::npos)
      if (auto a = anchor_at(start)) return a;
    hi = start;
  }
  return std::nullopt;
}

// The lines after q's, nearest first, at most kInferSearchLines of them: the first with a time, or
// where the look stopped.
FileTimes::Anchor FileTimes::search_forward(size_t q) {
  const size_t first_nl = buf_.find('\n', q);
  if (first_nl == std::string_view::npos) return Anchor{buf_.size(), std::nullopt};  // q's is the last line
  size_t line = first_nl + 1;  // the next unread line
  size_t swept = line;         // marks are looked for from here (mid-line when a line is longer than a sweep)
  int64_t index = 0;           // of the line at `line`
  // (line, index) before the last count: a count may carry index past the limit.
  size_t counted_from = line;
  int64_t counted_from_index = 0;
  auto count_to = [&](size_t next) {
    counted_from = line, counted_from_index = index;
    index += static_cast<int64_t>(count_byte(buf_.substr(line, next - line), '\n'));
    line = next;
  };
  while (line < buf_.size() && index < kInferSearchLines) {
    const size_t to = std::min(buf_.size(), swept + kSweepBytes);
    size_t c = next_time_mark(buf_, swept, to);
    if (c == std::string_view::npos) {
      if (to == buf_.size()) break;
      if (size_t next = line_start(buf_, to); next > line) count_to(next);
      swept = to;
      continue;
    }
    count_to(line_start(buf_, c));
    if (index >= kInferSearchLines) break;
    if (auto a = anchor_at(line)) return *a;
    size_t nl = buf_.find('\n', c);
    if (nl == std::string_view::npos) break;
    line = swept = nl + 1;
    ++index;
  }
  // Not found: where a line-by-line look would have stopped (the newline after the last line it
  // read), which later queries use as the edge of what was read: the kInferSearchLines-th newline
  // after q's line, counted on from the last line whose index is at most that.
  const bool past = index > kInferSearchLines;
  size_t p = (past ? counted_from : line) - 1;  // the newline before it (q's own for index 0)
  for (int64_t n = past ? counted_from_index : index; n < kInferSearchLines && p != std::string_view::npos && p + 1 < buf_.size(); ++n)
    p = buf_.find('\n', p + 1);
  return Anchor{p == std::string_view::npos ? buf_.size() : p, std::nullopt};
}

LinePrefix FileTimes::prefix_at(size_t start) {
  for (const Parsed& e : parsed_)
    if (e.pos == start) return e.prefix;
  Parsed& e = parsed_[next_parsed_];
  next_parsed_ ^= 1;
  e.pos = start;
  e.prefix = parse_line_prefix(line_at(buf_, start));
  return e.prefix;
}

Micros FileTimes::inferred_time(size_t q) {
  std::optional<Anchor> prev;
  Anchor next{0, std::nullopt};
  if (last_query_ && q > *last_query_ && q < last_next_.pos) {
    prev = last_prev_;  // nothing timed lies between the last query and its next anchor
    next = last_next_;
  } else {
    size_t floor = 0;
    std::optional<Anchor> below;
    if (last_query_ && q > *last_query_) {
      // The last forward search read every line up to last_next_.pos: none of them is read again.
      bool next_is_below = last_next_.time && last_next_.pos < q;
      floor = std::max(*last_query_, last_next_.pos);
      below = next_is_below ? std::optional<Anchor>(last_next_) : last_prev_;
    }
    // Forward first: a timed line after q bounds the look back, as one before q counts only when it
    // is no farther (the earlier wins a tie). A line found farther back would lose to `next` here and
    // for every later query that reuses this answer; `below` is farther still.
    next = search_forward(q);
    prev = search_back(q, floor, next.time ? std::optional<int64_t>(origin_(next.pos) - origin_(q)) : std::nullopt);
    if (!prev) prev = below;
  }
  last_query_ = q;
  last_prev_ = prev;
  last_next_ = next;
  if (next.time && (!prev || origin_(next.pos) - origin_(q) < origin_(q) - origin_(prev->pos))) return *next.time;
  if (prev) return *prev->time;
  return unknown_;  // nothing in this file has a time (never the moment the file was copied)
}

std::vector<size_t> window_line_starts(std::string_view buf, FileTimes& times, const Window* window) {
  std::vector<size_t> keep, run;
  std::optional<size_t> prev;
  bool prev_in = false;
  for (size_t pos = 0; pos < buf.size();) {
    std::optional<Micros> t = times.time_of(parse_line_prefix(line_at(buf, pos)), false);
    if (!t) {
      run.push_back(pos);
    } else {
      bool in = !window || window->contains(*t);
      if (!run.empty() && (in || (prev && prev_in))) {
        keep.insert(keep.end(), run.begin(), run.end());
        if (prev) keep.push_back(*prev);
        keep.push_back(pos);
      }
      run.clear();
      if (in) keep.push_back(pos);
      prev = pos;
      prev_in = in;
    }
    size_t eol = buf.find('\n', pos);
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  if (!run.empty() && (!prev || prev_in)) {
    keep.insert(keep.end(), run.begin(), run.end());
    if (prev) keep.push_back(*prev);
  }
  return keep;
}

}  // namespace attribution

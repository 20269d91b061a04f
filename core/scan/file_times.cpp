#include "core/scan/file_times.hpp"

#include <algorithm>

#include "core/base/text.hpp"

namespace attribution {

namespace {
constexpr int kInferSearchLines = 5000;  // how far a line without a time looks for its neighbours'
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

// The time the line at `start` carries, if any; most lines a look-around passes carry none.
std::optional<Micros> FileTimes::own_time(size_t start) {
  std::string_view line = line_at(buf_, start);
  if (!may_carry_time(line)) return std::nullopt;
  return time_of(parse_line_prefix(line));
}

std::optional<FileTimes::Anchor> FileTimes::search_back(size_t q, size_t floor) {
  size_t start = q;
  for (int n = 0; n < kInferSearchLines && start > floor; ++n) {
    start = line_start(buf_, start - 1);  // the line before: this walk crosses every line between untimed findings
    if (start <= floor && floor > 0) break;
    if (auto t = own_time(start)) {
      touch_(start);
      return Anchor{start, t};
    }
  }
  return std::nullopt;
}

FileTimes::Anchor FileTimes::search_forward(size_t q) {
  size_t p = buf_.find('\n', q);
  for (int n = 0; n < kInferSearchLines && p != std::string_view::npos && p + 1 < buf_.size(); ++n) {
    if (auto t = own_time(p + 1)) {
      touch_(p + 1);
      return Anchor{p + 1, t};
    }
    p = buf_.find('\n', p + 1);
  }
  return Anchor{p == std::string_view::npos ? buf_.size() : p, std::nullopt};
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
    prev = search_back(q, floor);
    if (!prev) prev = below;
    next = search_forward(q);
  }
  last_query_ = q;
  last_prev_ = prev;
  last_next_ = next;
  if (next.time && (!prev || origin_(next.pos) - origin_(q) < origin_(q) - origin_(prev->pos))) return *next.time;
  if (prev) return *prev->time;
  return unknown_;  // nothing in this file has a time (never the moment the file was copied)
}

}  // namespace attribution

#pragma once
// The times of one file's lines: a line's own (its prefix; dmesg seconds since boot with the boot
// time the file itself gives), and for a line without one, the nearest timed line's.
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "core/base/model.hpp"
#include "core/scan/line_prefix.hpp"

namespace attribution {

class FileTimes {
 public:
  // `year_known`: the job gives year-less stamps their year (else it is guessed, and said so).
  // `unknown`: the time of a line in a file where nothing has a time (the window's start, or
  // kTimeUnknown). `origin`: where a position lies in the original file (a replay's extract keeps
  // only some lines; distances are the original's). `touch`: told every line read for a time.
  FileTimes(std::string_view buf, TimeContext ctx, bool year_known, Micros unknown, std::function<int64_t(size_t)> origin,
            std::function<void(size_t)> touch);

  // `note_guess`: a year-less stamp read here counts as a guessed year (the report says so); a
  // recording's look at every line for its window must not, or recording would change the report.
  std::optional<Micros> time_of(const LinePrefix& p, bool note_guess = true);
  // The time of the nearest timed line in the file (by byte distance; the earlier on a tie) for the
  // line at `q`, which has none: a bounded time, marked inferred by the caller. Queries in file
  // order reuse the last answer across a run of untimed lines instead of searching again.
  Micros inferred_time(size_t q);
  // The prefix of the line starting at `start`. The lines last read for a time are kept: the timed
  // line a forward look found is often the next line the scan reads.
  LinePrefix prefix_at(size_t start);
  const TimeContext& context() const { return ctx_; }
  bool year_guessed() const { return year_guessed_; }

 private:
  struct Anchor {
    size_t pos;
    std::optional<Micros> time;  // unset: nothing timed before `pos` (a forward search's limit)
  };
  std::optional<Micros> boot_from_file();
  std::optional<Anchor> anchor_at(size_t start);
  std::optional<Anchor> search_back(size_t q, size_t floor, std::optional<int64_t> reach);
  Anchor search_forward(size_t q);

  std::string_view buf_;
  TimeContext ctx_;
  bool year_known_;
  Micros unknown_;
  std::function<int64_t(size_t)> origin_;
  std::function<void(size_t)> touch_;
  bool year_guessed_ = false;
  bool boot_searched_ = false;
  std::optional<Micros> boot_;
  std::optional<size_t> last_query_;
  std::optional<Anchor> last_prev_;
  Anchor last_next_{0, std::nullopt};
  struct Parsed {
    size_t pos = SIZE_MAX;
    LinePrefix prefix;
  };
  Parsed parsed_[2];  // the two lines last parsed, the newer at parsed_[next_parsed_ ^ 1]
  int next_parsed_ = 0;
};

// What a recording keeps of a file for its replay (the starts of those lines): the lines whose own time
// is in `window`, and each run of lines without a time next to one that is, with the timed lines on
// both sides of the run (its time anchors). Without a window (null) every line is in it.
std::vector<size_t> window_line_starts(std::string_view buf, FileTimes& times, const Window* window);

}  // namespace attribution

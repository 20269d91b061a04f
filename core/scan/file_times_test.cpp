#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "core/base/text.hpp"
#include "core/scan/file_times.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {
TimeContext utc2025() { return TimeContext{TimeZone::utc(), test::utc("2025-03-14T00:00:00Z"), std::nullopt, std::nullopt, std::nullopt}; }
}  // namespace

TEST_CASE("file times: an untimed line takes the nearest timed line's time, the earlier on a tie") {
  const std::string buf =
      "2025-03-14T09:00:00Z node1 a\n"
      "untimed one\n"
      "untimed two long line here\n"
      "2025-03-14T09:10:00Z node1 b\n";
  const size_t one = buf.find("untimed one"), two = buf.find("untimed two"), last = buf.rfind("2025");
  std::vector<size_t> touched;
  FileTimes t(buf, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); },
              [&](size_t p) { touched.push_back(p); });
  REQUIRE(one < last - one);  // nearer the first timed line
  CHECK(t.inferred_time(one) == test::utc("2025-03-14T09:00:00Z"));
  REQUIRE(last - two < two);  // nearer the last
  CHECK(t.inferred_time(two) == test::utc("2025-03-14T09:10:00Z"));
  CHECK_FALSE(touched.empty());  // the anchors read are recorded
  CHECK_FALSE(t.year_guessed());
}

TEST_CASE("file times: nothing timed gives the caller's bound / dmesg seconds take the file's boot") {
  FileTimes none("no time\nat all\n", utc2025(), true, 42, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
  CHECK(none.inferred_time(std::string_view("no time\n").size()) == 42);
  const std::string dmesg =
      "2025-03-14T09:00:00Z node1 kernel: [  100.000000] booted a while ago\n"
      "[  160.500000] NVRM: Xid 79\n";
  FileTimes t(dmesg, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
  auto later = t.time_of(parse_line_prefix("[  160.500000] NVRM: Xid 79"));
  REQUIRE(later);
  CHECK(*later == test::utc("2025-03-14T09:01:00.5Z"));
}

TEST_CASE("file times: a year-less stamp with no year from the job is a guess, and says so") {
  FileTimes t("Mar 14 09:41:07 node1 kernel: x\n", utc2025(), false, kTimeUnknown,
              [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
  CHECK(t.time_of(parse_line_prefix("Mar 14 09:41:07 node1 kernel: x")));
  CHECK(t.year_guessed());
}

namespace {
// Every line's own time, read by a FileTimes of its own so the ones under test see only their calls.
std::vector<std::optional<Micros>> own_times(const std::string& buf, const std::vector<size_t>& starts) {
  FileTimes reference(buf, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
  std::vector<std::optional<Micros>> own;
  for (size_t s : starts) own.push_back(reference.time_of(parse_line_prefix(line_at(buf, s)), false));
  return own;
}

// The nearest timed line by brute force: the closest timed line on each side, the earlier on a tie.
Micros nearest_by_brute_force(const std::vector<size_t>& starts, const std::vector<std::optional<Micros>>& own, size_t i) {
  std::optional<size_t> prev, next;
  for (size_t j = 0; j < starts.size(); ++j) {
    if (j == i || !own[j]) continue;
    if (j < i) prev = j;
    else if (!next) next = j;
  }
  const size_t q = starts[i];
  if (next && (!prev || starts[*next] - q < q - starts[*prev])) return *own[*next];
  return prev ? *own[*prev] : kTimeUnknown;
}
}  // namespace

TEST_CASE("file times: the look for the nearest timed line finds what reading every line finds") {
  // Lines with and without stamps, lines with mark bytes that are no stamp (NCCL's host:pid:tid, a
  // clock in the middle, '{' and '[' not followed by seconds), CRLF, empty lines, and lines longer
  // than one sweep of the look-around with or without a stamp at their end.
  const std::vector<std::string> kinds = {
      "2025-03-14T09:0{m}:00Z node1 timed",
      "Mar 14 09:4{m}:07 node1 kernel: syslog timed",
      "node0001:100000:100000 [0] NCCL INFO Channel 00/0{m} : 0[0] -> 1[1]",
      "[rank0]: step {m} loss 1.0",
      "text with a clock 12:3{m}:56 inside",
      "{\"not\": \"json {m}\"",
      "[ 12.5{m}] no boot time for this",
      "",
      "crlf line {m}\r",
      std::string(70000, 'x') + " long line {m}",
      std::string(70000, 'y') + " 2025-03-14T10:0{m}:00Z late stamp",
  };
  std::mt19937 rng(20261204);
  for (int round = 0; round < 40; ++round) {
    std::string buf;
    std::vector<size_t> starts;
    const int lines = 20 + static_cast<int>(rng() % 200);
    for (int i = 0; i < lines; ++i) {
      std::string l = kinds[rng() % kinds.size()];
      if (size_t m = l.find("{m}"); m != std::string::npos) l.replace(m, 3, std::to_string(rng() % 10));
      starts.push_back(buf.size());
      buf += l + (i + 1 < lines || rng() % 2 ? "\n" : "");
    }
    FileTimes in_order(buf, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
    FileTimes any_order(buf, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
    const auto own = own_times(buf, starts);
    std::vector<size_t> shuffled(starts.size());
    for (size_t i = 0; i < shuffled.size(); ++i) shuffled[i] = i;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    for (size_t i = 0; i < starts.size(); ++i) {
      if (!in_order.time_of(parse_line_prefix(line_at(buf, starts[i])), false)) {
        INFO("round " << round << ", line " << i);
        CHECK(in_order.inferred_time(starts[i]) == nearest_by_brute_force(starts, own, i));
      }
      const size_t k = shuffled[i];
      if (!any_order.time_of(parse_line_prefix(line_at(buf, starts[k])), false)) {
        INFO("round " << round << ", shuffled query " << i);
        CHECK(any_order.inferred_time(starts[k]) == nearest_by_brute_force(starts, own, k));
      }
    }
  }
}

TEST_CASE("file times: the look goes at most 5000 lines each way") {
  auto with_gap = [](int untimed) {
    std::string buf = "2025-03-14T09:00:00Z node1 before\n";
    for (int i = 0; i < untimed; ++i) buf += "node1:1:1 [0] NCCL INFO untimed\n";
    return buf;
  };
  for (int gap : {4999, 5000, 5001, 6000}) {
    const std::string buf = with_gap(gap);
    const size_t last = buf.rfind("node1:1:1");
    FileTimes t(buf, utc2025(), true, 7, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
    INFO("untimed lines: " << gap);
    // The last untimed line is `gap` lines below the stamp: found within 5000 lines only.
    CHECK(t.inferred_time(last) == (gap <= 5000 ? test::utc("2025-03-14T09:00:00Z") : Micros{7}));
    // The same distance looking forward: the first line asks, the stamp is `gap` lines below it.
    std::string down;
    for (int i = 0; i < gap; ++i) down += "node1:1:1 [0] NCCL INFO untimed\n";
    down += "2025-03-14T09:00:00Z node1 after\n";
    FileTimes f(down, utc2025(), true, 7, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
    CHECK(f.inferred_time(0) == (gap <= 5000 ? test::utc("2025-03-14T09:00:00Z") : Micros{7}));
  }
}

TEST_CASE("file times: a line's prefix is the parser's, whether kept from a look for a time or read afresh") {
  const std::string buf =
      "node7:11:12 [0] NCCL INFO Using network IB\n"
      "2025-03-14T09:00:00Z node1 first\n"
      "node7:11:12 [0] NCCL INFO cudaDriverVersion 12040\n"
      "Mar 14 09:00:05 node2 kernel: second\n"
      "[rank3]: third\n";
  FileTimes t(buf, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
  std::vector<size_t> starts{0};
  for (size_t nl = buf.find('\n'); nl + 1 < buf.size(); nl = buf.find('\n', nl + 1)) starts.push_back(nl + 1);
  // A look for a time keeps the timed lines around the untimed one; then every line, twice over, in
  // an order that evicts what was kept.
  t.inferred_time(starts[2]);
  for (int round = 0; round < 2; ++round)
    for (size_t k : {4, 1, 3, 1, 0, 2, 2}) {
      LinePrefix want = parse_line_prefix(line_at(buf, starts[k]));
      LinePrefix got = t.prefix_at(starts[k]);
      INFO("line " << k);
      CHECK(got.host == want.host);
      CHECK(std::tie(got.rank, got.task, got.local_rank, got.gpu, got.pid, got.message_offset) ==
            std::tie(want.rank, want.task, want.local_rank, want.gpu, want.pid, want.message_offset));
      CHECK(got.epoch == want.epoch);
      CHECK(got.mono == want.mono);
      REQUIRE(got.civil.has_value() == want.civil.has_value());
      if (want.civil)
        CHECK(std::tie(got.civil->year, got.civil->month, got.civil->day, got.civil->hour, got.civil->minute,
                       got.civil->second, got.civil->micros, got.civil->utc_offset_s) ==
              std::tie(want.civil->year, want.civil->month, want.civil->day, want.civil->hour, want.civil->minute,
                       want.civil->second, want.civil->micros, want.civil->utc_offset_s));
    }
  // The lines differ from each other, so a kept prefix returned for the wrong line would show.
  CHECK(t.prefix_at(starts[1]).host != t.prefix_at(starts[3]).host);
}

TEST_CASE("file times: a look back goes no farther than the timed line found after the line") {
  // The nearest timed line is the next one: the stamp 3000 lines up is neither read nor recorded
  // (a tail rule's look from a file's end would otherwise sweep thousands of lines back).
  std::string buf = "2025-03-14T09:00:00Z node1 far before\n";
  for (int i = 0; i < 3000; ++i) buf += "node1:1:1 [0] NCCL INFO untimed\n";
  const size_t q = buf.size();
  buf += "node1:1:1 [0] NCCL INFO the line asking\n";
  const size_t after = buf.size();
  buf += "2025-03-14T09:05:00Z node1 right after\n";
  std::vector<size_t> read;
  FileTimes t(buf, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); },
              [&](size_t p) { read.push_back(p); });
  CHECK(t.inferred_time(q) == test::utc("2025-03-14T09:05:00Z"));
  CHECK(read == std::vector<size_t>{after});
  // A timed line as near before as the next one is after still wins the tie.
  std::string tie = "2025-03-14T09:00:00Z a\nuntimed line, 23 bytes\n2025-03-14T09:05:00Z b\n";
  REQUIRE(tie.find("untimed") * 2 == tie.find("2025-03-14T09:05"));  // as far from each
  FileTimes u(tie, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
  CHECK(u.inferred_time(tie.find("untimed")) == test::utc("2025-03-14T09:00:00Z"));
}

TEST_CASE("file times: a look that finds nothing marks how far it read, and later looks reuse it up to there") {
  // 7000 untimed lines, then a stamp. The look from line 0 reads 5000 lines on and finds nothing:
  // a later line up to the last one it read reuses that answer (nothing), one past it looks afresh
  // and finds the stamp. Long lines make the look sweep in several steps; marks that are no stamp
  // make it stop and count on.
  for (const std::string& filler : {std::string("node1:1:1 [0] NCCL INFO untimed"), std::string(300, 'x'),
                                    std::string("tqdm [00:00:43<03:54:54] and [12.x]")}) {
    std::string buf;
    std::vector<size_t> starts;
    for (int i = 0; i < 7000; ++i) starts.push_back(buf.size()), buf += filler + "\n";
    buf += "2025-03-14T09:00:00Z node1 late\n";
    for (int probe : {4999, 5000, 5001}) {
      FileTimes t(buf, utc2025(), true, 7, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
      CHECK(t.inferred_time(starts[0]) == 7);
      INFO("filler '" << filler.substr(0, 20) << "', then line " << probe);
      CHECK(t.inferred_time(starts[static_cast<size_t>(probe)]) == (probe <= 5000 ? Micros{7} : test::utc("2025-03-14T09:00:00Z")));
    }
  }
}

TEST_CASE("file times: a recording keeps the window's lines and the untimed runs beside them, with their anchors") {
  const std::vector<std::string> lines = {"2025-03-14T08:00:00Z node1 before the window", "untimed, next to the window",
                                          "2025-03-14T09:00:00Z node1 in the window", "untimed, after it",
                                          "2025-03-14T11:00:00Z node1 after the window", "untimed, between two outside",
                                          "2025-03-14T12:00:00Z node1 later still"};
  std::string buf;
  std::vector<size_t> starts;
  for (const auto& l : lines) {
    starts.push_back(buf.size());
    buf += l + "\n";
  }
  FileTimes t(buf, utc2025(), true, kTimeUnknown, [](size_t p) { return static_cast<int64_t>(p); }, [](size_t) {});
  const Window window{test::utc("2025-03-14T08:30:00Z"), test::utc("2025-03-14T10:00:00Z")};
  auto kept = window_line_starts(buf, t, &window);
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  CHECK(kept == std::vector<size_t>{starts[0], starts[1], starts[2], starts[3], starts[4]});
  auto all = window_line_starts(buf, t, nullptr);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  CHECK(all == starts);
}

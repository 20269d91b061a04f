#include "core/scan/written_time.hpp"

#include <random>
#include <string>

#include <catch2/catch.hpp>

using namespace attribution;

namespace {
bool same(const CivilTime& t, int y, int mo, int d, int h, int mi, int s, int64_t us = 0) {
  return t.year == y && t.month == mo && t.day == d && t.hour == h && t.minute == mi && t.second == s && t.micros == us;
}
}  // namespace

TEST_CASE("written time: a clock with or without its fraction, and what is not a clock") {
  CivilTime t;
  size_t i = 4;
  REQUIRE(read_clock("at  09:41:07.123 x", i, t));
  CHECK(i == 16);
  CHECK((t.hour == 9 && t.minute == 41 && t.second == 7 && t.micros == 123000));
  i = 0;
  REQUIRE(read_clock("23:59:60,5", i, t));  // a leap second, a comma before the fraction
  CHECK(t.micros == 500000);
  for (const char* bad : {"24:00:00", "9:41:07", "09:61:00", "09:41", "09-41-07"}) {
    i = 0;
    CHECK_FALSE(read_clock(bad, i, t));
  }
}

TEST_CASE("written time: digits at an offset, bounded") {
  int64_t v = 0;
  size_t i = 3;
  REQUIRE(read_number("pid12345:", i, &v));
  CHECK((v == 12345 && i == 8));
  i = 0;
  REQUIRE(read_number("2025", i, &v, 2));  // at most two digits: "20", the rest left
  CHECK((v == 20 && i == 2));
  i = 0;
  CHECK_FALSE(read_number("x1", i, &v));
}

TEST_CASE("written time: dmesg -T and Fabric Manager's bracketed stamps") {
  CivilTime t;
  CHECK(bracketed_month_stamp("[Sun Feb 23 16:24:18 2025] NVRM", 5, false, t) == 26);
  CHECK(same(t, 2025, 2, 23, 16, 24, 18));
  CHECK(bracketed_month_stamp("[Jul  9 2025 18:34:57] [ERROR]", 1, true, t) == 22);
  CHECK(same(t, 2025, 7, 9, 18, 34, 57));
  CHECK(bracketed_month_stamp("[Sun Foo 23 16:24:18 2025]", 5, false, t) == 0);
  CHECK(bracketed_month_stamp("[Sun Feb 32 16:24:18 2025]", 5, false, t) == 0);
}

TEST_CASE("written time: glog headers, padded and c10's unpadded month") {
  CivilTime t;
  REQUIRE(glog_time("E1218 20:27:21.426415540 file.cc:12]", 0, t));
  CHECK((t.year == 0 && t.month == 12 && t.day == 18 && t.hour == 20 && t.micros == 426415));
  REQUIRE(glog_time("[W509 01:02:03.5 x]", 1, t));
  CHECK((t.month == 5 && t.day == 9));
  CHECK_FALSE(glog_time("X1218 20:27:21", 0, t));
  CHECK_FALSE(glog_time("E1318 20:27:21 x", 0, t));  // no month 13
}

TEST_CASE("written time: Go's and Python's slash dates, date(1)") {
  CivilTime t;
  CHECK(slash_date("2024/08/09 13:32:51.873541 x", t) == 26);
  CHECK(same(t, 2024, 8, 9, 13, 32, 51, 873541));
  CHECK(slash_date("05/01/2024 12:00:00 - INFO", t) == 19);
  CHECK(same(t, 2024, 5, 1, 12, 0, 0));
  CHECK(slash_date("13/01/2024 12:00:00 - INFO", t) == 0);  // month first: 13 is no month
  CHECK(slash_date("1/2/3 4:5:6 and more text after", t) == 0);
  CHECK(date_output("Thu May  2 10:00:00 2024", t) == 24);
  CHECK(same(t, 2024, 5, 2, 10, 0, 0));
  CHECK(date_output("Thu May  2 10:00:00 UTC 2024 rest", t) == 28);
  CHECK(date_output("Thx May  2 10:00:00 2024", t) == 0);
}

TEST_CASE("written time: syslog's month, day and clock / vLLM's month-day and clock") {
  CivilTime t;
  CHECK(syslog_date("Mar  4 09:41:07 node03 kernel: x", t) == 15);
  CHECK((t.year == 0 && t.month == 3 && t.day == 4 && t.hour == 9 && t.second == 7));
  CHECK(syslog_date("Dec 17 16:03:58Z host program", t) == 15);
  CHECK(syslog_date("Foo 17 16:03:58 host program x", t) == 0);
  CHECK(syslog_date("Mar 14 9:41:07 node03 kernel: x", t) == 0);
  CHECK(month_day_clock("03-14 09:41:07 [core.py:123]", t) == 14);
  CHECK((t.year == 0 && t.month == 3 && t.day == 14 && t.minute == 41));
  CHECK(month_day_clock("13-14 09:41:07 [x]", t) == 0);
  CHECK(month_day_clock("03-14 is not a time", t) == 0);
}

TEST_CASE("written time: the 16-byte sweeps for stamp marks find what a byte-by-byte look finds") {
  // A one-byte range is tested byte by byte (no 16-byte block fits), so it is the reference; buffers are
  // dense in the bytes marks are made of, so a block mask that dropped a real mark, or a wrong bit order
  // in the backward sweep, would show.
  std::mt19937 rng(20261204);
  const std::string alphabet = "0123456789::::[[__{  \nab.";
  for (int round = 0; round < 3000; ++round) {
    std::string buf(std::uniform_int_distribution<size_t>(0, 200)(rng), ' ');
    for (char& ch : buf) ch = alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(rng)];
    if (round % 3 == 0 && buf.size() > 12) buf.replace(std::uniform_int_distribution<size_t>(0, buf.size() - 9)(rng), 8, "12:34:56");
    if (round % 5 == 1 && buf.size() > 24) buf.replace(std::uniform_int_distribution<size_t>(0, buf.size() - 21)(rng), 20, "__REALTIME_TIMESTAMP");
    const size_t from = std::uniform_int_distribution<size_t>(0, buf.size())(rng);
    const size_t to = std::uniform_int_distribution<size_t>(from, buf.size())(rng);
    size_t first = std::string_view::npos, last = std::string_view::npos;
    for (size_t i = from; i < to; ++i)
      if (next_time_mark(buf, i, i + 1) == i) {
        if (first == std::string_view::npos) first = i;
        last = i;
      }
    INFO("buffer '" << buf << "' from " << from << " to " << to);
    CHECK(next_time_mark(buf, from, to) == first);
    CHECK(prev_time_mark(buf, from, to) == last);
  }
}

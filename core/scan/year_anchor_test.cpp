#include "core/scan/year_anchor.hpp"

#include <catch2/catch.hpp>

#include "tests/test_util.hpp"

using namespace attribution;


TEST_CASE("year clues: full-year stamps count, year-less ones do not") {
  YearClues c;
  add_year_clues("Mar 14 09:41:07 node03 kernel: NVRM: Xid 74\n"
                 "[rank0]:[E314 09:51:06.751169433 ProcessGroupNCCL.cpp:629] timeout\n"
                 "[2025-03-14 09:41:08] node03:3061842:3062057 [5] NCCL WARN Cuda failure\n"
                 "2025-03-14T09:41:09Z node01 slurmd[12]: launched\n"
                 "[Sun Mar 16 10:00:00 2025] NVRM: Xid 79\n"
                 "no time at all\n",
                 TimeZone::utc(), 100, c);
  REQUIRE(c.stamps.size() == 3);
  CHECK(c.stamps[0] == test::utc("2025-03-14T09:41:08Z"));
  CHECK(c.stamps[2] == test::utc("2025-03-16T10:00:00Z"));
  CHECK(year_anchor_of(c.stamps) == test::utc("2025-03-14T09:41:09Z"));
  CHECK_FALSE(c.floor.has_value());
}

TEST_CASE("year clues: times inside messages (torchrun's error summary), build dates as a floor") {
  YearClues c;
  add_year_clues("  time      : 2025-06-03_08:42:07\n"
                 "Jan 20 11:02:17 node01 kernel: [    0.000000] Linux version 5.15.0-130-generic #140-Ubuntu SMP Mon Dec  9 12:23:00 UTC 2024\n"
                 "Jan 20 11:02:29 node01 kernel: [   11.70] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  565.57.01  Thu Oct 10 12:29:05 UTC 2024\n"
                 "firmware version: 28.39.2048\n",
                 TimeZone::utc(), 100, c);
  REQUIRE(c.stamps.size() == 1);
  CHECK(c.stamps[0] == test::utc("2025-06-03T08:42:07Z"));
  REQUIRE(c.floor);
  CHECK(*c.floor == test::utc("2024-12-09T12:23:00Z"));
}

TEST_CASE("year clues: only the first lines are read / nothing found is no anchor") {
  YearClues c;
  add_year_clues("a\nb\n2025-03-14T09:41:09Z x\n", TimeZone::utc(), 2, c);
  CHECK(c.stamps.empty());
  CHECK_FALSE(year_anchor_of(c.stamps).has_value());
}

TEST_CASE("year anchor: the median resists a stray year") {
  CHECK(year_anchor_of({test::utc("2019-01-01T00:00:00Z"), test::utc("2025-03-14T09:00:00Z"), test::utc("2025-03-14T10:00:00Z")}) ==
        test::utc("2025-03-14T09:00:00Z"));
}

#include <catch2/catch.hpp>

#include "tests/test_util.hpp"

#include "core/base/duration.hpp"
#include "core/base/time.hpp"

using namespace attribution;


TEST_CASE("RFC 3339 and ISO 8601 with and without zone") {
  CHECK(format_rfc3339(test::utc("2025-03-14T09:41:07Z")) == "2025-03-14T09:41:07.000000Z");
  CHECK(test::utc("2025-03-14T09:41:07.5Z") - test::utc("2025-03-14T09:41:07Z") == 500000);
  CHECK(test::utc("2025-03-14 17:41:07+08:00") == test::utc("2025-03-14T09:41:07Z"));
  CHECK(test::utc("2026-09-14T20:30:27-0400") == test::utc("2026-09-15T00:30:27Z"));
  CHECK(test::utc("2024-01-15T03:00:00,000000+00:00") == test::utc("2024-01-15T03:00:00Z"));
  // Without a zone the given zone applies.
  auto tz = TimeZone::parse("+02:00");
  REQUIRE(tz);
  CHECK(*parse_time_value("2025-03-14T11:41:07", *tz) == test::utc("2025-03-14T09:41:07Z"));
  // The collector stamp with a space before the zone (NCCL issue 1905).
  size_t used = 0;
  auto c = parse_iso8601("2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28", &used);
  REQUIRE(c);
  CHECK(c->utc_offset_s == 8 * 3600);
  CHECK(c->micros == 43000);
  CHECK(used == 30);
  // torchrun's ChildFailedError time uses '_' between date and time.
  CHECK(parse_iso8601("2026-06-08_19:04:45"));
  CHECK_FALSE(parse_iso8601("2025-13-14T09:41:07Z"));
  CHECK_FALSE(parse_iso8601("not a time"));
  CHECK_FALSE(parse_time_value("2025-03-14T09:41:07Zjunk", TimeZone::utc()));
  CHECK(*parse_time_value("1741945267", TimeZone::utc()) == test::utc("2025-03-14T09:41:07Z"));
}

TEST_CASE("civil conversions round-trip across eras and leap days") {
  for (const char* s : {"1970-01-01T00:00:00.000000Z", "2000-02-29T23:59:59.999999Z", "2024-12-31T12:00:00.000001Z",
                        "1969-12-31T23:59:59.000000Z"})
    CHECK(format_rfc3339(test::utc(s)) == s);
}

TEST_CASE("year-less times take the year nearest the window / across new year") {
  CivilTime dec{0, 12, 31, 23, 59, 0, 0, std::nullopt};
  CHECK(with_year_near(dec, test::utc("2026-01-01T00:10:00Z")).year == 2025);
  CivilTime jan{0, 1, 1, 0, 5, 0, 0, std::nullopt};
  CHECK(with_year_near(jan, test::utc("2025-12-31T23:50:00Z")).year == 2026);
  CHECK(with_year_near(jan, test::utc("2025-06-01T00:00:00Z")).year == 2025);
}

TEST_CASE("year-less times never land after the cap (a file's modification time, the window's end)") {
  CivilTime mar{0, 3, 14, 9, 41, 7, 0, std::nullopt};
  // Nearest to a December 2026 anchor is March 2027, in the file's future: March 2026 instead.
  CHECK(with_year_near(mar, test::utc("2026-12-01T17:16:16Z")).year == 2027);
  CHECK(with_year_near(mar, test::utc("2026-12-01T17:16:16Z"), test::utc("2026-12-01T17:16:16Z")).year == 2026);
  // A cap on the very day keeps that day; a cap before every candidate gives the earliest.
  CHECK(with_year_near(mar, test::utc("2025-03-14T00:00:00Z"), test::utc("2025-03-14T09:41:07Z")).year == 2025);
  CHECK(with_year_near(mar, test::utc("2025-03-14T00:00:00Z"), test::utc("2020-01-01T00:00:00Z")).year == 2024);
}

TEST_CASE("time zones: UTC / fixed offsets and IANA names") {
  CivilTime t{2025, 7, 1, 12, 0, 0, 0, std::nullopt};
  CHECK(TimeZone::utc().to_utc(t) == test::utc("2025-07-01T12:00:00Z"));
  CHECK(TimeZone::parse("-05:30")->to_utc(t) == test::utc("2025-07-01T17:30:00Z"));
  auto paris = TimeZone::parse("Europe/Paris");
  REQUIRE(paris);  // tzdata is installed by the test setup
  CHECK(paris->to_utc(t) == test::utc("2025-07-01T10:00:00Z"));          // CEST, +2
  CivilTime winter{2025, 1, 15, 12, 0, 0, 0, std::nullopt};
  CHECK(paris->to_utc(winter) == test::utc("2025-01-15T11:00:00Z"));     // CET, +1
  CHECK_FALSE(TimeZone::parse("Mars/Olympus"));
  CHECK_FALSE(TimeZone::parse("../../etc/passwd"));
  CHECK_FALSE(TimeZone::parse("+25:00"));
}

TEST_CASE("durations") {
  CHECK(*parse_duration("15m") == 15 * 60 * kMicrosPerSecond);
  CHECK(*parse_duration("1h30m") == 90 * 60 * kMicrosPerSecond);
  CHECK(*parse_duration("500ms") == 500000);
  CHECK(*parse_duration("90") == 90 * kMicrosPerSecond);
  CHECK_FALSE(parse_duration(""));
  CHECK_FALSE(parse_duration("15 minutes"));
  CHECK_FALSE(parse_duration("m"));
  CHECK_FALSE(parse_duration("5x"));
}

TEST_CASE("time: month and weekday abbreviations, exactly three letters as written") {
  const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; ++i) CHECK(month_from_abbrev(months[i]) == i + 1);
  const char* days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  for (int i = 0; i < 7; ++i) CHECK(weekday_from_abbrev(days[i]) == i + 1);
  for (const char* no : {"", "Ja", "Janu", "jan", "JAN", "Mon", "anF", "Dex"}) CHECK(month_from_abbrev(no) == 0);
  for (const char* no : {"", "Mo", "Mond", "mon", "Jan", "onT", "Sux"}) CHECK(weekday_from_abbrev(no) == 0);
}

#include <catch2/catch.hpp>

#include <vector>

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

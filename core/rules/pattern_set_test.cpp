#include <catch2/catch.hpp>

#include <re2/re2.h>

#include <algorithm>

#include "core/rules/pattern_options.hpp"
#include "core/rules/pattern_set.hpp"

using namespace attribution;

TEST_CASE("a pattern set names the patterns that match a text, as each would alone") {
  // Anchors, word boundaries, case-insensitivity, alternatives and captures, under shared literals.
  const std::vector<std::string> patterns = {
      R"(NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:.]+)[^)]*\): (?P<xid>79)\b)",
      R"(NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:.]+)[^)]*\): (?P<xid>48)\b)",
      R"(^NVRM: Xid)",
      R"((?i)fallen OFF the bus)",
      R"(Xid.*(?:pid=(?P<pid>\d+)|pid='<unknown>'))",
      R"(\): 7$)",
  };
  const std::vector<int> ids = {60, 50, 40, 30, 20, 10};  // answered ascending, whatever the order given
  PatternSet set(ids, patterns);
  const std::vector<std::string> texts = {
      "NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', GPU has fallen off the bus.",
      "kernel: NVRM: Xid (0000:3b:00.0): 48, pid=1234, DBE",
      "NVRM: Xid (PCI:0000:b9:00): 790, pid=1",
      "NVRM: Xid (PCI:0000:b9:00): 7",
      "nothing here",
      "",
  };
  for (const auto& text : texts) {
    std::vector<int> want, got;
    for (size_t i = 0; i < patterns.size(); ++i)
      if (RE2::PartialMatch(text, RE2(patterns[i], pattern_options()))) want.push_back(ids[i]);
    std::sort(want.begin(), want.end());
    INFO(text);
    REQUIRE(set.try_match(text, &got));
    CHECK(got == want);
  }
  std::vector<int> got;
  REQUIRE(set.try_match(texts[0], &got));
  CHECK(got == std::vector<int>{20, 30, 40, 60});  // patterns 4, 3, 2 and 0
}

TEST_CASE("a pattern set that cannot be built says so, and the caller matches alone") {
  PatternSet set({1, 2}, {"fine", "broken("});
  std::vector<int> got = {7};
  CHECK_FALSE(set.try_match("fine", &got));
  CHECK(got.empty());
}

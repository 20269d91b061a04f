#include "core/scan/line_extract.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("an extract keeps chosen lines and where they stood") {
  std::string buf = "l1\nl2 long\nl3\nl4\nl5 last";
  // lines start at 0, 3, 11, 14, 17
  FileExtract x = make_extract(buf, {17, 3, 11, 3, 5});
  CHECK(x.text == "l2 long\nl3\nl5 last\n");
  REQUIRE(x.runs.size() == 2);
  CHECK(x.runs[0].line == 2);
  CHECK(x.runs[0].offset == 3);
  CHECK(x.runs[1].line == 5);
  CHECK(x.runs[1].index == 2);
  // "l3" is at 8 in text, 11 in the original; "l5 last" at 11 in text, 17 in the original.
  CHECK(x.origin_offset(8) == 11);
  CHECK(x.origin_line(8, 1) == 3);
  CHECK(x.origin_offset(11) == 17);
  CHECK(x.origin_line(11, 2) == 5);
}

TEST_CASE("an extract of nothing is empty") {
  FileExtract x = make_extract("a\nb\n", {});
  CHECK(x.text.empty());
  CHECK(x.runs.empty());
}

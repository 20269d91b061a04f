#include "core/base/enums.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("enums: each name parses to its value and prints back / anything else is refused") {
  for (auto s : {Stream::applog, Stream::syslog, Stream::scheduler, Stream::metrics})
    CHECK(parse_stream_name(to_string(s)) == s);
  for (auto b : {Blame::unknown, Blame::infrastructure, Blame::application, Blame::scheduler})
    CHECK(parse_blame(to_string(b)) == b);
  for (auto c : {Confidence::low, Confidence::medium, Confidence::high}) CHECK(parse_confidence(to_string(c)) == c);
  CHECK_FALSE(parse_stream_name("Applog"));
  CHECK_FALSE(parse_blame(""));
  CHECK(Confidence::low < Confidence::high);
}

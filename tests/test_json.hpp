#pragma once
// Reading the JSON a test got back (reports, API answers) with simdjson.
#include <catch2/catch.hpp>
#include <simdjson.h>

#include <string>
#include <string_view>

namespace attribution::test {

// The document in `text`, which the test requires to be JSON.
inline simdjson::dom::element parse_json(simdjson::dom::parser& p, const std::string& text) {
  simdjson::dom::element doc;
  REQUIRE(p.parse(text).get(doc) == simdjson::SUCCESS);
  return doc;
}

// A string's text; "" for null or anything else, so a check against the expected text fails.
inline std::string json_text(simdjson::dom::element e) {
  std::string_view s;
  return e.get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

}  // namespace attribution::test

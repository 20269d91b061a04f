#include <catch2/catch.hpp>

#include <cstdlib>

#include "core/base/text.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

TEST_CASE("text: lines and trimming and Markdown cells") {
  CHECK(line_at("a\r\nbb\nc", 0) == "a");
  CHECK(line_at("a\r\nbb\nc", 3) == "bb");
  CHECK(line_at("a\r\nbb\nc", 6) == "c");
  // line_start: the start of the line holding a position (a '\n' belongs to the line it ends).
  CHECK(line_start("a\r\nbb\nc", 0) == 0);
  CHECK(line_start("a\r\nbb\nc", 2) == 0);
  CHECK(line_start("a\r\nbb\nc", 3) == 3);
  CHECK(line_start("a\r\nbb\nc", 5) == 3);
  CHECK(line_start("a\r\nbb\nc", 6) == 6);
  CHECK(line_start("a\r\nbb\nc", 99) == 6);
  CHECK(line_start("", 0) == 0);
  CHECK(trim_right("tok \t\r\n") == "tok");  // tabs too: one rule for every caller
  CHECK(trim_right(" \n").empty());
  CHECK(markdown_cell("a|b\n`c`") == "a\\|b 'c'");
  CHECK(markdown_cell("run `nvidia-smi`|x", true) == "run `nvidia-smi`\\|x");
}

TEST_CASE("secrets: a file's text without the trailing newline / an unset or empty variable is none") {
  test::TempDir d;
  auto ok = read_secret_file(d.file("token", "s3cret\t\n"));
  REQUIRE(ok);
  CHECK(*ok == "s3cret");
  auto missing = read_secret_file(d.path() + "/none");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().file == d.path() + "/none");
  setenv("ATTRIBUTION_TEXT_TEST", "", 1);
  CHECK_FALSE(secret_from_env("ATTRIBUTION_TEXT_TEST"));
  setenv("ATTRIBUTION_TEXT_TEST", "v", 1);
  CHECK(secret_from_env("ATTRIBUTION_TEXT_TEST") == "v");
  CHECK_FALSE(secret_from_env(""));
}

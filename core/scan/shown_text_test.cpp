#include <catch2/catch.hpp>

#include "core/scan/shown_text.hpp"

using namespace attribution;

TEST_CASE("a file with no viewer's marks is read as it is, without a copy") {
  CHECK_FALSE(printed_text("[rank0]: RuntimeError: CUDA error: out of memory\n"));
  CHECK_FALSE(printed_text("a & b [5m] \xe2\x96\x88\xe2\x96\x88 progress\n"));  // '&', a bracket, a bar's blocks
  CHECK_FALSE(printed_text(""));
  CHECK_FALSE(printed_text(std::string_view()));  // an empty file: no data pointer at all
}

TEST_CASE("colour codes are dropped: whole, with ESC replaced by U+FFFD, or with ESC lost") {
  CHECK(*printed_text("\x1b[1;31mERROR\x1b[0m NCCL WARN x\n") == "ERROR NCCL WARN x\n");
  CHECK(*printed_text("\x1b[2K\x1b[?25lprogress\n") == "progress\n");  // erase line, hide cursor
  CHECK(*printed_text("\xef\xbf\xbd[2m\xef\xbf\xbd[36m(raylet)\xef\xbf\xbd[0m Spilled 6144 MiB\n") == "(raylet) Spilled 6144 MiB\n");
  CHECK(*printed_text("[2m[36m(raylet)[0m Spilled 6144 MiB\n[rank0]: x\n") == "(raylet) Spilled 6144 MiB\n[rank0]: x\n");
  // A lone ESC or a bracket that is no code stays.
  CHECK(*printed_text("\x1b[31mred\x1b[0m and [m and \x1b x\n") == "red and [m and \x1b x\n");
}

TEST_CASE("a web page's typography and entities are read as the program's ASCII") {
  CHECK(*printed_text("RuntimeError: Can\xe2\x80\x99t allocate\xc2\xa0memory\n") == "RuntimeError: Can't allocate memory\n");
  CHECK(*printed_text("\xe2\x80\x9cNCCL error\xe2\x80\x9d\xe2\x80\x8b\n") == "\"NCCL error\"\n");
  CHECK(*printed_text("pid=&#39;&lt;unknown&gt;&#39; &amp;&amp; &quot;x&quot; &nbsp;\n") == "pid='<unknown>' && \"x\" &nbsp;\n");
}

TEST_CASE("an apostrophe a YAML single-quoted scalar doubled is read once / code's empty strings stay") {
  CHECK(*printed_text("    message: 'couldn''t assign flavors to pod set main: 2 node(s) didn''t match Pod''s node affinity'\n") ==
        "    message: 'couldn't assign flavors to pod set main: 2 node(s) didn't match Pod's node affinity'\n");
  CHECK_FALSE(printed_text("    return ''.join(parts) if x == '' else ''\n"));
  CHECK(*printed_text("don''t ''.join('' )\n") == "don't ''.join('' )\n");
  // the same scalar on a web page: its apostrophes shown typographically or as entities
  CHECK(*printed_text("message: 'couldn\xe2\x80\x99\xe2\x80\x99t assign'\n") == "message: 'couldn't assign'\n");
  CHECK(*printed_text("message: &#x27;couldn&#x27;&#x27;t assign&#x27;\n") == "message: 'couldn't assign'\n");
  CHECK(*printed_text("&#39;&#39;.join(x) &lt;\n") == "''.join(x) <\n");
  // both in one paste: a doubled apostrophe as typed and one a page showed typographically
  CHECK(*printed_text("couldn''t assign; didn\xe2\x80\x99\xe2\x80\x99t match\n") == "couldn't assign; didn't match\n");
}

TEST_CASE("undoing marks never adds or removes a line") {
  const std::string shown = "\x1b[31ma\x1b[0m\n\xe2\x80\x99\n&gt;\n\n\xc2\xa0\n";
  auto out = printed_text(shown);
  REQUIRE(out);
  CHECK(std::count(out->begin(), out->end(), '\n') == std::count(shown.begin(), shown.end(), '\n'));
}

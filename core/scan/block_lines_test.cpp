#include <catch2/catch.hpp>

#include "core/scan/block_lines.hpp"

using namespace attribution;

TEST_CASE("a quoted block is joined without its markers") {
  // A quoted continuation keeps no marker in a joined block.
  CHECK(join_block_lines("> Out of memory\n> in file\n> ad_gpfs_rdcoll.c,\n", 0, 3) == "Out of memory\nin file\nad_gpfs_rdcoll.c,");
  // A timed line keeps its stamp in a block (block patterns read the layout), not the markers.
  CHECK(join_block_lines("> [2025-03-14 09:41:07] MainThread\n>     wait (threading.py:324)\n", 0, 2) ==
        "[2025-03-14 09:41:07] MainThread\n    wait (threading.py:324)");
}

TEST_CASE("a block whose every line carries a stamp: read with the stamps, or with messages only") {
  const std::string_view ci = "2024-05-01T12:00:01.1234567Z     Fabric\n2024-05-01T12:00:01.1234567Z         State  : In Progress\n";
  CHECK(join_block_lines(ci, 0, 2).find("Z     Fabric\n2024") != std::string::npos);
  CHECK(join_block_lines(ci, 0, 2, nullptr, true) == "    Fabric\n        State  : In Progress");  // indents kept
}

TEST_CASE("a block pasted indented is read flush left, its lines' layout kept") {
  CHECK(without_common_indent("    F0101 x.cc:1] Check failed\n    *** Check failure stack trace: ***\n        @ 0x1 xla::f") ==
        "F0101 x.cc:1] Check failed\n*** Check failure stack trace: ***\n    @ 0x1 xla::f");
  CHECK(without_common_indent("  a\n\n  b") == "a\n\nb");        // an empty line does not hold the indent at 0
  CHECK(without_common_indent("\ta\n\t\tb") == "a\n\tb");
  CHECK(without_common_indent("  a\n") == "a\n");                // a last newline stays
  CHECK_FALSE(without_common_indent("a\n    b"));                // nothing in common: no other reading
  CHECK_FALSE(without_common_indent(""));
  CHECK_FALSE(without_common_indent("   "));                      // blanks only: nothing to read flush
}

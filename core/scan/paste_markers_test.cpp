#include <catch2/catch.hpp>

#include "core/scan/line_prefix.hpp"
#include "core/scan/paste_markers.hpp"

using namespace attribution;

TEST_CASE("paste markers: a reply's quote markers") {
  CHECK(paste_markers("> rig-6600 kernel: Out of memory") == 2);
  CHECK(paste_markers("> > [rank0]: x") == 4);
  CHECK(paste_markers(">>x") == 2);
  CHECK(paste_markers("  > x") == 4);
  CHECK(paste_markers(">>> import torch") == 4);
  CHECK(paste_markers(">") == 1);
  CHECK(paste_markers("x > y") == 0);
  CHECK(paste_markers("-> y") == 0);
  CHECK(paste_markers("   no marker") == 0);
  CHECK(paste_markers("") == 0);
}

TEST_CASE("paste markers: a viewer's or grep's line number, and what only looks like one") {
  CHECK(paste_markers("    12\tNVRM: Xid 79") == 7);              // cat -n
  CHECK(paste_markers("1234567\tx") == 8);
  CHECK(paste_markers("12:Traceback (most recent call last):") == 3);  // grep -n
  CHECK(paste_markers("logs/train.log:12:[rank0]: x") == 18);      // grep over files
  CHECK(paste_markers("node07.out:3:x") == 13);
  CHECK(paste_markers("syslog.txt.1:9:x") == 15);
  CHECK(paste_markers("12:> quoted") == 5);                        // both
  CHECK(paste_markers("12:34:56 host kernel: x") == 0);            // a clock
  CHECK(paste_markers("10:30 AM") == 0);
  CHECK(paste_markers("1:71885 Killed   python train.py") == 2);   // grep -n of a line that starts with digits
  CHECK(paste_markers("27:\t\tState: Down") == 3);                 // grep -n of a tab-indented line
  CHECK(paste_markers("3: srun label") == 0);                      // srun -l's task label
  CHECK(paste_markers("ip-10-0-0-1.ec2.internal:4242:4300 [0] NCCL INFO") == 0);  // NCCL's host:pid:tid
  CHECK(paste_markers("/src/x.cpp:12:5: fatal error: cuda.h") == 0);  // a compiler's file:line
  CHECK(paste_markers("/usr/lib/torch/x.py:12: UserWarning: y") == 0);
  CHECK(paste_markers("train.log: no line number") == 0);
  CHECK(paste_markers("12") == 0);
  CHECK(paste_markers("12\t") == 3);
  CHECK(paste_markers("  12 x") == 0);                             // less -N's blank is a column, not a marker
}

TEST_CASE("a reply's quote markers before a pasted line: the line after them is read as printed") {
  // What the unquoted line would give, at offsets shifted by the markers.
  const std::string_view dateless = "> rig-6600 kernel: Out of memory: Killed process 13994 (python)";
  LinePrefix p = parse_line_prefix(dateless);
  CHECK(p.host == "rig-6600");
  CHECK(dateless.substr(p.message_offset) == "Out of memory: Killed process 13994 (python)");
  LinePrefix nested = parse_line_prefix("> > Mar 14 08:05:41 node01 kernel: NVRM: Xid 79");
  CHECK(nested.host == "node01");
  REQUIRE(nested.civil);
  CHECK(nested.civil->hour == 8);
  // A grep over files and a cat -n line number read the same way (the message after the syslog header).
  for (std::string_view grepped : {"dmesg.log:27:Mar 14 08:05:41 node01 kernel: NVRM: Xid 79",
                                   "    27\tMar 14 08:05:41 node01 kernel: NVRM: Xid 79"}) {
    LinePrefix g = parse_line_prefix(grepped);
    CHECK(g.host == "node01");
    REQUIRE(g.civil);
    CHECK(g.civil->hour == 8);
    CHECK(grepped.substr(g.message_offset) == "NVRM: Xid 79");
  }
  // The prefix keeps the markers' length, as paste_markers gives it (an inner line number is not added).
  for (std::string_view l : {"> x", "    27\tMar 14 08:05:41 node01 kernel: y", "> 12:foo", "plain line", "12:34:56 host x"})
    CHECK(parse_line_prefix(l).paste_markers == paste_markers(l));
  // The markers alone say nothing.
  LinePrefix bare = parse_line_prefix("> in file");
  CHECK((!bare.civil && bare.host.empty() && bare.rank < 0 && bare.message_offset == 2));
}

#include "core/scan/prefix_readers.hpp"
#include "core/scan/line_prefix.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("parse_prefix_at applies the readers in turn from the line's start") {
  std::string_view line = "3: [rank3]:node07:1234:5678 [1] NCCL INFO Channel 00/02";
  LinePrefix p = parse_prefix_at(line);
  CHECK(p.task == 3);
  CHECK(p.rank == 3);
  CHECK(p.host == "node07");
  CHECK(p.pid == 1234);
  CHECK(p.gpu == 1);
  CHECK(line.substr(p.message_offset) == "NCCL INFO Channel 00/02");
}

TEST_CASE("parse_prefix_at reads only from the start: wrappers, quotes and indents are parse_line_prefix's") {
  // A syslog header behind an alert's text: the readers see no prefix; the whole-line reading finds it.
  std::string_view wrapped = "GPU alert: Mar 14 09:41:07 node03 kernel: NVRM: Xid (PCI:0000:3b:00): 79";
  CHECK(parse_prefix_at(wrapped).host.empty());
  CHECK(parse_line_prefix(wrapped).host == "node03");
  // A reply's quote marker stops the readers at once.
  std::string_view quoted = "> [rank0]: RuntimeError: boom";
  CHECK(parse_prefix_at(quoted).rank == -1);
  CHECK(parse_prefix_at(quoted).message_offset == 0);
  CHECK(parse_line_prefix(quoted).rank == 0);
}

TEST_CASE("syslog_host_tag reads a host and a tag after a syslog time, or leaves the offset") {
  LinePrefix p;
  std::string_view s = "node03 kernel: Out of memory: Killed process 4242 (python)";
  size_t after = syslog_host_tag(s, 0, p);
  CHECK(p.host == "node03");
  CHECK(s.substr(after) == " Out of memory: Killed process 4242 (python)");  // just past the tag's colon
  LinePrefix q;
  std::string_view plain = "no colon here at all";
  CHECK(syslog_host_tag(plain, 3, q) == 3);
  CHECK(q.host.empty());
}

TEST_CASE("a stamped continuation line's first words are prose, not a host and a tag") {
  // A CI runner stamps every line of a wrapped message: "with err:" continues the line before it.
  const std::string_view ci = "2024-05-01T12:00:01.1234567Z with err: rpc error: code = Unknown desc = x";
  LinePrefix p = parse_line_prefix(ci);
  CHECK(p.host.empty());
  CHECK(printed_part(ci, true) == "with err: rpc error: code = Unknown desc = x");
  for (std::string_view w : {"the", "and", "from", "is", "to"}) {
    std::string line = "2024-05-01T12:00:01.123456+00:00 " + std::string(w) + " kernel: text";
    CHECK(parse_line_prefix(line).host.empty());
  }
  // A machine's name in the same place is still read: the list holds prose, not short names.
  LinePrefix m = parse_line_prefix("2024-05-01T12:00:01.123456+00:00 node03 kernel: text");
  CHECK(m.host == "node03");
  CHECK(parse_line_prefix("2024-05-01T12:00:01.123456+00:00 withers kernel: text").host == "withers");
}

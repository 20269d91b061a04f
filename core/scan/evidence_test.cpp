#include <catch2/catch.hpp>

#include "core/base/limits.hpp"
#include "core/scan/evidence.hpp"

using namespace attribution;

TEST_CASE("evidence: a line's text, its place, its captures / a block's lines joined") {
  PendingEvidence p;
  p.line = "node1 kernel: NVRM: Xid 79";
  p.line_no = 12;
  p.time = 1000;
  p.host = "node1";
  p.rank = 3;
  p.captures = {{"xid", "79"}, {"bad", std::string("a\xff" "b")}};
  Evidence e = make_evidence(p, "kernel", "/var/log/kern.log");
  CHECK(e.location == "/var/log/kern.log:12");
  CHECK(e.source == "kernel");
  CHECK(e.text == "node1 kernel: NVRM: Xid 79");
  CHECK(e.host == "node1");
  CHECK(e.rank == 3);
  CHECK(e.captures.at("xid") == "79");
  CHECK(e.captures.at("bad") != std::string("a\xff" "b"));  // made valid UTF-8
  CHECK_FALSE(e.cut);

  p.block = "Root Cause (first observed failure):\n[0]:\n  host      : node2";
  Evidence b = make_evidence(p, "app", "train.log");
  CHECK(b.text == "Root Cause (first observed failure): | [0]: |   host      : node2");
}

TEST_CASE("evidence: a long line is cut on a character boundary and says how much is left out") {
  std::string line(kMaxEvidenceText - 1, 'x');
  line += "\xc3\xa9";  // 'é' across the cut
  line += std::string(10, 'y');
  std::string t = evidence_text(line);
  CHECK(t.substr(0, kMaxEvidenceText - 1) == std::string(kMaxEvidenceText - 1, 'x'));
  CHECK(t.find("[... 12 more bytes]") != std::string::npos);
  PendingEvidence p;
  p.line = line;
  CHECK(make_evidence(p, "s", "f").cut);
}

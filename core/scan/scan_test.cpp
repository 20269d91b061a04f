#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <zlib.h>

#include "core/pipeline/collect.hpp"
#include "core/rules/rule_sources.hpp"
#include "core/scan/scan.hpp"
#include "tests/test_rules.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {

// torchrun's failure summary naming rank 9 on node2, each line behind `before` (a label, a quote, a stamp).
// `text` (whole lines) with `before` put in front of every line, as a wrapper or a paste puts it.
std::string each_line_after(std::string_view before, std::string_view text) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size() - 1) + 1;
    out.append(before).append(text.substr(at, end - at));
    at = end;
  }
  return out;
}

std::string first_failure_summary(std::string_view before) {
  return each_line_after(before,
                         "Root Cause (first observed failure):\n[0]:\n  time      : 2025-03-14_09:45:00\n"
                         "  host      : node2.cluster.local\n  rank      : 9 (local_rank: 1)\n  exitcode  : 1 (pid: 4242)\n");
}


SourceCoverage coverage(const char* name) {
  SourceCoverage c;
  c.name = name;
  c.kind = "files";
  return c;
}

struct Fixture {
  test::TempDir dir;
  RuleSet rules = test::test_rules();
  std::shared_ptr<Matcher> matcher = Matcher::build(rules).value();
  Workload w;
  Fixture() {
    w.id = "1";
    w.nodes = {"node1", "node2"};
    w.start = test::utc("2025-03-14T09:00:00Z");
    w.end = test::utc("2025-03-14T10:00:00Z");
    w.window = Window{*w.start - 900 * kMicrosPerSecond, *w.end + 300 * kMicrosPerSecond};
    w.window_known = true;
  }
  ScanResult run(const std::vector<std::string>& paths, Collection* out = nullptr, std::optional<Micros> boot = {}) {
    Collection c;
    c.sources.push_back(SourceRuntime{"s", "files", Stream::syslog, TimeZone::utc(), boot});
    c.coverage.push_back(coverage("s"));
    for (const auto& p : paths) c.files.push_back(InputFile{p, 0, "node1", -1, nullptr});
    ScanResult r = scan(c, *matcher, w, 2);
    if (out) *out = c;
    return r;
  }
  const Rule& rule(const Finding& f) { return rules.rules[f.rule]; }
};

// The built-in rules over application logs dated anywhere: no workload nodes or window keep a line out.
struct BuiltinScan {
  Fixture fx;
  RuleSet rules = load_rules({}).value();
  std::shared_ptr<Matcher> matcher = Matcher::build(rules).value();
  BuiltinScan() {
    fx.w.nodes.clear();
    fx.w.start.reset();
    fx.w.end.reset();
    fx.w.window_known = false;
  }
  ScanResult run(const std::vector<InputFile>& files) {
    Collection c;
    c.sources.push_back(SourceRuntime{"s", "files", Stream::applog, TimeZone::utc(), std::nullopt});
    c.coverage.push_back(coverage("s"));
    c.files = files;
    return scan(c, *matcher, fx.w, 1);
  }
};

}  // namespace

TEST_CASE("hits carry rule / host / PCI / time and file:line") {
  Fixture fx;
  auto p = fx.dir.file("kern.log",
                       "Mar 14 09:40:00 node1 kernel: boot noise\n"
                       "Mar 14 09:41:07 node2 kernel: [86412.123456] NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', GPU has fallen off the bus.\n");
  auto r = fx.run({p});
  REQUIRE(r.findings.size() == 1);
  const Finding& f = r.findings[0];
  CHECK(fx.rule(f).id == "t.xid79");
  CHECK(f.host == "node2");  // the line's own hostname beats the path's
  CHECK(f.pci == "0000:b9:00.0");
  CHECK(f.first_seen == test::utc("2025-03-14T09:41:07Z"));
  CHECK_FALSE(f.time_inferred);
  CHECK(f.evidence[0].location == p + ":2");
}

TEST_CASE("lines without a time take their neighbour's and are marked inferred") {
  Fixture fx;
  auto p = fx.dir.file("rank-3.log",
                       "[rank3]:[E0314 09:50:00.000000 x.cpp:1] before\n"
                       "RuntimeError: CUDA error: an illegal memory access was encountered\n"
                       "[rank3]:[E0314 09:51:00.000000 x.cpp:1] after\n");
  auto r = fx.run({p});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].time_inferred);
  CHECK(r.findings[0].first_seen == test::utc("2025-03-14T09:50:00Z"));
  CHECK(r.findings[0].evidence[0].time_inferred);
}

TEST_CASE("dmesg seconds since boot convert with a boot time from the same file / or config") {
  Fixture fx;
  auto p = fx.dir.file("kern.log",
                       "Mar 14 09:00:00 node1 kernel: [1000.000000] usb 1-1: new device\n"
                       "[1060.500000] NVRM: Xid (PCI:0000:52:00): 79, pid='<unknown>', GPU has fallen off the bus.\n");
  auto r = fx.run({p});
  REQUIRE(r.findings.size() == 1);
  CHECK_FALSE(r.findings[0].time_inferred);
  CHECK(r.findings[0].first_seen == test::utc("2025-03-14T09:01:00.5Z"));
  auto q = fx.dir.file("dmesg.log", "[1060.500000] NVRM: Xid (PCI:0000:52:00): 79, pid=1, GPU has fallen off the bus.\n");
  auto r2 = fx.run({q}, nullptr, test::utc("2025-03-14T09:00:00Z"));
  REQUIRE(r2.findings.size() == 1);
  CHECK(r2.findings[0].first_seen == test::utc("2025-03-14T09:17:40.5Z"));
  auto r3 = fx.run({q});  // no boot time anywhere: inferred, never dropped
  REQUIRE(r3.findings.size() == 1);
  CHECK(r3.findings[0].time_inferred);
}

TEST_CASE("lines outside the window are dropped / .gz is read transparently") {
  Fixture fx;
  std::string text =
      "Mar 14 07:00:00 node1 kernel: NVRM: Xid (PCI:0000:52:00): 79, pid=1, GPU has fallen off the bus.\n"
      "Mar 14 09:30:00 node1 kernel: NVRM: Xid (PCI:0000:53:00): 79, pid=1, GPU has fallen off the bus.\n";
  std::string gz = fx.dir.path() + "/kern.log.gz";
  gzFile g = gzopen(gz.c_str(), "wb");
  gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
  gzclose(g);
  auto r = fx.run({gz});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].pci == "0000:53:00.0");
}

TEST_CASE("bad input: unreadable / empty / binary / huge line / invalid UTF-8 never crash") {
  Fixture fx;
  auto empty = fx.dir.file("empty.log", "");
  std::string bin(100000, '\0');
  for (size_t i = 0; i < bin.size(); i += 7) bin[i] = static_cast<char>(i * 31);
  auto binary = fx.dir.file("core.bin", bin);
  std::string huge = "Mar 14 09:30:00 node1 kernel: NVRM: Xid (PCI:0000:52:00): 79, " + std::string(4 << 20, 'x') + "\n";
  auto big = fx.dir.file("big.log", huge);
  auto utf = fx.dir.file("utf.log", "Mar 14 09:30:00 node1 kernel: \xff\xfe NVRM: Xid (PCI:0000:54:00): 79, bad \xc3\x28 bytes\n");
  auto truncated_gz = fx.dir.file("cut.log.gz", std::string("\x1f\x8b\x08\x00garbage", 12));
  Collection c;
  auto r = fx.run({fx.dir.path() + "/missing.log", empty, binary, big, utf, truncated_gz}, &c);
  REQUIRE(r.findings.size() == 2);
  CHECK(r.findings[0].evidence[0].text.size() < 4096);  // the 4 MiB line is cut, and says so
  CHECK(r.findings[0].evidence[0].text.find("more bytes]") != std::string::npos);
  CHECK(r.findings[1].evidence[0].text.find("\xEF\xBF\xBD") != std::string::npos);  // U+FFFD
  const SourceCoverage& cov = c.coverage[0];
  CHECK(cov.status == SourceStatus::partial);
  REQUIRE(cov.problems.size() == 3);
  CHECK(cov.problems[0].find("missing.log") != std::string::npos);
  CHECK(cov.problems[1].find("binary") != std::string::npos);
  CHECK(cov.problems[2].find("cut.log.gz") != std::string::npos);
}

TEST_CASE("multi-line torchrun block: captures across lines / without rank prefixes") {
  Fixture fx;
  auto p = fx.dir.file("out.log",
                       first_failure_summary("[rank0]:"));
  auto r = fx.run({p});
  REQUIRE(r.findings.size() == 1);
  const Finding& f = r.findings[0];
  CHECK(f.host == "node2");
  CHECK(f.rank == 9);
  CHECK(f.fields.at("exit_code") == "1");
  CHECK(f.first_seen == test::utc("2025-03-14T09:45:00Z"));
  CHECK(f.evidence[0].text.find(" | ") != std::string::npos);
}

TEST_CASE("a paste quoted in a reply: single-line and multi-line rules read past the markers") {
  Fixture fx;
  auto p = fx.dir.file("reply.txt",
                       "> Mar 14 09:41:07 node2 kernel: [86412.123456] NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', GPU has fallen off the bus.\n" +
                           first_failure_summary("> > "));
  auto r = fx.run({p});
  REQUIRE(r.findings.size() == 2);
  CHECK(fx.rule(r.findings[0]).id == "t.xid79");
  CHECK(r.findings[0].host == "node2");
  CHECK(r.findings[0].first_seen == test::utc("2025-03-14T09:41:07Z"));
  CHECK(fx.rule(r.findings[1]).id == "t.first-failure");
  CHECK(r.findings[1].rank == 9);
  CHECK(r.findings[1].fields.at("exit_code") == "1");
}

TEST_CASE("a file with colour codes and a web page's quotes: rules read what the program printed") {
  Fixture fx;
  auto p = fx.dir.file("shown.txt",
                       "\x1b[32mMar 14 09:40:00 node1 kernel: boot noise\x1b[0m\n"
                       "\x1b[31mMar 14 09:41:07 node2 kernel: [86412.123456] NVRM: Xid (PCI:0000:b9:00): 79, "
                       "pid=\xe2\x80\x99<unknown>\xe2\x80\x99, GPU has fallen off the bus.\x1b[0m\n");
  auto r = fx.run({p});
  REQUIRE(r.findings.size() == 1);
  const Finding& f = r.findings[0];
  CHECK(fx.rule(f).id == "t.xid79");
  CHECK(f.host == "node2");
  CHECK(f.first_seen == test::utc("2025-03-14T09:41:07Z"));
  REQUIRE(!f.evidence.empty());
  CHECK(f.evidence[0].location == p + ":2");
  CHECK(f.evidence[0].text.find('\x1b') == std::string::npos);
  CHECK(f.evidence[0].text.find("pid='<unknown>'") != std::string::npos);
}

TEST_CASE("a multi-line block behind a wrapper on every line: CI stamps, an indent, both") {
  // Without the stamps, flush left, or both: each wrapping needs one of the block's other readings.
  for (std::string before : {"2025-03-14T09:45:01.0000000Z ", "    ", "2025-03-14T09:45:01.0000000Z     "}) {
    Fixture fx;
    auto r = fx.run({fx.dir.file("wrapped.log", first_failure_summary(before))});
    INFO("before every line: '" << before << "'");
    REQUIRE(r.findings.size() == 1);
    CHECK(fx.rule(r.findings[0]).id == "t.first-failure");
    CHECK(r.findings[0].host == "node2");
    CHECK(r.findings[0].rank == 9);
  }
}

TEST_CASE("a glog block pasted indented is read flush left with its stamp, which its pattern reads") {
  Fixture fx;
  const std::string glog = "F0314 09:41:07.026692   34204 thunk.cc:175] Check failed: kind.has_value() \n*** Check failure stack trace: ***\n";
  REQUIRE(fx.run({fx.dir.file("glog.txt", glog)}).findings.size() == 1);  // the rule reads the block as printed
  auto g = fx.run({fx.dir.file("glog.md", each_line_after("    ", glog))});
  REQUIRE(g.findings.size() == 1);
  CHECK(fx.rule(g.findings[0]).id == "t.check-failed");
  REQUIRE(!g.findings[0].evidence.empty());
  CHECK(g.findings[0].evidence[0].text.rfind("F0314 09:41:07", 0) == 0);  // what matched: flush left, stamp kept
}

TEST_CASE("a burst of identical lines is one finding with a count: memory follows findings") {
  Fixture fx;
  std::string text;
  for (int i = 0; i < 200000; ++i)
    text += fmt::format("Mar 14 09:30:{:02} node1 kernel: NVRM: Xid (PCI:0000:52:00): 45, pid=1, name=p, Ch 1\n",
                        i / 10000);  // 10,000 lines a second for 20 seconds
  auto p = fx.dir.file("burst.log", text);
  auto r = fx.run({p});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].count == 200000);
  CHECK(r.findings[0].evidence.size() == 2);
  CHECK(r.findings[0].evidence[1].location == p + ":200000");
}

TEST_CASE("scan results do not depend on the thread count") {
  Fixture fx;
  std::vector<std::string> files;
  for (int i = 0; i < 12; ++i)
    // fmt::format, not "..." + std::to_string(...): GCC 12 warns falsely about that concatenation
    // in some unity batches (-Wstringop-overflow).
    files.push_back(fx.dir.file(fmt::format("f{}.log", i),
                                fmt::format("Mar 14 09:3{}:00 node1 kernel: NVRM: Xid (PCI:0000:52:00): 45, pid=1, name=p, Ch 1\n", i % 10)));
  Collection c1, c2;
  c1.sources.push_back(SourceRuntime{"s", "files", Stream::syslog, TimeZone::utc(), {}});
  c1.coverage.push_back(coverage("s"));
  for (const auto& p : files) c1.files.push_back(InputFile{p, 0, "node1", -1, nullptr});
  c2 = c1;
  auto a = scan(c1, *fx.matcher, fx.w, 1);
  auto b = scan(c2, *fx.matcher, fx.w, 4);
  REQUIRE(a.findings.size() == b.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) CHECK(a.findings[i].evidence[0].location == b.findings[i].evidence[0].location);
}

TEST_CASE("a file many prefilter windows long: literals across a window edge, line numbers and time anchors hold") {
  Fixture fx;
  // 100-byte lines without any rule's literal; the windows are 1 MiB, their pages released behind the scan.
  auto noise = [](int i) {
    std::string l = fmt::format("Mar 14 09:30:{:02} node1 app: step {:08} ok ", i % 60, i);
    return l + std::string(99 - l.size(), '.') + "\n";
  };
  const std::string xid = "Mar 14 09:31:00 node1 kernel: NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', GPU has fallen off the bus.\n";
  std::string text;
  int lines = 0;
  // The Xid line placed so that its literal "NVRM: Xid" straddles the first window's end (1 MiB).
  const size_t edge = size_t(1) << 20;
  const size_t literal_at = xid.find("NVRM: Xid");
  while (text.size() + 100 <= edge - literal_at - 4) text += noise(lines++);
  text += std::string(edge - literal_at - 4 - text.size() - 1, '-') + "\n";
  ++lines;
  text += xid;
  const int xid_line = ++lines;
  while (text.size() < 5 * edge) text += noise(lines++);
  // A line without a time, its anchor one line above, far past the released pages.
  text += "[rank3]:[E0314 09:52:00.000000 x.cpp:1] before\n";
  text += "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  const int cuda_line = lines + 2;
  auto p = fx.dir.file("big.log", text);
  REQUIRE(text.find("NVRM: Xid") < edge);
  REQUIRE(text.find("NVRM: Xid") + 9 > edge);
  auto r = fx.run({p});
  REQUIRE(r.findings.size() == 2);
  CHECK(fx.rule(r.findings[0]).id == "t.xid79");
  CHECK(r.findings[0].evidence[0].location == p + ":" + std::to_string(xid_line));
  CHECK(fx.rule(r.findings[1]).id == "t.cuda-illegal");
  CHECK(r.findings[1].evidence[0].location == p + ":" + std::to_string(cuda_line));
  CHECK(r.findings[1].time_inferred);
  CHECK(r.findings[1].first_seen == test::utc("2025-03-14T09:52:00Z"));
}

TEST_CASE("tail rules: each process's last trace line near the end, with its own line number and captures") {
  Fixture fx;
  std::string text = "Mar 14 09:40:00 node1 kernel: boot noise\n";
  for (int i = 0; i < 20000; ++i)
    text += fmt::format("node1:{}:{} [0] NCCL INFO {}: opCount {:x} count 1\n", 100 + i % 2, 100 + i % 2,
                        i == 19998 ? "AllGather" : "AllReduce", i / 2);
  text += "Mar 14 09:41:07 node2 kernel: [86412.123456] NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', GPU has fallen off the bus.\n";
  auto p = fx.dir.file("trace.log", text);
  auto r = fx.run({p});
  std::map<int64_t, const Finding*> by_pid;
  for (const auto& f : r.findings)
    if (fx.rule(f).id == "t.trace") by_pid[f.pid] = &f;
  REQUIRE(by_pid.size() == 2);  // 20,000 lines, two processes: two findings
  const Evidence& e = by_pid.at(100)->evidence.back();
  CHECK(e.captures.at("op") == "AllGather");  // the last call of process 100 (i = 19998)
  CHECK(e.captures.at("op_count") == fmt::format("{:x}", 19998 / 2));
  CHECK(e.location == p + ":20000");
  CHECK(by_pid.at(101)->evidence.back().location == p + ":20001");
  // The forward pass still finds the other rules' lines, before and after the trace.
  CHECK(std::any_of(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return fx.rule(f).id == "t.xid79"; }));
}

TEST_CASE("tail rules: a trace that stopped more than the tail window before the file's end is not read") {
  Fixture fx;
  std::string text = "node1:100:100 [0] NCCL INFO AllReduce: opCount 1e7 count 1\n";
  const std::string filler = "Mar 14 09:40:00 node1 kernel: boot noise, repeated to push the trace out of the tail\n";
  while (text.size() < (size_t(5) << 20)) text += filler;
  auto r = fx.run({fx.dir.file("late.log", text)});
  CHECK(std::none_of(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return fx.rule(f).id == "t.trace"; }));
  // The same line with less than the window after it is read.
  auto near = fx.run({fx.dir.file("near.log", text.substr(0, size_t(3) << 20))});
  CHECK(std::any_of(near.findings.begin(), near.findings.end(), [&](const Finding& f) { return fx.rule(f).id == "t.trace"; }));
}

TEST_CASE("a flat paste: findings that name no machine take the one machine its files name") {
  Fixture fx;
  fx.w.nodes.clear();
  const std::string xid = "NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', GPU has fallen off the bus.\n";
  auto run = [&](const std::vector<std::pair<std::string, std::string>>& files) {
    Collection c;
    c.sources.push_back(SourceRuntime{"s", "files", Stream::syslog, TimeZone::utc(), std::nullopt});
    c.coverage.push_back(coverage("s"));
    for (const auto& [name, text] : files) c.files.push_back(InputFile{fx.dir.file(name, text), 0, "", -1, nullptr});
    return scan(c, *fx.matcher, fx.w, 2);
  };
  SECTION("a prompt in another file") {
    auto r = run({{"a/job.log", xid}, {"a/df.txt", "admin@gpu-a-01:~$ df -kh .\n/dev/sda1 879G 132G 703G 16% /\n"}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host == "gpu-a-01");
    CHECK(r.findings[0].evidence.at(0).host == "gpu-a-01");
  }
  SECTION("a CI runner's header in another file") {
    auto r = run({{"b/job.log", xid}, {"b/runner.log", "Runner name: 'worker-rocm-amd-34'\nRunner group name: 'Default'\n"}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host == "worker-rocm-amd-34");
  }
  SECTION("a syslog header on lines no rule reads, in another file") {
    auto r = run({{"e/iml.txt", xid}, {"e/syslog.txt", "2025-01-07T21:16:59.312055+00:00 lockheed kernel: hpsa 0000:05:00.0: reset logical completed\n"}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host == "lockheed");
  }
  SECTION("a prompt above a journal that names the machine otherwise: the prompt's name stands") {
    auto r = run({{"g/job.log", xid}, {"g/fm.txt", "admin@gpu-a-01:~$ journalctl -u fm\nFeb 24 09:28:18 ip-172-31-92-157 systemd[1]: Starting\n"}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host == "gpu-a-01");
  }
  SECTION("a prompt in one file, a journal's own name for the machine in another: the prompt's stands") {
    auto r = run({{"h/job.log", xid}, {"h/df.txt", "admin@gpu-a-01:~$ df\n"},
                  {"h/journal.txt", "Feb 24 09:28:18 ip-172-31-92-157 systemd[1]: Starting\n"}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host == "gpu-a-01");
  }
  SECTION("a container's id or a logger's name in a stamped prefix names no machine") {
    auto r = run({{"i/job.log", xid}, {"i/app.txt", "2025-03-14 09:41:07 3f2a1b9c8d7e python[12]: started\n"
                                                     "2025-03-14 09:41:07,123 trainer INFO: step 10\n"}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host.empty());
  }
  SECTION("an unstamped 'word:' line names no machine") {
    auto r = run({{"f/job.log", xid}, {"f/build.txt", "collect2: error: ld returned 1 exit status\n"}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host.empty());
  }
  SECTION("two machines named: no guess") {
    auto r = run({{"c/job.log", xid}, {"c/one.txt", "admin@gpu-a-01:~$ df\n"}, {"c/two.txt", "admin@gpu-a-02:~$ df\n"}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host.empty());
  }
  SECTION("a finding that names its machine: the others are not filled") {
    auto r = run({{"d/job.log", xid}, {"d/kern.log", "Mar 14 09:41:07 node2 kernel: " + xid}, {"d/df.txt", "admin@gpu-a-01:~$ df\n"}});
    REQUIRE(r.findings.size() == 2);
    CHECK(r.findings[0].host.empty());
    CHECK(r.findings[1].host == "node2");
  }
}

TEST_CASE("a pasted excerpt: findings printed without a prefix take the one machine its other findings name") {
  Fixture fx;
  fx.w.nodes.clear();
  const std::string xid = "NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', GPU has fallen off the bus.\n";
  const std::string cuda = "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  auto run = [&](const std::string& name, const std::string& text) {
    Collection c;
    c.sources.push_back(SourceRuntime{"s", "files", Stream::syslog, TimeZone::utc(), std::nullopt});
    c.coverage.push_back(coverage("s"));
    c.files.push_back(InputFile{fx.dir.file(name, text), 0, "", -1, nullptr});
    return scan(c, *fx.matcher, fx.w, 2);
  };
  SECTION("one machine named: the unprefixed line is its") {
    auto r = run("a/pasted.log", cuda + "Mar 14 09:41:07 node2 kernel: " + xid);
    REQUIRE(r.findings.size() == 2);
    for (const Finding& f : r.findings) {
      CHECK(f.host == "node2");
      CHECK(f.evidence.at(0).host == "node2");
    }
  }
  SECTION("two machines named: no guess") {
    auto r = run("b/pasted.log", cuda + "Mar 14 09:41:07 node2 kernel: " + xid + "Mar 14 09:41:08 node1 kernel: " + xid);
    REQUIRE(r.findings.size() == 3);
    CHECK(std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.host.empty(); }) == 1);
  }
}

TEST_CASE("a pod's log: NCCL's prefix names the pod, and the line is the pod's node's") {
  BuiltinScan b;
  const std::string line = "2025-05-06T10:00:41.118230511Z trainer-master-0:412:412 [0] transport/net_ib.cc:100 NCCL WARN "
                           "NET/IB : mlx5_0:1 Got async event : port error\n";
  InputFile pod{b.fx.dir.file("pod.log", line), 0, "gpu-node02", -1, nullptr};
  pod.local_name = "trainer-master-0";
  InputFile pasted{b.fx.dir.file("pasted.log", line), 0, "", -1, nullptr};  // a paste: the pod is the only name there is
  auto r = b.run({pod, pasted});
  REQUIRE(r.findings.size() == 2);
  std::set<std::string> hosts;
  for (const auto& f : r.findings) hosts.insert(f.host);
  CHECK(hosts == std::set<std::string>{"gpu-node02", "trainer-master-0"});
}

TEST_CASE("a line a terminal wrapped: the machine a rule captures on the next line is read") {
  BuiltinScan b;  // Ray's stamp dates the line (December 2025): no workload window to keep it out
  auto run = [&](const std::string& name, const std::string& text) {
    return b.run({InputFile{b.fx.dir.file(name, text), 0, "", -1, nullptr}});
  };
  const std::string head =
      "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / actors) "
      "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at ";
  auto wrapped = run("wrapped.log", head + "\nnode (ID: 8289f87b78d1, IP: 172.24.0.226) over the last time period.\n");
  REQUIRE(wrapped.findings.size() == 1);
  CHECK(wrapped.findings[0].host == "172.24.0.226");
  // Every line wrapped alike (srun -l, a reply's quote, compose's column): the continuation is read
  // without its wrapper, and srun's task id is no machine.
  for (const std::string wrap : {"3: ", "> ", "trainer-1  | "}) {
    auto labelled = run("labelled.log", wrap + head + "\n" + wrap + "node (ID: 8289f87b78d1, IP: 172.24.0.226) over the last time period.\n");
    REQUIRE(labelled.findings.size() == 1);
    CHECK(labelled.findings[0].host == "172.24.0.226");
  }
  const std::string pals = "launch failed on x4201c0s4b0n0: Couldn't forward RPC launch(...) to child\n";
  const std::string child = "x4513c0s7b0n0.hsn.cm.aurora.alcf.anl.gov: Resource temporarily unavailable\n";
  for (const std::string wrap : {"", "3: ", "> "}) {
    auto r = run("pals.log", wrap + pals + wrap + child);
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].host == "x4513c0s7b0n0");
  }
  // A next line that does not complete the pattern leaves the finding without a machine.
  auto cut = run("cut.log", head + "\nsomething else entirely\n");
  REQUIRE(cut.findings.size() == 1);
  CHECK(cut.findings[0].host.empty());
}

TEST_CASE("Open MPI's signal report inside Docker: the container's id is not the machine, the file's is") {
  BuiltinScan s;
  // Open MPI's signal handler prints the process's hostname, inside Docker the container's id: host.sigbus-exit
  // does not capture it (is_container_id's policy, written into the rule's pattern).
  auto in_docker = s.fx.dir.file("node07/rank0.log", "[fd7fd1d78666:03983] Signal: Bus error (7)\n");
  auto r = s.run({InputFile{in_docker, 0, "node07", -1, nullptr}});
  REQUIRE(r.findings.size() == 1);
  CHECK(s.rules.rules[r.findings[0].rule].id == "host.sigbus-exit");
  CHECK(r.findings[0].host == "node07");
  CHECK_FALSE(r.findings[0].host_named);
  // A machine's own name in the same place is the host.
  auto on_host = s.fx.dir.file("node07/rank1.log", "[csclprd3-6-12:30567] Signal: Bus error (7)\n");
  r = s.run({InputFile{on_host, 0, "node07", -1, nullptr}});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].host == "csclprd3-6-12");
  CHECK(r.findings[0].host_named);
}

TEST_CASE("a pasted excerpt's lines that read like errors and no rule reads are listed, its last few") {
  BuiltinScan s;
  auto paste = s.fx.dir.file("pasted.log",
                             "starting training\n"
                             "Traceback (most recent call last):\n"
                             "  File \"train.py\", line 3, in <module>\n"
                             "> Failed to acquire lock on the distribution cache\n"
                             "RuntimeError: CUDA error: an illegal memory access was encountered\n"
                             "validation finished with 0 errors\n");
  auto r = s.run({InputFile{paste, 0, "", -1, nullptr}});
  REQUIRE_FALSE(r.findings.empty());  // the CUDA error is a rule's: not unread
  REQUIRE(r.unread.size() == 1);
  CHECK(r.unread[0].text == "Failed to acquire lock on the distribution cache");  // a quote's marker undone
  CHECK(r.unread[0].location == paste + ":4");

  // Many: the file's last four.
  std::string many;
  for (int i = 1; i <= 6; ++i) many += fmt::format("step {}: upload failed, retrying\n", i);
  auto busy = s.fx.dir.file("busy.log", many);
  r = s.run({InputFile{busy, 0, "", -1, nullptr}});
  REQUIRE(r.unread.size() == 4);
  CHECK(r.unread.front().text == "step 3: upload failed, retrying");
  CHECK(r.unread.back().location == busy + ":6");

  // A node's own log as its collector found it is not a paste: nothing listed.
  InputFile collected{busy, 0, "node1", -1, nullptr};
  collected.host_certain = true;
  CHECK(s.run({collected}).unread.empty());
}

TEST_CASE("unread error lines: the job's window, one of each repeated line, the machine the paste names") {
  BuiltinScan s;
  s.fx.w.start = test::utc("2025-03-14T09:00:00Z");
  s.fx.w.end = test::utc("2025-03-14T10:00:00Z");
  s.fx.w.window = Window{*s.fx.w.start, *s.fx.w.end};
  s.fx.w.window_known = true;
  auto paste = s.fx.dir.file("pasted.log",
                             "[alice@gpu-node07 ~]$ python train.py\n"
                             "2025-03-13T08:00:00Z upload failed: old run, another day\n"
                             "2025-03-14T09:10:00Z shard 3 upload failed, retrying\n"
                             "2025-03-14T09:11:00Z dataset index is corrupt: checksum error\n"
                             "2025-03-14T09:12:00Z shard 3 upload failed, retrying\n");
  auto r = s.run({InputFile{paste, 0, "", -1, nullptr}});
  REQUIRE(r.unread.size() == 2);
  CHECK(r.unread[0].location == paste + ":4");  // the day before the window is not the job's
  CHECK(r.unread[1].location == paste + ":5");  // a repeated line is kept once, at its last
  CHECK(r.unread[1].host == "gpu-node07");      // the prompt the paste was taken under

  // A compressed file is not listed: its size on disk does not bound its text.
  auto gz = s.fx.dir.path() + "/pasted.log.gz";
  gzFile g = gzopen(gz.c_str(), "wb");
  gzputs(g, "2025-03-14T09:11:00Z dataset index is corrupt: checksum error\n");
  gzclose(g);
  CHECK(s.run({InputFile{gz, 0, "", -1, nullptr}}).unread.empty());
}

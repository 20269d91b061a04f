// The command line as users meet it: exit codes, error messages with file:line, bad input.
#include <catch2/catch.hpp>

#include "tests/cli_support.hpp"
#include "tests/test_util.hpp"

using namespace attribution;
using test::run_cli;

TEST_CASE("usage errors exit 2 and teach", "[golden]") {
  auto none = run_cli("");
  CHECK(none.exit_code == 2);
  auto empty = run_cli("diagnose");
  CHECK(empty.exit_code == 2);
  CHECK(empty.out.find("hint:") != std::string::npos);
  auto bad_format = run_cli("diagnose --logs examples --format yaml");
  CHECK(bad_format.exit_code == 2);
  auto bad_time = run_cli("diagnose --logs examples/host-oom-kill/logs --start yesterday");
  CHECK(bad_time.exit_code == 2);
  CHECK(bad_time.out.find("'yesterday' is not a time") != std::string::npos);
  auto help = run_cli("diagnose --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Exit status") != std::string::npos);
  CHECK(help.out.find("--logs") != std::string::npos);
}

TEST_CASE("timings flag prints each pass on stderr and leaves the report unchanged", "[golden]") {
  auto with = run_cli("diagnose --config examples/host-oom-kill/attribution.toml --format json --timings", true);
  auto without = run_cli("diagnose --config examples/host-oom-kill/attribution.toml --format json", false);
  CHECK(with.exit_code == 0);
  CHECK(with.out.find("timing: scan and match") != std::string::npos);
  CHECK(with.out.find(without.out) != std::string::npos);
}

TEST_CASE("config errors exit 3 and name file and line", "[golden]") {
  test::TempDir d;
  auto cfg = d.file("bad.toml", "[workload]\nscheduler = \"static\"\nstatic = \"job.toml\"\nbefore = [\n");
  auto r = run_cli("diagnose --config " + cfg);
  CHECK(r.exit_code == 3);
  CHECK(r.out.find(cfg + ":") != std::string::npos);
  auto missing = run_cli("diagnose --config " + d.path() + "/nope.toml");
  CHECK(missing.exit_code == 3);
  CHECK(missing.out.find("nope.toml") != std::string::npos);
  auto cfg2 = d.file("w.toml", "[workload]\nscheduler = \"static\"\nstatic = \"job.toml\"\n");
  d.file("job.toml", "id = \"1\"\nnodes = \"n[1-\"\nstart = \"2025-01-01T00:00:00Z\"\n");
  auto r2 = run_cli("diagnose --config " + cfg2);
  CHECK(r2.exit_code == 3);
  CHECK(r2.out.find("job.toml:2") != std::string::npos);
  auto r3 = run_cli("diagnose --config " + cfg2 + " --job 7");
  CHECK(r3.exit_code == 3);
}

TEST_CASE("no usable data exits 4 with a sources entry saying why", "[golden]") {
  auto r = run_cli("diagnose --logs /nonexistent/dir --format json");
  CHECK(r.exit_code == 4);
  CHECK(r.out.find("no such file or directory") != std::string::npos);
  CHECK(r.out.find("\"status\": \"empty\"") != std::string::npos);
}

TEST_CASE("hostile files produce a report / never a crash", "[golden]") {
  test::TempDir d;
  std::string garbage(1 << 20, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 2654435761u) >> 13);
  d.file("logs/node01/core.bin", garbage);
  d.file("logs/node01/empty.log", "");
  d.file("logs/node01/long.log", std::string(4 << 20, 'A') + "\n[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n");
  d.file("logs/node02/utf.log", "\xc3\x28\xa0\xa1 NVRM: Xid (PCI:0000:52:00): 79, pid=1, GPU has fallen off the bus.\xff\n");
  d.file("logs/node02/cut.log.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48", 12));
  auto r = run_cli("diagnose --logs " + d.path() + "/logs --format json");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("binary content") != std::string::npos);
  CHECK(r.out.find("cut.log.gz") != std::string::npos);
  CHECK(r.out.find("\"status\": \"partial\"") != std::string::npos);
}

TEST_CASE("rules match names the rules each line matches, block rules included, or the lines none does", "[golden]") {
  test::TempDir d;
  auto log = d.file("x.log",
                    "NVRM: Xid (PCI:0000:91:00): 79, pid=0, GPU has fallen off the bus.\r\n"
                    "nothing to see\n"
                    "  Communicator ranks have different AllReduce operation counts\n"
                    "  31 ranks have launched up to operation 1208\n"
                    "  Rank 9 has launched up to operation 1207 -- GPU 1 managed by process 51307 on node 10.0.0.12\n");
  // (the RAS block's second line is listed by --unmatched: a block rule matches at its first line)
  auto r = run_cli("rules match " + log, false);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("1: xid.79 (cause) pci=0000:91:00 xid=79\n") != std::string::npos);
  CHECK(r.out.find("3: nccl.ras-ranks-behind (cause, 64 lines) collective=AllReduce comm_rank=9 gpu=1 "
                   "host=10.0.0.12 ops=1207 others_ops=1208 pid=51307\n") != std::string::npos);
  CHECK(r.out.find("5: nccl.ras-rank-location (context)") != std::string::npos);
  CHECK(r.out.find("2:") == std::string::npos);
  auto u = run_cli("rules match --unmatched " + log, false);
  CHECK(u.out == "2: nothing to see\n4:   31 ranks have launched up to operation 1208\n");
  auto missing = run_cli("rules match " + d.path() + "/none.log");
  CHECK(missing.exit_code == 4);
  CHECK(missing.out.find("none.log") != std::string::npos);
  CHECK(run_cli("rules match " + d.path()).exit_code == 2);  // a directory
  auto esc = run_cli("rules match --unmatched " + d.file("esc.log", "a\x1b[2Jb\n"), false);
  CHECK(esc.out.find('\x1b') == std::string::npos);  // a log's escape sequences do not reach the terminal
}

TEST_CASE("rules test passes on the built-ins / a broken rule file fails with file:line", "[golden]") {
  auto ok = run_cli("rules test");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find(" 0 failed") != std::string::npos);
  test::TempDir d;
  auto bad = d.file("bad.toml",
                    "[[rule]]\nid = \"my.rule\"\ntitle = \"t\"\nliterals = [\"boom\"]\npattern = 'boom (?P<n>\\d+)'\n"
                    "role = \"symptom\"\nmatch = [{ line = \"boom 7\", captures = { n = \"8\" } }]\n");
  auto r = run_cli("rules test " + bad);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find(bad + ":7") != std::string::npos);
  CHECK(r.out.find("my.rule") != std::string::npos);
  auto diag = run_cli("diagnose --logs examples/host-oom-kill/logs --rules " + bad);
  CHECK(diag.exit_code == 3);
  auto show = run_cli("rules show xid.79");
  CHECK(show.exit_code == 0);
  CHECK(show.out.find("pattern:") != std::string::npos);
  CHECK(run_cli("rules show no.such.rule").exit_code == 2);
  auto patterns = run_cli("rules export-patterns", false);
  CHECK(patterns.exit_code == 0);
  CHECK(patterns.out.find("NVRM: Xid") != std::string::npos);
  CHECK(patterns.out.find("slurm job") == std::string::npos);  // scheduler-stream rules are not log patterns
  CHECK(patterns.out.find("(?P<") == std::string::npos);        // rg -f joins them: no duplicate group names
  auto lits = run_cli("rules export-patterns --literals", false);
  CHECK(lits.exit_code == 0);
  CHECK(lits.out.find("Init COMPLETE\n") != std::string::npos);
}

TEST_CASE("sources check says of each source what the report's sources section says", "[golden]") {
  test::TempDir d;
  d.file("empty/node01.log", "");
  std::string config = test::xid79_static_job(d, R"([[source]]
name = "nothing"
kind = "files"
paths = ["empty/{host}.log"]
[[source]]
name = "typo"
kind = "files"
paths = ["lgos/{host}/*.log"]
)");
  auto check = run_cli("sources check --config " + config, false);
  CHECK(check.exit_code == 1);  // not every source is ok
  auto report = run_cli("diagnose --config " + config + " --format json", false);
  REQUIRE(report.exit_code == 0);
  // Each source's line carries the status the report gives it.
  for (const char* name : {"kernel", "nothing", "typo"}) {
    INFO(name << "\n" << check.out << "\n" << report.out);
    auto at = report.out.find(std::string("\"name\": \"") + name + "\"");
    REQUIRE(at != std::string::npos);
    auto status_at = report.out.find("\"status\": \"", at);
    REQUIRE(status_at != std::string::npos);
    std::string status = report.out.substr(status_at + 11, report.out.find('"', status_at + 11) - status_at - 11);
    auto line_at = check.out.find(std::string(name) + " ");
    REQUIRE(line_at != std::string::npos);
    std::string line = check.out.substr(line_at, check.out.find('\n', line_at) - line_at);
    CHECK(line.find(" " + status + " ") != std::string::npos);
  }
  CHECK(check.out.find("kernel           files      ok") != std::string::npos);
}

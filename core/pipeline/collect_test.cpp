#include <catch2/catch.hpp>

#include "core/pipeline/collect.hpp"
#include "core/pipeline/workload.hpp"
#include "sources/transport/command.hpp"
#include "sources/transport/http.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

TEST_CASE("collect: every configured source gets a coverage record in config order") {
  test::TempDir d;
  d.file("logs/n1/rank-0.log", "x");
  d.file("logs/n2/rank-8.log", "x");
  auto cfg = parse_config(R"(
[[source]]
name = "ranks"
kind = "files"
paths = ["logs/{host}/rank-{rank}.log"]

[[source]]
name = "metrics"
kind = "prometheus"
url = "http://127.0.0.1:9"

[[source]]
name = "nothing"
kind = "files"
paths = ["absent/*.log"]
)", d.path() + "/c.toml");
  REQUIRE(cfg);
  Workload w;
  w.nodes = {"n1", "n2", "n3"};
  ReplayHttpClient http;
  ReplayRunner commands;
  Collection c = collect(*cfg, w, {}, {}, Transports{commands, http});
  REQUIRE(c.coverage.size() == 3);
  CHECK(c.coverage[0].name == "ranks");
  CHECK(c.coverage[0].hosts_expected == 3);
  CHECK(c.coverage[1].status == SourceStatus::skipped);
  CHECK(c.coverage[1].reason.find("time window") != std::string::npos);  // nothing to query without one
  CHECK(c.coverage[2].problems.size() == 1);
  REQUIRE(c.files.size() == 2);
  CHECK(c.files[0].source == 0);
  CHECK(c.files[1].rank_hint == 8);
  CHECK(c.sources[0].stream == Stream::applog);
}

TEST_CASE("collect: --logs replaces configured file sources but keeps the others") {
  test::TempDir d;
  d.file("job/node1/kern.log", "x");
  auto cfg = parse_config("[[source]]\nname = \"ranks\"\nkind = \"files\"\npaths = [\"x\"]\n"
                          "[[source]]\nname = \"loki\"\nkind = \"loki\"\nurl = \"http://loki:3100\"\n",
                          d.path() + "/c.toml");
  REQUIRE(cfg);
  ReplayHttpClient http;
  ReplayRunner commands;
  Collection c = collect(*cfg, Workload{}, {d.path() + "/job"}, {}, Transports{commands, http});
  REQUIRE(c.coverage.size() == 2);
  CHECK(c.coverage[0].name == "logs");
  CHECK(c.coverage[1].name == "loki");
  CHECK(c.sources[0].syslog_by_file_name);  // --logs guesses kern.log/dmesg as syslog
  CHECK_FALSE(c.sources[1].syslog_by_file_name);
  REQUIRE(c.files.size() == 1);
  CHECK(c.files[0].host_hint == "node1");
}

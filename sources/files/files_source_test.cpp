#include <catch2/catch.hpp>

#include "sources/files/files_source.hpp"

#include <sys/stat.h>
#include "tests/test_util.hpp"

using namespace attribution;

TEST_CASE("path templates: {host} and {rank} are read back / other nodes' files are not ours") {
  test::TempDir d;
  d.file("logs/node01/rank-0.log", "a");
  d.file("logs/node01/rank-1.log", "a");
  d.file("logs/node02/rank-8.log", "a");
  d.file("logs/node99/rank-9.log", "a");  // not in the workload
  d.file("logs/4242/kern-node01.log", "a");
  Workload w;
  w.id = "4242";
  w.nodes = {"node01", "node02", "node03"};
  FileGlobs globs{{"logs/{host}/rank-{rank}.log", "logs/{job}/kern-{host}.log", "logs/none/*.log"}, {}, d.path()};
  SourceCoverage cov;
  auto files = list_source_files(globs, 0, w, cov);
  REQUIRE(files.size() == 4);
  CHECK(files[0].host_hint == "node01");
  CHECK(files[0].rank_hint == 0);
  CHECK(files[2].host_hint == "node02");
  CHECK(files[2].rank_hint == 8);
  CHECK(files[3].host_hint == "node01");
  CHECK(files[3].path.find("/4242/") != std::string::npos);
  CHECK(cov.hosts_expected == 3);
  CHECK(cov.hosts_covered == std::vector<std::string>{"node01", "node02"});
  REQUIRE(cov.problems.size() == 1);
  CHECK(cov.problems[0].find("logs/none/*.log") != std::string::npos);
}

TEST_CASE("ad-hoc logs: node-named directories or files / else the subdirectory") {
  test::TempDir d;
  d.file("job/node03/kern.log", "a");
  d.file("job/node04.log", "a");
  d.file("job/misc/rank-5.log", "a");
  d.file("job/top.log", "a");
  Workload w;
  w.nodes = {"node03", "node04"};
  SourceCoverage cov;
  auto files = list_adhoc_files({d.path() + "/job"}, 0, w, cov);
  REQUIRE(files.size() == 4);
  CHECK(files[0].host_hint.empty());  // misc/rank-5.log: with --nodes, only node names assign hosts
  CHECK(files[0].rank_hint == 5);
  CHECK(files[1].host_hint == "node03");
  CHECK(files[2].host_hint == "node04");
  Workload none;
  SourceCoverage cov2;
  auto f2 = list_adhoc_files({d.path() + "/job", d.path() + "/missing"}, 0, none, cov2);
  CHECK(f2[0].host_hint == "misc");
  CHECK(f2[3].host_hint.empty());  // top.log lies in the --logs directory itself
  REQUIRE(cov2.problems.size() == 1);
  CHECK(cov2.problems[0].find("missing") != std::string::npos);
  CHECK(is_system_log_name("/x/kern.log"));
  CHECK(is_system_log_name("/x/dmesg.txt"));
  CHECK_FALSE(is_system_log_name("/x/rank-0.log"));
}

TEST_CASE("ad-hoc logs: FIFOs, devices and link loops are named in problems, never read or skipped silently") {
  test::TempDir d;
  d.file("job/a.log", "a");
  REQUIRE(::mkfifo((d.path() + "/job/pipe").c_str(), 0600) == 0);
  std::filesystem::create_symlink("loop2", d.path() + "/job/loop1");
  std::filesystem::create_symlink("loop1", d.path() + "/job/loop2");
  std::filesystem::create_symlink("/dev/null", d.path() + "/job/null");
  Workload w;
  SourceCoverage cov;
  auto files = list_adhoc_files({d.path() + "/job"}, 0, w, cov);
  REQUIRE(files.size() == 1);
  REQUIRE(cov.problems.size() == 4);
  CHECK(cov.problems[0].find("loop1: skipped, a symbolic link that leads nowhere") != std::string::npos);
  CHECK(cov.problems[2].find("null: skipped, a link to something not a regular file") != std::string::npos);
  CHECK(cov.problems[3].find("pipe: skipped, a FIFO") != std::string::npos);
  SourceCoverage one;
  CHECK(list_adhoc_files({d.path() + "/job/pipe"}, 0, w, one).empty());
  CHECK(one.problems.size() == 1);
}

#include <catch2/catch.hpp>

#include "sources/static/static_workload.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

TEST_CASE("static workload file") {
  auto w = parse_static_workload(R"(
id = 4242
name = "llama"
user = "alice"
nodes = "node[01-03],gpu7"
start = "2025-03-14T09:00:00Z"
end = "2025-03-14T10:00:00Z"
state = "FAILED"
exit_code = 134
)", "w.toml", TimeZone::utc());
  REQUIRE(w);
  CHECK(w->id == "4242");
  CHECK(w->nodes == std::vector<std::string>{"node01", "node02", "node03", "gpu7"});
  CHECK(*w->exit_code == 134);
  CHECK(*w->end - *w->start == 3600 * kMicrosPerSecond);
  auto bad = parse_static_workload("id = \"1\"\nnodes = \"n[1-\"\nstart = \"2025-03-14T09:00:00Z\"\n", "w.toml", TimeZone::utc());
  REQUIRE_FALSE(bad);
  CHECK(bad.error().line == 2);
  CHECK(bad.error().key == "nodes");
  auto no_start = parse_static_workload("id = \"1\"\nnodes = \"n1\"\n", "w.toml", TimeZone::utc());
  REQUIRE_FALSE(no_start);
  CHECK(no_start.error().message.find("start") != std::string::npos);
  auto backwards = parse_static_workload(
      "id = \"1\"\nnodes = \"n1\"\nstart = \"2025-03-14T09:00:00Z\"\nend = \"2025-03-14T08:00:00Z\"\n", "w.toml", TimeZone::utc());
  CHECK_FALSE(backwards);
}

#include "core/scan/file_bytes.hpp"

TEST_CASE("static workload: exit_code is 0..255 or \"code:signal\" / a float is refused, never converted") {
  auto with = [](const std::string& exit_code) {
    return parse_static_workload("id = \"1\"\nnodes = \"n1\"\nstart = \"2025-03-14T09:00:00Z\"\nexit_code = " + exit_code + "\n",
                                 "w.toml", TimeZone::utc());
  };
  REQUIRE(with("134"));
  CHECK(with("134")->exit_code == 134);
  auto signal = with("\"0:9\"");
  REQUIRE(signal);
  CHECK(signal->exit_signal == 9);
  for (const char* bad : {"1E34", "1.5", "-1", "256", "99999999999", "\"x\""}) {
    INFO(bad);
    auto w = with(bad);
    REQUIRE_FALSE(w);
    CHECK(w.error().key.find("exit_code") != std::string::npos);
  }
}

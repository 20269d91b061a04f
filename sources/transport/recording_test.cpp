#include "sources/transport/recording.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("recording twins keep what came back and never the request headers") {
  ReplayHttpClient inner;
  inner.add("http://prom:9090/api/v1/query_range?query=x", HttpResponse{200, "{\"status\":\"success\"}"});
  RecordingHttpClient http(inner);
  auto r = http.get(HttpRequest{"http://prom:9090/api/v1/query_range?query=x", {"Authorization: Bearer s3cret"}, {}});
  REQUIRE(r);
  auto down = http.get(HttpRequest{"http://down/", {}, {}});
  REQUIRE_FALSE(down);
  auto ex = http.exchanges();
  REQUIRE(ex.size() == 2);
  CHECK(ex[0].response->body == "{\"status\":\"success\"}");
  CHECK(ex[1].error.find("Couldn't connect") != std::string::npos);

  ReplayRunner cmds;
  cmds.add("sacct --json -j 1", CommandOutput{0, "{}", ""});
  RecordingRunner runner(cmds);
  CHECK(runner.available("sacct"));
  CHECK_FALSE(runner.available("scontrol"));
  REQUIRE(runner.run({"sacct", "--json", "-j", "1"}));
  REQUIRE_FALSE(runner.run({"scontrol", "show", "job"}));
  REQUIRE(runner.commands().size() == 2);
  CHECK(runner.commands()[0].output->out == "{}");
  CHECK_FALSE(runner.commands()[1].output);
  CHECK(runner.probes().size() == 2);
}

TEST_CASE("credentials in a URL's authority are cut out") {
  CHECK(url_without_userinfo("https://alice:pw@prom.example:9090/api?q=a@b") == "https://prom.example:9090/api?q=a@b");
  CHECK(url_without_userinfo("http://prom:9090/x") == "http://prom:9090/x");
  CHECK(url_without_userinfo("http://prom:9090/x?mail=a@b") == "http://prom:9090/x?mail=a@b");
}

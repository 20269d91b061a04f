#include "sources/transport/recording.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

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

namespace {
// Answers each URL with its own text, and counts how many requests overlap. Until `expect`
// requests have been in flight at once, each waits for more (at most 2 s), so the count does not
// depend on how fast threads start; more than `expect` at once is seen too.
class SlowEcho : public HttpClient {
 public:
  using HttpClient::get;
  explicit SlowEcho(int expect) : expect_(expect) {}
  Result<HttpResponse> get(const HttpRequest& request) override {
    int now = ++in_flight;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (most < expect_ && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // room for one too many to show
    --in_flight;
    if (request.url.find("fail") != std::string::npos) return make_error(ErrorKind::input, "refused", request.url);
    return HttpResponse{200, "body of " + request.url};
  }
  std::atomic<int> in_flight{0}, most{0};

 private:
  int expect_;
};

std::vector<HttpRequest> numbered(int n) {
  std::vector<HttpRequest> out;
  for (int i = 0; i < n; ++i) out.push_back(HttpRequest{"http://x/" + std::to_string(i) + (i == 5 ? "/fail" : ""), {}, {}});
  return out;
}
}  // namespace

TEST_CASE("get_all keeps `parallel` requests in flight and answers in request order") {
  for (int parallel : {1, 3, 8}) {
    SlowEcho echo(parallel);
    auto answers = echo.get_all(numbered(12), parallel);
    REQUIRE(answers.size() == 12);
    for (int i = 0; i < 12; ++i) {
      INFO(i);
      if (i == 5) CHECK_FALSE(answers[i]);
      else CHECK(answers[i]->body == "body of http://x/" + std::to_string(i));
    }
    CHECK(echo.most == parallel);
  }
}

TEST_CASE("a recorded parallel fetch is recorded in request order, and replays in it") {
  SlowEcho echo(4);
  RecordingHttpClient rec(echo);
  auto answers = rec.get_all(numbered(10), 4);
  auto ex = rec.exchanges();
  REQUIRE(ex.size() == 10);
  for (size_t i = 0; i < ex.size(); ++i) CHECK(ex[i].url == numbered(10)[i].url);
  CHECK(ex[5].error == "refused");
  ReplayHttpClient replay;
  for (const auto& e : ex)
    if (e.response) replay.add(e.url, *e.response);
  auto again = replay.get_all(numbered(10), 4);
  CHECK(replay.seen_urls.size() == 10);
  CHECK(again[9]->body == answers[9]->body);
}

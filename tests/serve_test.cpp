// attribution serve over real HTTP on 127.0.0.1: every route, the token rule, bad requests, many
// concurrent POSTs, a restart, and a POSTed workload against --logs on the same lines.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <httplib.h>
#include <set>
#include <simdjson.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "core/base/json_writer.hpp"
#include "core/serve/server.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_json.hpp"
#include "tests/test_util.hpp"

using namespace attribution;
namespace fs = std::filesystem;

namespace {

// A server on an ephemeral port of 127.0.0.1, stopped and joined on scope exit.
class Running {
 public:
  Running(const std::string& store_path, ServeOptions options = {}) {
    options.port = 0;
    auto s = open_store(store_path, true);
    REQUIRE(s);
    store_ = std::move(*s);
    auto rules = prepare_rules({});
    REQUIRE(rules);
    server_ = std::make_unique<Server>(*store_, *rules, options);
    REQUIRE(server_->bind());
    thread_ = std::thread([this] { server_->run(); });
  }
  ~Running() {
    server_->stop();
    thread_.join();
  }
  int port() const { return server_->port(); }
  httplib::Client client(const std::string& token = {}) const {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(120, 0);
    if (!token.empty()) c.set_bearer_token_auth(token.c_str());
    return c;
  }

 private:
  std::unique_ptr<Store> store_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
};

// A pushed workload whose logs are the given (host, name, lines) as files would hold them.
struct Log {
  std::string host, name;
  std::vector<std::string> lines;
};
std::string push_body(const std::string& id, const std::string& nodes, const std::vector<Log>& logs) {
  JsonWriter j;
  j.begin_object().key("workload").begin_object().field("id", id).field("nodes", nodes).end_object();
  j.key("logs").begin_array();
  for (const auto& l : logs) {
    j.begin_object().field("host", l.host).field("name", l.name);
    j.field("stream", is_system_log_name(l.name) ? "syslog" : "applog").key("lines").begin_array();
    for (const auto& line : l.lines) j.value(line);
    j.end_array().end_object();
  }
  j.end_array().end_object();
  return j.take();
}

std::vector<Log> example_logs(const std::string& example) {
  std::vector<Log> out;
  fs::path root = fs::path(ATTRIBUTION_SOURCE_DIR) / "examples" / example / "logs";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    Log l{f.parent_path().filename().string(), f.filename().string(), {}};
    std::istringstream in(test::read_file(f.string()));
    for (std::string line; std::getline(in, line);) l.lines.push_back(line);
    out.push_back(std::move(l));
  }
  return out;
}

// Sends `request` as raw bytes on a new connection and returns the first whole response (or what
// came before the server closed, or 15 s passed): for requests no well-behaved client library would send.
std::string raw_exchange(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  timeval tv{15, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  for (size_t sent = 0; sent < request.size();) {
    ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) {
    out.append(buf, static_cast<size_t>(n));
    // One whole response is enough: a server may keep the connection open after it.
    size_t head = out.find("\r\n\r\n");
    size_t at = out.find("Content-Length: ");
    if (head != std::string::npos && at != std::string::npos && at < head &&
        out.size() >= head + 4 + std::stoul(out.substr(at + 16)))
      break;
  }
  close(fd);
  return out;
}

int status_of(const std::string& response) {
  return response.size() > 12 ? std::atoi(response.substr(9, 3).c_str()) : 0;
}

const std::vector<std::string> kExamples = {"app-illegal-memory-access", "host-oom-kill", "noise-only-then-app-exit",
                                            "nvlink-signal-integrity", "xid79-gpu-fallen-off-bus"};

}  // namespace

TEST_CASE("serve: the examples diagnosed with --store are on the dashboard and in the API as the CLI said",
          "[serve]") {
  test::TempDir d;
  std::string db = d.path() + "/reports.db";
  std::map<std::string, std::string> cli_json;
  for (const auto& ex : kExamples) {
    auto r = test::run_cli("diagnose --config examples/" + ex + "/attribution.toml --format json --store '" + db + "'",
                           false);
    REQUIRE(r.exit_code == 0);
    cli_json[ex] = r.out;
  }
  Running server(db);
  auto c = server.client();
  simdjson::dom::parser p;

  auto list = c.Get("/api/v1/reports");
  REQUIRE(list);
  CHECK(list->status == 200);
  auto reports = test::parse_json(p, list->body)["reports"].get_array();
  REQUIRE(reports.size() == kExamples.size());
  std::set<std::string> seen;
  for (auto r : reports.value()) {
    int64_t id = r["id"].get_int64();
    auto one = c.Get(fmt::format("/api/v1/reports/{}", id).c_str());
    REQUIRE(one);
    CHECK(one->status == 200);
    bool matched = false;
    for (const auto& [ex, json] : cli_json)
      if (one->body == json) matched = seen.insert(ex).second;  // byte-identical to what the CLI printed
    CHECK(matched);
    simdjson::dom::parser q;
    auto doc = test::parse_json(q, one->body);
    CHECK(test::json_text(r["family"]) == test::json_text(doc["outcome"]["family"]));
    CHECK(test::json_text(r["workload_id"]) == test::json_text(doc["workload"]["id"]));
    for (const char* ext : {".html", ".md"}) {
      auto view = c.Get(fmt::format("/api/v1/reports/{}{}", id, ext).c_str());
      REQUIRE(view);
      CHECK(view->status == 200);
    }
    auto page = c.Get(fmt::format("/reports/{}", id).c_str());
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK(page->get_header_value("Content-Type").find("text/html") == 0);
  }
  CHECK(seen.size() == kExamples.size());

  auto dash = c.Get("/");
  REQUIRE(dash);
  CHECK(dash->status == 200);
  for (const auto& r : reports.value())
    CHECK(dash->body.find(fmt::format("id=\"report-{}\"", int64_t(r["id"].get_int64()))) != std::string::npos);
  auto filtered = c.Get("/?family=accelerator-fabric");
  REQUIRE(filtered);
  size_t rows = 0;
  for (size_t at = 0; (at = filtered->body.find("class=\"report-row\"", at)) != std::string::npos; ++at) ++rows;
  CHECK(rows == 1);

  auto by_family = c.Get("/api/v1/reports?family=accelerator-fabric&since=3650d&limit=10");
  REQUIRE(by_family);
  CHECK(test::parse_json(p, by_family->body)["reports"].get_array().size() == 1);
  auto nodes = c.Get("/api/v1/nodes?min=1");
  REQUIRE(nodes);
  CHECK(nodes->status == 200);
  CHECK(test::parse_json(p, nodes->body)["nodes"].get_array().size() >= 3);
  auto health = c.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  auto metrics = c.Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->body.find("attribution_store_reports{family=\"accelerator-fabric\"} 1") != std::string::npos);
  CHECK(metrics->body.find("attribution_http_requests_total{route=\"GET /api/v1/reports\",code=\"200\"}") !=
        std::string::npos);
}

TEST_CASE("serve: a POSTed workload gets the report --logs gives on the same lines, and it is stored", "[serve]") {
  test::TempDir d;
  auto logs = example_logs("nvlink-signal-integrity");
  for (const auto& l : logs) {
    std::string text;
    for (const auto& line : l.lines) text += line + "\n";
    d.file("pushed/" + l.host + "/" + l.name, text);
  }
  // Both read the same (empty) config, not whatever ./attribution.toml or /etc holds.
  std::string config = d.file("attribution.toml", "# no sources: --logs only\n");
  std::string args = "--job 4242 --nodes 'node[01-04]' --format json --config '" + config + "'";
  // The CLI from the directory holding pushed/, so its paths read as the server names them.
  std::string cmd = "cd '" + d.path() + "' && '" + ATTRIBUTION_BINARY + "' diagnose --logs pushed " + args +
                    " 2>/dev/null";
  std::string want;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) want.append(buf, n);
  REQUIRE(pclose(pipe) == 0);

  ServeOptions o;
  o.config_path = config;
  Running server(d.path() + "/reports.db", o);
  auto c = server.client();
  auto res = c.Post("/api/v1/diagnose", push_body("4242", "node[01-04]", logs), "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == want);
  std::string id = res->get_header_value("X-Attribution-Report-Id");
  REQUIRE(!id.empty());
  auto stored = c.Get(("/api/v1/reports/" + id).c_str());
  REQUIRE(stored);
  CHECK(stored->body == want);
  simdjson::dom::parser p;
  CHECK(test::json_text(test::parse_json(p, want)["outcome"]["family"]) == "accelerator-fabric");
}

TEST_CASE("serve: 200 POSTs from 8 concurrent clients are each stored exactly once", "[serve]") {
  test::TempDir d;
  ServeOptions o;
  o.diagnoses = 4;
  Running server(d.path() + "/reports.db", o);
  constexpr int kClients = 8, kEach = 25;
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kClients; ++t)
    clients.emplace_back([&, t] {
      auto c = server.client();
      for (int i = 0; i < kEach; ++i) {
        std::string id = fmt::format("job-{}-{}", t, i);
        auto body = push_body(id, "node01", {{"node01", "kern.log",
                                              {"2025-03-21T10:05:00+00:00 node01 kernel: NVRM: Xid (PCI:0000:b9:00): "
                                               "79, pid=1, name=python, GPU has fallen off the bus."}}});
        auto res = c.Post("/api/v1/diagnose", body, "application/json");
        if (res && res->status == 200) ++ok;
      }
    });
  for (auto& t : clients) t.join();
  CHECK(ok == kClients * kEach);
  auto c = server.client();
  auto list = c.Get("/api/v1/reports?limit=10000");
  REQUIRE(list);
  simdjson::dom::parser p;
  auto reports = test::parse_json(p, list->body)["reports"].get_array();
  std::set<std::string> ids;
  for (auto r : reports.value()) ids.insert(test::json_text(r["workload_id"]));
  CHECK(reports.size() == kClients * kEach);
  CHECK(ids.size() == kClients * kEach);
  for (auto r : reports.value()) CHECK(test::json_text(r["family"]) == "accelerator-gpu");
}

TEST_CASE("serve: bad requests get a JSON error naming what is wrong, and the server stays up", "[serve]") {
  test::TempDir d;
  ServeOptions o;
  o.limits.body_bytes = 4096;
  o.limits.lines = 10;
  o.limits.line_bytes = 100;
  Running server(d.path() + "/reports.db", o);
  auto c = server.client();
  auto post = [&](const std::string& body) { return c.Post("/api/v1/diagnose", body, "application/json"); };
  struct Case {
    std::string body;
    int status;
    std::string says;
  };
  std::vector<Case> cases = {
      {"{\"logs\": [", 400, "not valid JSON"},
      {"[1, 2]", 400, "must be a JSON object"},
      {"{\"logs\": [], \"extra\": 1}", 400, "unknown field 'extra'"},
      {"{\"logs\": []}", 400, "nothing to diagnose"},
      {"{\"logs\": [{\"host\": \"../etc\", \"name\": \"x.log\", \"lines\": []}]}", 400, "logs[0].host"},
      {"{\"logs\": [{\"host\": \"n1\", \"name\": \"a/b\", \"lines\": []}]}", 400, "logs[0].name"},
      {"{\"logs\": [{\"host\": \"n1\", \"name\": \"a\", \"lines\": [1]}]}", 400, "logs[0].lines[0] is not a string"},
      {"{\"logs\": [{\"host\": \"n1\", \"name\": \"a\", \"stream\": \"x\", \"lines\": []}]}", 400, "not applog or syslog"},
      {"{\"logs\": [{\"host\": \"n1\", \"name\": \"a\", \"lines\": [\"" + std::string(200, 'x') + "\"]}]}", 413,
       "over the limit of 100"},
      {"{\"logs\": [{\"host\": \"n1\", \"name\": \"a\", \"lines\": [\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\",\"10\",\"11\"]}]}",
       413, "more than 10 lines"},
      {"{\"workload\": {\"start\": \"yesterday\"}, \"logs\": [{\"host\": \"n1\", \"name\": \"a\", \"lines\": []}]}", 400,
       "yesterday"},
      {"{\"workload\": {\"exit_code\": \"x:y\"}, \"logs\": [{\"host\": \"n1\", \"name\": \"a\", \"lines\": []}]}", 400,
       "exit_code"},
      {std::string(5000, ' '), 413, "over the limit of 4096"},
  };
  for (const auto& k : cases) {
    INFO(k.body.substr(0, 120));
    auto res = post(k.body);
    REQUIRE(res);
    CHECK(res->status == k.status);
    CHECK(res->get_header_value("Content-Type") == "application/json");
    CHECK(res->body.find(k.says) != std::string::npos);
  }
  for (const char* path : {"/api/v1/reports/..%2F..%2Fetc%2Fpasswd", "/api/v1/reports/99999", "/reports/-1",
                           "/api/v1/reports/1e3", "/nowhere", "/api/v1/reports/99999999999999999999999"}) {
    INFO(path);
    auto res = c.Get(path);
    REQUIRE(res);
    CHECK(res->status == 404);
    CHECK(res->body.find("\"error\"") != std::string::npos);
  }
  for (const char* path : {"/api/v1/reports?since=forever", "/api/v1/reports?limit=0", "/api/v1/nodes?min=x"}) {
    INFO(path);
    auto res = c.Get(path);
    REQUIRE(res);
    CHECK(res->status == 400);
  }
  auto health = c.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
}

TEST_CASE("serve: with a token every route but /healthz needs it / beyond loopback a token is required", "[serve]") {
  test::TempDir d;
  ServeOptions o;
  o.token = "0123456789abcdef0123";
  Running server(d.path() + "/reports.db", o);
  for (const char* path : {"/", "/api/v1/reports", "/api/v1/nodes", "/metrics", "/reports/1"}) {
    INFO(path);
    auto anonymous = server.client().Get(path);
    REQUIRE(anonymous);
    CHECK(anonymous->status == 401);
    auto wrong = server.client("not-the-token-at-all").Get(path);
    REQUIRE(wrong);
    CHECK(wrong->status == 401);
  }
  auto ok = server.client(o.token).Get("/api/v1/reports");
  REQUIRE(ok);
  CHECK(ok->status == 200);
  auto health = server.client().Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  auto post = server.client().Post("/api/v1/diagnose", "{}", "application/json");
  REQUIRE(post);
  CHECK(post->status == 401);

  ServeOptions open;
  open.host = "0.0.0.0";
  CHECK(!check_listen(open));
  open.token = o.token;
  CHECK(check_listen(open));
  auto r = test::run_cli("serve --store " + d.path() + "/x.db --listen 0.0.0.0:0");
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("needs a token") != std::string::npos);
  auto short_token = test::run_cli("serve --store " + d.path() + "/x.db --listen 127.0.0.1:0 --token-file " +
                                   d.file("t", "abc\n"));
  CHECK(short_token.exit_code == 3);
}

TEST_CASE("serve: a stopped and restarted server keeps every report", "[serve]") {
  test::TempDir d;
  std::string db = d.path() + "/reports.db";
  std::string body = push_body("77", "node01", {{"node01", "kern.log",
                                                 {"2025-03-21T10:05:00+00:00 node01 kernel: NVRM: Xid (PCI:0000:b9:00): "
                                                  "79, pid=1, name=python, GPU has fallen off the bus."}}});
  std::string first;
  {
    Running server(db);
    auto res = server.client().Post("/api/v1/diagnose", body, "application/json");
    REQUIRE(res);
    REQUIRE(res->status == 200);
    first = res->body;
  }
  Running again(db);
  auto list = again.client().Get("/api/v1/reports");
  REQUIRE(list);
  simdjson::dom::parser p;
  auto reports = test::parse_json(p, list->body)["reports"].get_array();
  REQUIRE(reports.size() == 1);
  auto one = again.client().Get(fmt::format("/api/v1/reports/{}", int64_t(reports.at(0)["id"].get_int64())).c_str());
  REQUIRE(one);
  CHECK(one->body == first);
}

TEST_CASE("serve: requests refused before their body is read: size, encoding, type, host, ranges", "[serve]") {
  test::TempDir d;
  ServeOptions o;
  o.limits.body_bytes = 4096;
  Running server(d.path() + "/reports.db", o);
  const int port = server.port();
  const std::string body = push_body("1", "node01", {{"node01", "a.log", {"x"}}});
  auto post = [&](const std::string& headers, const std::string& payload) {
    return raw_exchange(port, "POST /api/v1/diagnose HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                                  headers + "\r\n" + payload);
  };
  std::string len = "Content-Length: " + std::to_string(body.size()) + "\r\n";
  struct Case {
    std::string what, response;
    int status;
  };
  std::vector<Case> cases = {
      {"a chunked body", post("Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
                              "5\r\nhello\r\n0\r\n\r\n"), 411},
      {"no Content-Length", post("Content-Type: application/json\r\n", body), 411},
      {"a gzip body", post("Content-Type: application/json\r\nContent-Encoding: gzip\r\n" + len, body), 415},
      {"text/plain (a cross-site form)", post("Content-Type: text/plain\r\n" + len, body), 415},
      {"a declared length over the limit", post("Content-Type: application/json\r\nContent-Length: 999999\r\n", ""),
       413},
      {"another site's Host (DNS rebinding)",
       raw_exchange(port, "GET /api/v1/reports HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"), 421},
      {"many ranges on /healthz",
       raw_exchange(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-,0-,0-\r\nConnection: close\r\n\r\n"),
       416},
      {"many ranges on a report",
       raw_exchange(port, "GET /api/v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-,0-,0-\r\nConnection: close\r\n\r\n"),
       416},
      {"Expect: 100-continue over the limit",
       raw_exchange(port, "POST /api/v1/diagnose HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: 999999\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"),
       413},
  };
  for (const auto& k : cases) {
    INFO(k.what << ": " << k.response.substr(0, 300));
    CHECK(status_of(k.response) == k.status);
  }
  // A well-formed POST still works after all of that.
  auto ok = server.client().Post("/api/v1/diagnose", body, "application/json");
  REQUIRE(ok);
  CHECK(ok->status == 200);
  // A 20-byte hostlist naming a million hosts is refused before any work.
  auto huge = server.client().Post("/api/v1/diagnose",
                                   "{\"workload\": {\"nodes\": \"n[000000-999999]\"}, \"logs\": [{\"host\": \"n1\", "
                                   "\"name\": \"a\", \"lines\": []}]}",
                                   "application/json");
  REQUIRE(huge);
  CHECK(huge->status == 413);
  CHECK(huge->body.find("1000000 hosts") != std::string::npos);
  auto forever = server.client().Get("/api/v1/reports?since=300000000d");
  REQUIRE(forever);
  CHECK(forever->status == 400);
}

TEST_CASE("serve: junk request lines never become metric labels", "[serve]") {
  test::TempDir d;
  Running server(d.path() + "/reports.db");
  for (int i = 0; i < 20; ++i) raw_exchange(server.port(), fmt::format("X{}JUNK\xff\xfe\r\n\r\n", i));
  auto m = server.client().Get("/metrics");
  REQUIRE(m);
  CHECK(m->body.find("JUNK") == std::string::npos);
  CHECK(m->body.find("\xff") == std::string::npos);
}

TEST_CASE("serve: stop() before run() still stops it", "[serve]") {
  test::TempDir d;
  auto store = open_store(d.path() + "/reports.db", true);
  REQUIRE(store);
  auto rules = prepare_rules({});
  REQUIRE(rules);
  ServeOptions o;
  o.port = 0;
  Server server(**store, *rules, o);
  REQUIRE(server.bind());
  std::thread stopper([&] { server.stop(); });
  server.run();  // returns: the stop was asked for before or while it started
  stopper.join();
  SUCCEED("run() returned");
}

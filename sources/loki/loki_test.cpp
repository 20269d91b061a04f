#include <catch2/catch.hpp>
#include <cstdlib>
#include <fmt/format.h>

#include "core/scan/line_prefix.hpp"
#include "core/rules/matcher.hpp"
#include "core/rules/rule_sources.hpp"
#include "core/scan/scan.hpp"
#include "sources/transport/http_auth.hpp"
#include "sources/loki/loki.hpp"
#include "core/pipeline/config.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {



// Job 4242 of the fixtures: node[01-04], 09:00:00-09:51:12Z, window 08:45:00-09:56:12Z.
Workload job() {
  Workload w;
  w.id = "4242";
  w.nodes = {"node01", "node02", "node03", "node04"};
  w.start = test::utc("2025-03-14T09:00:00Z");
  w.end = test::utc("2025-03-14T09:51:12Z");
  w.window = Window{test::utc("2025-03-14T08:45:00Z"), test::utc("2025-03-14T09:56:12Z")};
  w.window_known = true;
  return w;
}

LokiSettings kernel_source() {
  LokiSettings s;
  s.stream = Stream::syslog;
  s.url = "http://loki:3100/";
  s.query = R"({job="node-syslog", host=~"{hosts_regex}"})";
  s.host_labels = {"host", "hostname", "node", "nodename", "instance"};
  s.limit = 3;
  return s;
}

constexpr int64_t kWindowStartNs = 1741941900000000000;
constexpr int64_t kT3 = 1741945303123456789;  // the Xid 79 line, the end of page 1
constexpr int64_t kT4 = 1741945304000000000;  // the Xid 154 line, the end of page 2

std::string url(const LokiSettings& s, int64_t from) {
  return "http://loki:3100/loki/api/v1/query_range?query=" + url_encode(loki_query(s, job())) + "&start=" +
         std::to_string(from) + "&end=1741946172000001000&limit=" + std::to_string(s.limit) + "&direction=forward";
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

// One page that answers, then `answer` for the second request.
SourceCoverage fail_second_page(std::variant<HttpResponse, std::string> answer, std::vector<InputFile>* files = nullptr) {
  LokiSettings s = kernel_source();
  ReplayHttpClient http;
  http.add(url(s, kWindowStartNs), HttpResponse{200, test::fixture("loki/kernel-page1.json")});
  if (auto* r = std::get_if<HttpResponse>(&answer)) http.add(url(s, kT3), *r);
  else http.add_error(url(s, kT3), std::get<std::string>(answer));
  SourceCoverage cov;
  auto out = collect_loki(s, 0, job(), http, cov);
  if (files) *files = out;
  return cov;
}

// The first request answers `answer`.
SourceCoverage fail_first_page(std::variant<HttpResponse, std::string> answer, LokiSettings s = kernel_source()) {
  ReplayHttpClient http;
  if (auto* r = std::get_if<HttpResponse>(&answer)) http.add(url(s, kWindowStartNs), *r);
  else http.add_error(url(s, kWindowStartNs), std::get<std::string>(answer));
  SourceCoverage cov;
  auto out = collect_loki(s, 0, job(), http, cov);
  CHECK(out.empty());
  return cov;
}

}  // namespace

TEST_CASE("query_range streams: two- and three-element values, nanosecond times") {
  auto p = parse_loki_streams(test::fixture("loki/kernel-page1.json"));
  REQUIRE(p);
  REQUIRE(p->streams.size() == 2);
  REQUIRE(p->entries.size() == 3);
  CHECK(p->streams[0].labels.at("host") == "node03");
  CHECK(p->entries[1].ns == kT3);
  CHECK(p->entries[1].line.rfind("NVRM: Xid (PCI:0000:b9:00): 79,", 0) == 0);
  CHECK(p->entries[2].stream == 1);

  auto flat = parse_loki_streams(test::fixture("loki/kernel-page3.json"));  // Loki 3 without encoding flags
  REQUIRE(flat);
  REQUIRE(flat->entries.size() == 2);
  CHECK(flat->entries[1].metadata.at("boot_id") == "3f9c2a7e1b8d4c0f9e6a5b4c3d2e1f00");

  auto grouped = parse_loki_streams(test::fixture("loki/apps.json"));  // categorize-labels
  REQUIRE(grouped);
  REQUIRE(grouped->entries.size() == 2);
  CHECK(grouped->entries[0].metadata.at("trace_id") == "0af7651916cd43dd8448eb211c80319c");
  CHECK(grouped->entries[1].metadata.at("nodename") == "node02");
  CHECK(grouped->entries[1].metadata.at("level") == "error");
  CHECK(grouped->entries[1].metadata.count("structuredMetadata") == 0);
}

TEST_CASE("query_range faults: truncated and malformed JSON, error status, metric results") {
  std::string whole = test::fixture("loki/kernel-page1.json");
  auto cut = parse_loki_streams(std::string_view(whole).substr(0, whole.size() / 2));
  REQUIRE_FALSE(cut);
  CHECK(cut.error().message.find("truncated JSON") != std::string::npos);
  auto html = parse_loki_streams(test::fixture("loki/malformed.html"));
  REQUIRE_FALSE(html);
  CHECK(html.error().message.find("malformed JSON") != std::string::npos);
  auto err = parse_loki_streams(R"({"status":"error","errorType":"bad_data","error":"invalid parameter"})");
  REQUIRE_FALSE(err);
  CHECK(err.error().message == "Loki error bad_data: invalid parameter");
  auto matrix = parse_loki_streams(test::fixture("loki/matrix.json"));
  REQUIRE_FALSE(matrix);
  CHECK(matrix.error().message.find("metric query") != std::string::npos);
  auto bad_ts = parse_loki_streams(R"({"status":"success","data":{"resultType":"streams","result":[{"stream":{},"values":[[1, "x"]]}]}})");
  REQUIRE_FALSE(bad_ts);
  CHECK(bad_ts.error().message.find("malformed JSON") != std::string::npos);
}

TEST_CASE("the LogQL template: job, escaped hosts with host map values, default selector") {
  LokiSettings s = kernel_source();
  Workload w = job();
  w.nodes = {"node01", "gpu.a"};
  s.host_map = {{"fluent-bit-x7k2p", "node01"}, {"elsewhere", "node77"}};
  s.query = R"({job="{job}", host=~"{hosts_regex}", namespace="{namespace}"})";
  CHECK(loki_query(s, w) == R"({job="4242", host=~"node01|gpu\\.a|fluent-bit-x7k2p", namespace=""})");
  s.query.clear();
  s.host_labels = {"nodename"};
  CHECK(loki_query(s, w) == R"({nodename=~"node01|gpu\\.a|fluent-bit-x7k2p"})");
}

TEST_CASE("each emitted line carries Loki's time and host in a prefix the scan reads") {
  std::string l = loki_line(kT3, "node03", "NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
  CHECK(l.rfind("2025-03-14T09:41:43.123456Z node03 loki: NVRM: Xid", 0) == 0);
  LinePrefix p = parse_line_prefix(l);
  CHECK(p.host == "node03");
  CHECK(resolve_time(p, TimeContext{TimeZone::utc(), 0, {}, {}, {}}) == Micros(1741945303123456));
  CHECK(l.substr(p.message_offset).rfind("NVRM: Xid", 0) == 0);

  // The line's own prefixes still parse after it; the Loki time stays (the outermost stamp).
  // LinePrefix holds views into the line: the lines must outlive them.
  std::string nccl = loki_line(kT3, "node01", "node01:48212:48436 [1] transport/net_ib.cc:1696 NCCL WARN x");
  LinePrefix n = parse_line_prefix(nccl);
  CHECK(n.host == "node01");
  CHECK(n.pid == 48212);
  CHECK(n.gpu == 1);
  CHECK(resolve_time(n, TimeContext{TimeZone::utc(), 0, {}, {}, {}}) == Micros(1741945303123456));
  std::string torch = loki_line(kT3, "node02", "[rank9]:[E314 09:41:46.496000226 ProcessGroupNCCL.cpp:1601] y");
  LinePrefix r = parse_line_prefix(torch);
  CHECK(r.rank == 9);
  CHECK(resolve_time(r, TimeContext{TimeZone::utc(), Micros(1741945303123456), {}, {}, {}}) == Micros(1741945303123456));
}

TEST_CASE("paging: the next page starts at the last time and the boundary repeats are dropped") {
  LokiSettings s = kernel_source();
  s.org_id = "team-a";
  s.token_env = "ATTRIBUTION_TEST_LOKI_TOKEN";
  s.ca_file = "/etc/ssl/loki-ca.pem";
  s.timeout = 7 * kMicrosPerSecond;
  setenv("ATTRIBUTION_TEST_LOKI_TOKEN", "loki-s3cret", 1);
  ReplayHttpClient http;
  http.add(url(s, kWindowStartNs), HttpResponse{200, test::fixture("loki/kernel-page1.json")});
  http.add(url(s, kT3), HttpResponse{200, test::fixture("loki/kernel-page2.json")});
  http.add(url(s, kT4), HttpResponse{200, test::fixture("loki/kernel-page3.json")});
  SourceCoverage cov;
  auto files = collect_loki(s, 4, job(), http, cov);
  unsetenv("ATTRIBUTION_TEST_LOKI_TOKEN");
  REQUIRE(http.seen_urls.size() == 3);  // page 3 had fewer than `limit` entries: the end
  CHECK(http.seen_urls[1] == url(s, kT3));
  CHECK(http.seen_urls[2] == url(s, kT4));
  for (const auto& h : http.seen_headers) {
    CHECK(has(h, "X-Scope-OrgID: team-a"));
    CHECK(has(h, "Authorization: Bearer loki-s3cret"));
  }
  CHECK(http.seen_options[0].ca_file == "/etc/ssl/loki-ca.pem");
  CHECK(http.seen_options[0].timeout == 7 * kMicrosPerSecond);

  CHECK(cov.status == SourceStatus::ok);
  CHECK(cov.reason.empty());
  CHECK(cov.hosts_covered == std::vector<std::string>{"node01", "node02", "node03"});
  CHECK(cov.hosts_expected == 4);
  CHECK(cov.bytes > 0);
  REQUIRE(files.size() == 3);  // node99 is not the job's
  CHECK(files[0].host_hint == "node01");
  CHECK(files[1].host_hint == "node02");  // node02.cluster.local: the domain is cut
  CHECK(files[2].host_hint == "node03");
  CHECK(files[2].source == 4);
  const std::string& node03 = *files[2].text;
  CHECK(count(node03, "\n") == 3);
  CHECK(count(node03, "): 79,") == 1);  // on pages 1 and 2, kept once
  CHECK(count(node03, "): 154,") == 1);  // on pages 2 and 3, kept once
  CHECK(node03.find("2025-03-14T09:41:40.000001Z node03 loki: NVRM: GPU at") == 0);  // time order
  CHECK(*files[0].text == "2025-03-14T09:41:43.123456Z node01 loki: systemd-logind[1822]: New session 42 of user alice.\n");
  CHECK(files[2].path.rfind("http://loki:3100/loki/api/v1/query_range?query=%7Bjob%3D%22node-syslog%22", 0) == 0);
  CHECK(files[2].path.find("#node03") != std::string::npos);
}

TEST_CASE("a later page that fails keeps the earlier pages' lines") {
  std::vector<InputFile> files;
  SourceCoverage cov = fail_second_page(HttpResponse{500, test::fixture("loki/error-500.txt")}, &files);
  CHECK(cov.status == SourceStatus::partial);
  CHECK(cov.reason.find("page 2 failed: HTTP 500") != std::string::npos);
  CHECK(cov.reason.find("kept 2 line(s) from 1 earlier page(s)") != std::string::npos);
  REQUIRE(files.size() == 1);
  CHECK(files[0].host_hint == "node03");
  CHECK(count(*files[0].text, "\n") == 2);
  CHECK(fail_second_page(std::string("HTTP GET failed: Timeout was reached")).reason.find("timed out after 30s") != std::string::npos);
}

TEST_CASE("faults on the first page are errors that name the fault") {
  auto reason = [](std::variant<HttpResponse, std::string> answer, SourceStatus want = SourceStatus::error) {
    SourceCoverage cov = fail_first_page(std::move(answer));
    CHECK(cov.status == want);
    CHECK((cov.bytes == 0) == (want == SourceStatus::error));  // an error page is not data
    return cov.reason;
  };
  CHECK(reason(HttpResponse{401, test::fixture("loki/error-401.txt")}) == "HTTP 401 Unauthorized (check token_env, token_file or username/password_env): no org id");
  CHECK(reason(HttpResponse{403, ""}).rfind("HTTP 403 Forbidden", 0) == 0);
  CHECK(reason(HttpResponse{429, test::fixture("loki/error-429.txt")}).rfind("HTTP 429 Too Many Requests", 0) == 0);
  CHECK(reason(HttpResponse{500, test::fixture("loki/error-500.txt")}) == "HTTP 500 Internal Server Error: rpc error: code = Internal desc = failed to load chunk");
  CHECK(reason(std::string("HTTP GET failed: Couldn't connect to server")).rfind("connection refused", 0) == 0);
  CHECK(reason(std::string("HTTP GET failed: Timeout was reached")).rfind("timed out after 30s", 0) == 0);
  CHECK(reason(std::string("HTTP GET failed: Transferred a partial file")).rfind("truncated response", 0) == 0);
  std::string whole = test::fixture("loki/kernel-page1.json");
  CHECK(reason(HttpResponse{200, whole.substr(0, 300)}).rfind("truncated JSON", 0) == 0);
  CHECK(reason(HttpResponse{200, test::fixture("loki/malformed.html")}).rfind("malformed JSON", 0) == 0);
  CHECK(reason(HttpResponse{400, test::fixture("loki/error-400.txt")}) ==
        "HTTP 400 Bad Request: parse error at line 1, col 15: syntax error: unexpected IDENTIFIER, expecting STRING");
  CHECK(reason(HttpResponse{400, test::fixture("loki/error-limit.txt")}).find("max_entries_limit_per_query") != std::string::npos);
  CHECK(reason(HttpResponse{200, test::fixture("loki/empty.json")}, SourceStatus::empty).find("no lines") != std::string::npos);
}

TEST_CASE("credentials never reach a reason, even when the server echoes them") {
  LokiSettings s = kernel_source();
  s.username = "grafana";
  s.password_env = "ATTRIBUTION_TEST_LOKI_PASSWORD";
  setenv("ATTRIBUTION_TEST_LOKI_PASSWORD", "pw-9f8e7d", 1);
  SourceCoverage cov = fail_first_page(HttpResponse{403, "user grafana with password pw-9f8e7d has no access to tenant"}, s);
  unsetenv("ATTRIBUTION_TEST_LOKI_PASSWORD");
  CHECK(cov.reason == "HTTP 403 Forbidden (the credential or org_id has no access): user grafana with password *** has no access to tenant");
  s.password_env = "ATTRIBUTION_TEST_LOKI_UNSET";
  SourceCoverage unset = fail_first_page(std::string("unused"), s);
  CHECK(unset.reason == "the password variable ATTRIBUTION_TEST_LOKI_UNSET is not set");
}

TEST_CASE("a page all at one instant cannot be paged past: the loop stops") {
  LokiSettings s = kernel_source();
  std::string same = R"({"status":"success","data":{"resultType":"streams","result":[{"stream":{"host":"node01"},"values":[)"
                     R"(["1741945303123456789","a"],["1741945303123456789","b"],["1741945303123456789","c"]]}]}})";
  ReplayHttpClient http;
  http.set_default(HttpResponse{200, same});  // every request: the same full page
  SourceCoverage cov;
  auto files = collect_loki(s, 0, job(), http, cov);
  CHECK(http.seen_urls.size() == 2);
  CHECK(cov.status == SourceStatus::partial);
  CHECK(cov.reason.find("more than 3 entries at 2025-03-14T09:41:43.123456Z") != std::string::npos);
  REQUIRE(files.size() == 1);
  CHECK(count(*files[0].text, "\n") == 3);
}

TEST_CASE("lines without a host label are dropped and counted / no window or nodes skips") {
  LokiSettings s = kernel_source();
  s.limit = 5000;
  ReplayHttpClient http;
  http.set_default(HttpResponse{200, R"({"status":"success","data":{"resultType":"streams","result":[{"stream":{"job":"x"},"values":[["1741945303123456789","a"]]}]}})"});
  SourceCoverage cov;
  CHECK(collect_loki(s, 0, job(), http, cov).empty());
  CHECK(cov.status == SourceStatus::empty);
  CHECK(cov.reason == "1 line(s) dropped: their streams have none of the host labels (host, hostname, node, nodename, instance)");
  Workload w = job();
  w.window_known = false;
  SourceCoverage none;
  CHECK(collect_loki(s, 0, w, http, none).empty());
  CHECK(none.status == SourceStatus::skipped);
  w = job();
  w.nodes.clear();
  SourceCoverage nodes;
  collect_loki(s, 0, w, http, nodes);
  CHECK(nodes.status == SourceStatus::skipped);
}

TEST_CASE("a kernel Xid line and an NCCL WARN line from Loki become findings with Loki's time and host") {
  auto rules = load_rules({});
  REQUIRE(rules);
  auto matcher = Matcher::build(*rules);
  REQUIRE(matcher);
  Workload w = job();
  LokiSettings kernel = kernel_source();
  LokiSettings apps = kernel_source();
  apps.stream = Stream::applog;
  apps.query = R"({job="slurm-jobs", slurm_job_id="{job}"})";
  apps.limit = 5000;
  ReplayHttpClient http;
  http.add(url(kernel, kWindowStartNs), HttpResponse{200, test::fixture("loki/kernel-page1.json")});
  http.add(url(kernel, kT3), HttpResponse{200, test::fixture("loki/kernel-page2.json")});
  http.add(url(kernel, kT4), HttpResponse{200, test::fixture("loki/kernel-page3.json")});
  http.add(url(apps, kWindowStartNs), HttpResponse{200, test::fixture("loki/apps.json")});

  Collection c;
  for (auto [name, s] : {std::pair{"kernel", &kernel}, std::pair{"apps", &apps}}) {
    c.sources.push_back(SourceRuntime{name, "loki", s->stream, TimeZone::utc(), std::nullopt});
    SourceCoverage cov;
    cov.name = name;
    cov.kind = "loki";
    auto files = collect_loki(*s, c.sources.size() - 1, w, http, cov);
    c.coverage.push_back(cov);
    c.files.insert(c.files.end(), files.begin(), files.end());
  }
  ScanResult r = scan(c, **matcher, w, 1);
  auto find = [&](const char* id) -> const Finding* {
    for (const auto& f : r.findings)
      if (rules->rules[f.rule].id == id) return &f;
    return nullptr;
  };
  const Finding* xid = find("xid.79");
  REQUIRE(xid);
  CHECK(xid->host == "node03");
  CHECK(xid->pci == "0000:b9:00.0");
  CHECK(xid->count == 1);
  CHECK_FALSE(xid->time_inferred);
  CHECK(xid->first_seen == Micros(1741945303123456));
  CHECK(xid->evidence[0].source == "kernel");
  CHECK(xid->evidence[0].location.rfind("http://loki:3100/loki/api/v1/query_range?query=", 0) == 0);
  CHECK(xid->evidence[0].location.find("#node03:2") != std::string::npos);  // node03's second line

  const Finding* nccl = find("nccl.ib-completion-error");
  REQUIRE(nccl);
  CHECK(nccl->host == "node01");
  CHECK(nccl->first_seen == Micros(1741945305654321));
  CHECK_FALSE(nccl->time_inferred);
  CHECK(nccl->evidence[0].source == "apps");

  const Finding* watchdog = find("pytorch.watchdog-terminated");
  REQUIRE(watchdog);
  CHECK(watchdog->host == "node02");  // from structured metadata (nodename)
  CHECK(watchdog->rank == 9);
  CHECK(watchdog->first_seen == Micros(1741945306000000));
  CHECK(c.coverage[1].hosts_covered == std::vector<std::string>{"node01", "node02"});
}

TEST_CASE("config: loki keys, shipper host labels by default, limit at most 5000") {
  auto c = parse_config(R"([[source]]
name = "kernel"
kind = "loki"
url = "http://loki:3100"
query = '{job="node-syslog", host=~"{hosts_regex}"}'
stream = "syslog"
org_id = "team-a"
limit = 1000
timeout = "5s"
token_env = "LOKI_TOKEN"
ca_file = "/etc/ca.pem"
host_map = { "fluent-bit-x7k2p" = "node03" }
)",
                        "c.toml");
  REQUIRE(c);
  const auto& s = static_cast<const LokiSettings&>(*c->sources[0].settings);
  CHECK(s.query == R"({job="node-syslog", host=~"{hosts_regex}"})");
  CHECK(s.stream == Stream::syslog);
  CHECK(s.org_id == "team-a");
  CHECK(s.limit == 1000);
  CHECK(s.timeout == 5 * kMicrosPerSecond);
  CHECK(s.host_labels == std::vector<std::string>{"host", "hostname", "node", "nodename", "instance"});
  CHECK(s.host_map.at("fluent-bit-x7k2p") == "node03");
  auto bad = [](const char* extra, const char* key) {
    auto r = parse_config(std::string("[[source]]\nname = \"l\"\nkind = \"loki\"\nurl = \"http://l\"\n") + extra, "c.toml");
    REQUIRE_FALSE(r);
    CHECK(r.error().key.find(key) != std::string::npos);
  };
  bad("limit = 10000\n", "limit");
  bad("step = \"15s\"\n", "step");  // a prometheus key
  bad("stream = \"metrics\"\n", "stream");
  CHECK_FALSE(parse_config("[[source]]\nname = \"l\"\nkind = \"loki\"\n", "c.toml"));  // no url
}

TEST_CASE("a big job pages per group of hosts: short queries, the same lines as one query") {
  // 130 nodes: 3 groups of at most 64; node01-04 (the fixtures' hosts) sit in the second.
  Workload w = job();
  w.nodes.clear();
  for (int i = 0; i < 130; ++i) w.nodes.push_back(i >= 64 && i < 68 ? fmt::format("node{:02d}", i - 63) : fmt::format("gpu{:03d}", i));
  LokiSettings s = kernel_source();
  s.parallel = 3;
  auto group_url = [&](size_t g, int64_t from) {
    std::vector<std::string> group(w.nodes.begin() + static_cast<std::ptrdiff_t>(g * 64),
                                   w.nodes.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(130, g * 64 + 64)));
    return "http://loki:3100/loki/api/v1/query_range?query=" + url_encode(loki_query(s, w, group)) + "&start=" +
           std::to_string(from) + "&end=1741946172000001000&limit=3&direction=forward";
  };
  ReplayHttpClient http;
  http.set_default(HttpResponse{200, test::fixture("loki/empty.json")});
  http.add(group_url(1, kWindowStartNs), HttpResponse{200, test::fixture("loki/kernel-page1.json")});
  http.add(group_url(1, kT3), HttpResponse{200, test::fixture("loki/kernel-page2.json")});
  http.add(group_url(1, kT4), HttpResponse{200, test::fixture("loki/kernel-page3.json")});
  SourceCoverage cov;
  auto files = collect_loki(s, 0, w, http, cov);
  // Round 1: the three groups' first pages; then group 2 alone pages on.
  REQUIRE(http.seen_urls.size() == 5);
  CHECK(http.seen_urls[0] == group_url(0, kWindowStartNs));
  CHECK(http.seen_urls[1] == group_url(1, kWindowStartNs));
  CHECK(http.seen_urls[2] == group_url(2, kWindowStartNs));
  CHECK(http.seen_urls[3] == group_url(1, kT3));
  CHECK(http.seen_urls[4] == group_url(1, kT4));
  CHECK(http.seen_urls[0].find("gpu063") != std::string::npos);
  CHECK(http.seen_urls[0].find("gpu068") == std::string::npos);
  CHECK(cov.status == SourceStatus::ok);
  REQUIRE(files.size() == 3);
  CHECK(count(*files[2].text, "): 79,") == 1);  // the boundary repeat dropped within the group
  CHECK(count(*files[2].text, "\n") == 3);
}

TEST_CASE("config: parallel is a whole number from 1 to 64") {
  auto parse = [](const std::string& extra) {
    return parse_config("[[source]]\nname = \"l\"\nkind = \"loki\"\nurl = \"http://loki:3100\"\n" + extra, "c.toml");
  };
  REQUIRE(parse(""));
  CHECK(static_cast<const LokiSettings&>(*parse("")->sources[0].settings).parallel == 4);
  CHECK(static_cast<const LokiSettings&>(*parse("parallel = 16\n")->sources[0].settings).parallel == 16);
  auto bad = parse("parallel = 0\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("parallel = 0 is not between 1 and 64") != std::string::npos);
}

#include <catch2/catch.hpp>

#include "sources/prometheus/prometheus.hpp"
#include "tests/test_util.hpp"

#include <algorithm>
#include <fmt/format.h>

using namespace attribution;

namespace {
const std::vector<std::string> kLabels = {"Hostname", "hostname", "instance"};
MetricSpec spec(const char* id, const char* selector, const char* condition, double threshold = 0) {
  MetricSpec m;
  m.id = id;
  m.selector = selector;
  m.condition = condition;
  m.threshold = threshold;
  return m;
}
MetricSeries series(std::vector<double> values, std::map<std::string, std::string> labels = {{"Hostname", "node03"}, {"gpu", "5"}}) {
  MetricSeries s;
  s.labels = std::move(labels);
  for (size_t i = 0; i < values.size(); ++i) s.samples.push_back(MetricSample{static_cast<Micros>(i) * 15 * kMicrosPerSecond, values[i]});
  return s;
}
}  // namespace

TEST_CASE("query_range from a real Prometheus: NVLink CRC counter climbing on gpu-node03 GPU 5") {
  auto s = parse_query_range(test::fixture("prometheus/prom-query_range-nvlink-crc-node03-gpu5.json"));
  REQUIRE(s);
  REQUIRE(s->size() == 1);
  CHECK(s->front().labels.at("Hostname") == "gpu-node03");
  CHECK(s->front().samples.front().time == 1736934600LL * kMicrosPerSecond);
  auto line = evaluate_metric(spec("dcgm.nvlink-crc-flit", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "increase"),
                              s->front(), kLabels);
  REQUIRE(line);
  // The first sample where the counter has grown: 1736935260 = 2025-01-15T10:01:00Z.
  CHECK(line->rfind("2025-01-15T10:01:00.000000Z metric DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL increase 3087 "
                    "host gpu-node03 gpu 5 pci - from 0 to 3087 series {",
                    0) == 0);
}

TEST_CASE("the last-Xid gauge: a new non-zero value") {
  auto s = parse_query_range(test::fixture("prometheus/prom-query_range-xid-errors-nonzero.json"));
  REQUIRE(s);
  auto xid = spec("dcgm.xid", "DCGM_FI_DEV_XID_ERRORS", "changed");
  // The recorded query selected only non-zero values: a window that starts at 79 has no change.
  CHECK_FALSE(evaluate_metric(xid, s->front(), kLabels));
  auto line = evaluate_metric(xid, series({0, 0, 79, 79}), kLabels);
  REQUIRE(line);
  CHECK(line->find("changed 79 host node03 gpu 5") != std::string::npos);
  CHECK_FALSE(evaluate_metric(xid, series({13, 13, 13}), kLabels));  // sticky from before the window
}

TEST_CASE("conditions: counter resets, thresholds, sentinels, host from instance") {
  auto inc = spec("x", "M", "increase", 5);
  CHECK_FALSE(evaluate_metric(inc, series({10, 12, 14}), kLabels));         // +4: not above 5
  CHECK(evaluate_metric(inc, series({10, 12, 3, 6}), kLabels));             // reset: +2, +3, +3 = 8
  auto above = spec("y", "M", "above", 0);
  CHECK_FALSE(evaluate_metric(above, series({0, 0}), kLabels));
  auto line = evaluate_metric(above, series({0, 1}, {{"instance", "node04.cluster:9400"}, {"pci_bus_id", "00000000:5D:00.0"}}), kLabels);
  REQUIRE(line);
  CHECK(line->find("host node04 gpu - pci 00000000:5D:00.0") != std::string::npos);
  // DCGM "not supported" (0x7ffffffffffffff2 and up) never counts as a value.
  auto blank = parse_query_range(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"Hostname":"n1"},"values":[[1,"0"],[2,"9223372036854775794"],[3,"0"]]}]}})");
  REQUIRE(blank);
  CHECK(blank->front().samples.size() == 2);
  CHECK_FALSE(evaluate_metric(spec("z", "M", "increase"), blank->front(), kLabels));
}

TEST_CASE("a host map turns exporter pod names into nodes") {
  std::map<std::string, std::string> map = {{"dcgm-exporter-x7k2p", "node03"}};
  CHECK(series_host({{"Hostname", "dcgm-exporter-x7k2p"}}, kLabels, map) == "node03");
  CHECK(series_host({{"instance", "10.0.0.13:9400"}}, kLabels, {{"10.0.0.13", "node03"}}) == "node03");
  CHECK(series_host({{"hostname", "node04.cluster"}}, kLabels, map) == "node04");
  CHECK(series_host({{"job", "x"}}, kLabels, map).empty());
  auto line = evaluate_metric(spec("a", "M", "above"), series({0, 1}, {{"Hostname", "dcgm-exporter-x7k2p"}}), kLabels, map);
  REQUIRE(line);
  CHECK(line->find("host node03 ") != std::string::npos);
}

TEST_CASE("Prometheus error envelope and garbage are errors with the reason") {
  auto e = parse_query_range(test::fixture("prometheus/prom-query-bad-expr.json"));
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("bad_data") != std::string::npos);
  CHECK(e.error().message.find("missing unit character") != std::string::npos);
  CHECK_FALSE(parse_query_range("<html>502 Bad Gateway</html>"));
  CHECK_FALSE(parse_query_range(R"({"status":"success"})"));
}

TEST_CASE("queries ask only for the job's hosts, through every host label") {
  std::string q = scoped_query("DCGM_FI_DEV_XID_ERRORS", {"node01", "gpu.a"}, {"Hostname", "instance"});
  CHECK(q == R"(DCGM_FI_DEV_XID_ERRORS{Hostname=~"(node01|gpu\\.a)(\\..*)?"} or DCGM_FI_DEV_XID_ERRORS{instance=~"(node01|gpu\\.a)(\\..*)?(:[0-9]+)?"})");
}

TEST_CASE("collect: ranges split at 11,000 points, credentials from a file, HTTP errors in coverage") {
  test::TempDir d;
  PrometheusSettings src;
  src.host_labels = {"Hostname", "hostname", "instance"};
  src.url = "http://prom:9090/";
  src.step = kMicrosPerSecond;  // 1 s steps over 5 h: two requests per metric
  src.token_file = d.file("token", "s3cret\n");
  Workload w;
  w.nodes = {"node03"};
  w.start = 1736934600LL * kMicrosPerSecond;
  w.end = *w.start + 5 * 3600 * kMicrosPerSecond;
  w.window = Window{*w.start, *w.end};
  w.window_known = true;
  ReplayHttpClient http;  // answers nothing: every request fails to connect
  SourceCoverage cov;
  std::string text = collect_prometheus(src, {spec("a", "M", "increase")}, w, http, cov);
  CHECK(text.empty());
  CHECK(cov.status == SourceStatus::error);
  CHECK(cov.reason.find("Couldn't connect") != std::string::npos);
  // Both chunks were asked for at once (parallel fetch); the first failed, so the metric failed
  // once and the second answer was not read.
  REQUIRE(http.seen_headers.size() == 2);
  CHECK(cov.problems.size() == 1);
  const auto& h = http.seen_headers.front();
  CHECK(std::find(h.begin(), h.end(), "Authorization: Bearer s3cret") != h.end());
  CHECK(cov.reason.find("s3cret") == std::string::npos);

  ReplayHttpClient ok;
  ok.set_default(HttpResponse{200, R"({"status":"success","data":{"resultType":"matrix","result":[]}})"});
  SourceCoverage cov2;
  collect_prometheus(src, {spec("a", "M", "increase")}, w, ok, cov2);
  REQUIRE(ok.seen_urls.size() == 2);  // 18,001 points at 1 s: two ranges of at most 11,000
  CHECK(ok.seen_urls[0].find("start=1736934600.000&end=1736945599.000&step=1") != std::string::npos);
  CHECK(ok.seen_urls[1].find("start=1736945600.000&end=1736952600.000") != std::string::npos);
  CHECK(cov2.status == SourceStatus::empty);  // answered, but no series for the job's hosts
}

TEST_CASE("a big job's metrics are queried per group of hosts, in parallel, read in order") {
  Workload w;
  for (int i = 0; i < 130; ++i) w.nodes.push_back(i == 100 ? "gpu-node03" : fmt::format("gpu-node{:03d}", i + 100));
  w.start = 1736934600LL * kMicrosPerSecond;
  w.end = *w.start + 3600 * kMicrosPerSecond;
  w.window = Window{*w.start, *w.end};
  w.window_known = true;
  PrometheusSettings src;
  src.url = "http://prom:9090";
  src.host_labels = kLabels;
  std::vector<MetricSpec> specs = {spec("dcgm.nvlink-crc-flit", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "increase"),
                                   spec("dcgm.xid", "DCGM_FI_DEV_XID_ERRORS", "changed")};
  std::string text[2];
  for (int parallel : {1, 4}) {
    src.parallel = parallel;
    ReplayHttpClient http;  // every query answers the one series of gpu-node03
    http.set_default(HttpResponse{200, test::fixture("prometheus/prom-query_range-nvlink-crc-node03-gpu5.json")});
    SourceCoverage cov;
    text[parallel == 4] = collect_prometheus(src, specs, w, http, cov);
    REQUIRE(http.seen_urls.size() == 6);  // 2 metrics x 3 groups of hosts (64, 64, 2) x 1 time chunk
    CHECK(http.seen_urls[0].find("gpu-node163") != std::string::npos);
    CHECK(http.seen_urls[0].find("gpu-node164") == std::string::npos);
    CHECK(http.seen_urls[2].find("gpu-node229") != std::string::npos);
    CHECK(cov.status == SourceStatus::ok);
    CHECK(cov.hosts_covered == std::vector<std::string>{"gpu-node03"});
  }
  CHECK(text[0] == text[1]);
  // One line per metric: the one series, though all three groups answered it.
  CHECK(std::count(text[0].begin(), text[0].end(), '\n') == 2);
}

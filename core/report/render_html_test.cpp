#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/report/render.hpp"
#include "core/report/report.hpp"
#include "tests/sample_report.hpp"
#include "tests/test_rules.hpp"

using namespace attribution;

namespace {

Report html_sample() {
  return test::sample_report({"llama <b>70b</b>", "NVRM: Xid (PCI:0000:b9:00): 79, GPU has fallen off the bus",
                             "[Rank 0] Watchdog caught <script>alert('x')</script>", "node2.log: binary <file>", std::nullopt});
}

// A job of `nodes` nodes, the root cause on node042, and symptom rules by node range: t.a on
// 0-99, t.b on 100-149, both on 150-189, nothing on the rest.
Report big_report(int nodes) {
  Report r;
  r.tool_version = "0.0.0";
  r.workload.id = "9000";
  r.workload.window = Window{test::kSampleT0, test::kSampleT0 + 600 * kMicrosPerSecond};
  r.workload.window_known = true;
  auto host = [](int i) { return fmt::format("node{:03}", i); };
  ReportRootCause rc;
  rc.id = "R1";
  rc.rule = "t.xid79";
  rc.title = "GPU fell off the bus";
  rc.host = host(42);
  rc.first_seen = rc.last_seen = test::kSampleT0 + 60 * kMicrosPerSecond;
  rc.evidence = {"E1"};
  r.root_causes.push_back(rc);
  r.evidence.push_back(ReportEvidence{"E1", rc.first_seen, false, "kernel", rc.host, -1, "k.log:1", "Xid 79", false, {}});
  ReportSymptom a, b;
  a.rule = "t.a", b.rule = "t.b";
  a.first_seen = test::kSampleT0 + 200 * kMicrosPerSecond, b.first_seen = test::kSampleT0 + 300 * kMicrosPerSecond;
  a.explained_by = b.explained_by = "R1";
  for (int i = 0; i < nodes; ++i) {
    AffectedNode n{host(i), i == 42 ? "root_cause" : i < 190 ? "symptomatic" : "clean", {}, {}, 0};
    r.affected_nodes.push_back(n);
    if (i < 100 || (i >= 150 && i < 190)) a.hosts.push_back(host(i));
    if (i >= 100 && i < 190) b.hosts.push_back(host(i));
  }
  r.symptoms = {a, b};
  return r;
}

// The number of rows the timeline says it drew ("... N row(s), ...").
int rows_drawn(const std::string& svg) {
  size_t at = svg.find(" row(s)");
  REQUIRE(at != std::string::npos);
  size_t start = svg.rfind(' ', at - 1) + 1;
  return std::stoi(svg.substr(start, at - start));
}

// The start tag of the element whose tooltip begins with `title`.
std::string tag_with_title(const std::string& svg, const std::string& title) {
  size_t t = svg.find("<title>" + title);
  REQUIRE(t != std::string::npos);
  size_t open = svg.rfind('<', t - 1);
  return svg.substr(open, t - open);
}

}  // namespace

TEST_CASE("HTML report: html_escape covers the five markup characters") {
  CHECK(html_escape("a<b>&\"c\"'d'") == "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  CHECK(html_escape("caf\xc3\xa9 plain") == "caf\xc3\xa9 plain");
}

TEST_CASE("HTML report: log text and names are escaped, never markup") {
  Report r = html_sample();
  r.affected_nodes[0].host = "node1\"><svg onload=x>";
  std::string html = render_html(r);
  CHECK(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("llama &lt;b&gt;70b&lt;/b&gt;") != std::string::npos);
  CHECK(html.find("<b>70b</b>") == std::string::npos);
  CHECK(html.find("node1&quot;&gt;&lt;svg onload=x&gt;") != std::string::npos);  // the timeline's row label
  CHECK(html.find("<svg onload") == std::string::npos);
  CHECK(html.find("node2.log: binary &lt;file&gt;") != std::string::npos);  // a source's problem
}

TEST_CASE("HTML report: the outcome and root cause come first, then action, timeline, symptoms, evidence, sources") {
  Report r = html_sample();
  REQUIRE(r.root_causes.size() == 1);
  std::string html = render_html(r);
  std::vector<std::string> order = {"id=\"outcome\"", "id=\"R1\"", r.root_causes[0].title, "id=\"action\"",
                                    "id=\"timeline\"", "id=\"symptoms\"", "id=\"evidence\"", "id=\"sources\"", "<footer>"};
  size_t last = 0;
  for (const auto& s : order) {  // each after the one before
    INFO(s);
    last = html.find(s, last);
    REQUIRE(last != std::string::npos);
  }
  CHECK(html.find(r.root_causes[0].title) < html.find("id=\"symptoms\""));
  CHECK(html.find("gpu_fallen_off_bus") < html.find("id=\"symptoms\""));
  CHECK(html.find("<code>node3</code>") < html.find("id=\"timeline\""));  // the exclude list
  CHECK(html.find("explains t.watchdog") > html.find("id=\"symptoms\""));  // why, with the symptom
  // A partial source and its problems are marked.
  CHECK(html.find("class=\"bad\">partial") != std::string::npos);
  CHECK(html.find(r.ruleset_digest) > html.find("<footer>"));
}

TEST_CASE("HTML timeline: a line whose time was inferred is drawn hollow, others filled") {
  Report r = html_sample();
  REQUIRE(r.evidence.size() == 3);
  // Nothing inferred: no hollow mark anywhere (the legend shows one only when needed).
  CHECK(render_timeline_svg(r).find("fill=\"none\"") == std::string::npos);
  r.evidence[2].time_inferred = true;
  std::string svg = render_timeline_svg(r);
  std::string hollow = tag_with_title(svg, r.evidence[2].id + " ");
  CHECK(hollow.find("fill=\"none\"") != std::string::npos);
  CHECK(hollow.find("stroke=\"") != std::string::npos);
  std::string filled = tag_with_title(svg, r.evidence[1].id + " ");
  CHECK(filled.find("fill=\"none\"") == std::string::npos);
  // The root cause: a dark red diamond with its rule, host and time in the tooltip.
  std::string root = tag_with_title(svg, "R1 root cause: t.xid79");
  CHECK(root.find("#8b1a1a") != std::string::npos);
  CHECK(svg.find("first seen 2025-03-14T09:01:00.000Z</title>") != std::string::npos);
}

TEST_CASE("HTML timeline: one row per node up to 64 nodes, then rows per set of symptoms") {
  CHECK(rows_drawn(render_timeline_svg(html_sample())) == 3);
  CHECK(rows_drawn(render_timeline_svg(big_report(64))) == 64);
  std::string svg = render_timeline_svg(big_report(200));
  // The root-cause node, then t.a (99 nodes), t.b (50), both (40), clean (10).
  CHECK(rows_drawn(svg) == 5);
  CHECK(svg.find(">node042<title>") != std::string::npos);
  CHECK(svg.find(">99 nodes: t.a<title>") != std::string::npos);
  CHECK(svg.find(">50 nodes: t.b<title>") != std::string::npos);
  CHECK(svg.find(">40 nodes: t.a, t.b<title>") != std::string::npos);
  CHECK(svg.find(">10 nodes: clean<title>") != std::string::npos);
  // Every node with its own symptom set: still a bounded picture, the root cause still its own row.
  Report many = big_report(300);
  for (int i = 0; i < 300; ++i) {
    ReportSymptom s;
    s.rule = fmt::format("t.rule{:03}", i);
    s.first_seen = test::kSampleT0 + (100 + i) * kMicrosPerSecond;
    s.hosts = {fmt::format("node{:03}", i)};
    many.symptoms.push_back(s);
  }
  std::string crowded = render_timeline_svg(many);
  CHECK(rows_drawn(crowded) <= 64);
  CHECK(crowded.find(">node042<title>") != std::string::npos);
  CHECK(crowded.find(" other nodes<title>") != std::string::npos);
  CHECK(crowded.find("more rules (hover a mark)") != std::string::npos);  // the key stays short
}

TEST_CASE("HTML report: self-contained (nothing fetched, no script) and deterministic") {
  for (const Report& r : {html_sample(), big_report(200)}) {
    std::string html = render_html(r);
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    for (const char* bad : {"http://", "https://", "<script", "src=", "url(", "@import", "<link"}) {
      INFO(bad);
      CHECK(html.find(bad) == std::string::npos);
    }
    CHECK(html.find("<svg") != std::string::npos);
    CHECK(render_html(r) == html);
    Report copy = r;
    CHECK(render_html(copy) == html);
  }
}

TEST_CASE("HTML timeline: without any time it says so instead of drawing") {
  Report r = big_report(3);
  r.workload.window_known = false;
  r.root_causes[0].first_seen = r.root_causes[0].last_seen = kTimeUnknown;
  r.evidence[0].time = kTimeUnknown;
  for (auto& s : r.symptoms) s.first_seen = kTimeUnknown;
  std::string svg = render_timeline_svg(r);
  CHECK(svg.find("No time is known") != std::string::npos);
  CHECK(render_html(r).find("No time is known") != std::string::npos);
}

#include <catch2/catch.hpp>

#include "core/analysis/precedence.hpp"
#include "core/analysis/slowdown.hpp"
#include "tests/finding_builder.hpp"

using namespace attribution;
using namespace attribution::test;

namespace {

// One step-time line per minute, as the training log prints them, each with its value.
void steps(Builder& b, const std::vector<float>& ms) {
  for (size_t i = 0; i < ms.size(); ++i) {
    Finding& f = b.add("t.step", "node4", kT0 + static_cast<Micros>(i) * kMin, 31);
    f.evidence.front().text = "step " + std::to_string(i);
    add_to_series(f, ms[i]);
  }
}

std::vector<float> run(size_t normal, float at, size_t slow, float then) {
  std::vector<float> v(normal, at);
  v.insert(v.end(), slow, then);
  return v;
}

}  // namespace

TEST_CASE("slowdown: step times that grew and stayed grown are a throughput degradation, naming no node") {
  Builder b;
  steps(b, run(100, 812, 40, 1950));
  auto t = b.timeline();
  REQUIRE(t.findings.size() == 1);  // one burst: its series holds the start and the latest values
  auto l = throughput_drop(t);
  REQUIRE(l);
  CHECK(l->kind == "throughput-drop");
  CHECK(l->category == "throughput_degradation");
  CHECK(l->host.empty());
  CHECK(l->title == "Steps got 2.4x slower: 812 ms each at the start, 1950 ms or more in the last 8 reports");
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.localisation);
  CHECK(d.localisation->kind == "throughput-drop");
}

TEST_CASE("slowdown: one slow step, a slow warm-up, or too few reports are no degradation") {
  Builder spike;
  std::vector<float> v = run(100, 812, 0, 0);
  v[90] = 9000;  // one checkpoint step
  steps(spike, v);
  auto t1 = spike.timeline();
  CHECK_FALSE(throughput_drop(t1));
  Builder warmup;
  std::vector<float> w = run(5, 19932, 95, 812);
  steps(warmup, w);
  auto t2 = warmup.timeline();
  CHECK_FALSE(throughput_drop(t2));
  Builder few;
  steps(few, run(6, 800, 6, 2000));
  auto t3 = few.timeline();
  CHECK_FALSE(throughput_drop(t3));
}

TEST_CASE("stragglers: a rank whose latest score is under the threshold, or Megatron's slowest rank") {
  Builder b;
  Finding& ok = b.add("t.nccl-peer", "node1", kT0, 3);  // any finding: scores ride in the evidence captures
  ok.evidence.front().captures = {{"score", "0.95"}};
  Finding& slow = b.add("t.init", "node3", kT0, 12);
  slow.evidence.front().captures = {{"score", "0.41"}};
  auto t = b.timeline();
  auto l = straggler(t);
  REQUIRE(l);
  CHECK(l->rank == 12);
  CHECK(l->host == "node3");
  CHECK(l->title == "Rank 12 is a straggler: its GPU performance score is 0.41, under 0.7 (NVIDIA Resiliency Extension)");

  Builder m;
  m.add("t.init", "node2", kT0, 9);  // rank 9 runs on node2
  Finding& r = m.add("t.nccl-peer", "node1", kT0 + kMin, 0);
  r.evidence.front().captures = {{"min_ms", "3453.08"}, {"max_ms", "5210.00"}, {"slow_rank", "9"}};
  auto tm = m.timeline();
  auto s = straggler(tm);
  REQUIRE(s);
  CHECK(s->rank == 9);
  CHECK(s->host == "node2");

  Builder close;
  Finding& c = close.add("t.nccl-peer", "node1", kT0, 0);
  c.evidence.front().captures = {{"min_ms", "1446.49"}, {"max_ms", "1570.32"}, {"slow_rank", "30"}};
  auto tc = close.timeline();
  CHECK_FALSE(straggler(tc));  // 8% apart: the usual spread, no straggler
}

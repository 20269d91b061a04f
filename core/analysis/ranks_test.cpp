#include <catch2/catch.hpp>

#include "core/analysis/precedence.hpp"
#include "core/analysis/ranks.hpp"
#include "tests/finding_builder.hpp"

using namespace attribution;
using namespace attribution::test;

namespace {

const char* node_of(int rank) {
  static const char* nodes[] = {"node1", "node2", "node3", "node4"};
  return nodes[rank / 4];
}

// Rank `rank` timed out in collective `seq` running `op` on `numel` elements.
Finding& timeout(Builder& b, int rank, int seq, const char* op = "ALLREDUCE", const char* numel = "262144") {
  Finding& f = b.add("t.watchdog", node_of(rank), kT0 + 10 * kMin, rank);
  f.fields = {{"seq", std::to_string(seq)}, {"op", op}, {"numel_in", numel}, {"numel_out", numel}};
  return f;
}

// Rank `rank`'s counters, as a dump signal or a Flight Recorder status prints them.
Finding& counters(Builder& b, int rank, int enqueued, int completed) {
  Finding& f = b.add("t.progress", node_of(rank), kT0 + 10 * kMin, rank);
  f.fields = {{"last_enqueued", std::to_string(enqueued)}, {"last_completed", std::to_string(completed)}};
  return f;
}


}  // namespace

TEST_CASE("progress: the rank whose enqueued count is behind the collective the others wait in is named") {
  Builder b;
  for (int r = 0; r < 8; ++r)
    if (r == 6) counters(b, r, 40, 40);
    else timeout(b, r, 41);
  auto t = b.timeline();
  auto l = progress_behind(rank_progress(t, b.rules), false);
  REQUIRE(l);
  CHECK(l->kind == "never-enqueued");
  CHECK(l->rank == 6);
  CHECK(l->host == "node2");
  CHECK(l->blame == Blame::application);
  CHECK(l->title == "Rank 6 never enqueued collective 41, which the other 7 rank(s) were waiting in");
  CHECK(l->action.find("Do not drain") != std::string::npos);
}

TEST_CASE("progress: a rank ahead of the others is not a suspect") {
  Builder b;
  for (int r = 0; r < 8; ++r)
    if (r == 3) counters(b, r, 45, 40);
    else timeout(b, r, 41);
  auto t = b.timeline();
  CHECK_FALSE(progress_behind(rank_progress(t, b.rules), false));
}

TEST_CASE("progress: when most ranks are behind, the few that waited are not the odd ones out") {
  Builder b;
  for (int r = 0; r < 6; ++r) counters(b, r, 40, 40);
  timeout(b, 6, 41);
  auto t = b.timeline();
  CHECK_FALSE(progress_behind(rank_progress(t, b.rules), false));
}

TEST_CASE("progress: a rank that issued the collective and never finished it while the others did") {
  Builder b;
  for (int r = 0; r < 6; ++r) counters(b, r, 42, r == 2 ? 40 : 41);
  auto t = b.timeline();
  auto l = progress_behind(rank_progress(t, b.rules), false);
  REQUIRE(l);
  CHECK(l->kind == "stuck-in-collective");
  CHECK(l->rank == 2);
  CHECK(l->blame == Blame::unknown);
  CHECK(l->title == "Rank 2 issued collective 41 but never completed it, while the other 5 rank(s) completed 41");
}

TEST_CASE("progress: every rank inside the same collective localises nothing") {
  Builder b;
  for (int r = 0; r < 8; ++r) {
    timeout(b, r, 41);
    counters(b, r, 41, 40);
  }
  auto t = b.timeline();
  CHECK_FALSE(progress_behind(rank_progress(t, b.rules), false));
  CHECK_FALSE(collective_mismatch(rank_progress(t, b.rules)));
}

TEST_CASE("progress: process groups are compared apart") {
  Builder b;
  // std::string(...), not a bare literal: GCC 12 warns falsely on that assignment here (-Wstringop-overflow).
  for (int r = 0; r < 4; ++r) timeout(b, r, 41).fields["pg"] = std::string("0");
  for (int r = 0; r < 4; ++r) counters(b, r, 7, 7).fields["pg"] = std::string("3");  // another group, far behind: not comparable
  auto t = b.timeline();
  CHECK_FALSE(progress_behind(rank_progress(t, b.rules), false));
}

TEST_CASE("mismatch: the rank that ran another collective at the same sequence number is named") {
  Builder b;
  for (int r = 0; r < 4; ++r) r == 2 ? timeout(b, r, 41, "ALLGATHER", "4096") : timeout(b, r, 41);
  auto t = b.timeline();
  auto l = collective_mismatch(rank_progress(t, b.rules));
  REQUIRE(l);
  CHECK(l->kind == "collective-mismatch");
  CHECK(l->rank == 2);
  CHECK(l->host == "node1");
  CHECK(l->blame == Blame::application);
  CHECK(l->confidence == Confidence::medium);
  CHECK(l->title.find("Rank 2 ran ALLGATHER (NumelIn 4096, NumelOut 4096) as collective 41 while the other 3 rank(s) "
                      "ran ALLREDUCE") != std::string::npos);
  // Through the resolver: with no cause, the mismatch is the root of the diagnosis.
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.localisation);
  CHECK(d.localisation->kind == "collective-mismatch");
}

TEST_CASE("mismatch: two ranks that disagree name no odd one") {
  Builder b;
  timeout(b, 0, 5, "ALLREDUCE");
  timeout(b, 4, 5, "BROADCAST");
  auto t = b.timeline();
  auto l = collective_mismatch(rank_progress(t, b.rules));
  REQUIRE(l);
  CHECK(l->host.empty());
  CHECK(l->title.rfind("Ranks disagree on collective 5", 0) == 0);
}

TEST_CASE("traces: the process whose NCCL calls stop before the others' is named / a mismatch at one call too") {
  Builder b;
  auto trace = [&](int rank, const char* op_count, const char* op) -> Finding& {
    Finding& f = b.add("t.trace", node_of(rank), kT0 + 10 * kMin, rank);
    f.evidence.front().text = std::to_string(rank);
    f.evidence.front().captures = {{"op", op}, {"op_count", op_count}, {"numel_in", "18816"}, {"nranks", "8"}};
    return f;
  };
  for (int r = 0; r < 8; ++r) trace(r, r == 6 ? "34e" : "34f", "AllReduce");
  auto t = b.timeline();
  auto l = progress_behind(rank_progress(t, b.rules), false);
  REQUIRE(l);
  CHECK(l->kind == "never-enqueued");
  CHECK(l->rank == 6);
  CHECK(l->title == "Rank 6's last NCCL call is opCount 34e (NCCL communicators of 8 ranks), while the other 7 "
                    "process(es) went on to opCount 34f");
  Builder m;
  b = m;
  for (int r = 0; r < 4; ++r) trace(r, "28d", r == 2 ? "AllGather" : "AllReduce");
  auto t2 = b.timeline();
  auto x = collective_mismatch(rank_progress(t2, b.rules));
  REQUIRE(x);
  CHECK(x->rank == 2);
  CHECK(x->title.rfind("Rank 2 ran AllGather (count 18816) as opCount 28d", 0) == 0);
}

TEST_CASE("progress: with no counters, a rank that timed out in an earlier collective is a minority, the "
          "application's only when every error is a timeout") {
  Builder b;
  for (int r = 0; r < 16; ++r) {
    Finding& f = b.add("t.watchdog", node_of(r % 8), kT0, r);
    f.fields["seq"] = r == 11 ? "41" : "42";
  }
  auto t = b.timeline();
  auto progress = rank_progress(t, b.rules);
  auto plain = progress_behind(progress, false);
  REQUIRE(plain);
  CHECK(plain->kind == "hang-minority");
  CHECK(plain->rank == 11);
  CHECK(plain->family == "unknown");
  CHECK(plain->blame == Blame::unknown);
  auto timeouts_only = progress_behind(progress, true);
  REQUIRE(timeouts_only);
  CHECK(timeouts_only->family == "application");
  CHECK(timeouts_only->blame == Blame::application);
  CHECK(timeouts_only->detail.find("every error is a timeout") != std::string::npos);
}

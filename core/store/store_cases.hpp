#pragma once
// Store cases shared by the SQLite tests (store_test.cpp) and the PostgreSQL ones
// (postgres_store_test.cpp): both backends must answer the same queries the same way.
#include <atomic>
#include <catch2/catch.hpp>
#include <set>
#include <mutex>
#include <thread>

#include "core/store/store.hpp"
#include "core/store/store_render.hpp"

namespace attribution::test {

constexpr Micros kHour = 3600LL * 1000000;
constexpr Micros kT0 = 1767225600LL * 1000000;  // 2026-01-01T00:00:00Z

inline Report report(const std::string& id, const std::string& family, const std::string& root_host) {
  Report r;
  r.workload.id = id;
  r.workload.scheduler = "slurm";
  r.outcome.family = family;
  r.outcome.category = family == "application" ? "software" : "hardware";
  r.outcome.blame = family == "application" ? Blame::application : Blame::infrastructure;
  r.outcome.summary = family + " on " + root_host;
  if (!root_host.empty()) {
    ReportRootCause rc;
    rc.host = root_host;
    r.root_causes.push_back(rc);
    r.affected_nodes.push_back(AffectedNode{root_host, "root_cause", {}, {}, 1});
  }
  r.affected_nodes.push_back(AffectedNode{"node99", "symptomatic", {}, {}, 3});
  return r;
}

inline RenderedReport rendered(const std::string& id) { return {"{\"id\": \"" + id + "\"}\n", "<p>" + id + "</p>", "# " + id}; }


// The cases both backends must pass, each on an empty store.
inline void check_queries(Store& s) {
  REQUIRE(s.add(report("1", "nvlink", "node01"), rendered("1"), kT0));
  REQUIRE(s.add(report("2", "application", ""), rendered("2"), kT0 + kHour));
  auto three = s.add(report("3", "nvlink", "node02"), rendered("3"), kT0 + 2 * kHour);
  REQUIRE(three);

  auto all = s.reports({});
  REQUIRE(all);
  REQUIRE(all->size() == 3);
  CHECK(all->front().workload_id == "3");  // newest first
  CHECK(all->front().root_hosts == std::vector<std::string>{"node02"});
  CHECK(all->back().diagnosed_at == kT0);

  auto nvlink = s.reports(ReportQuery{"nvlink", "", std::nullopt, 50});
  REQUIRE(nvlink);
  CHECK(nvlink->size() == 2);
  auto on_node01 = s.reports(ReportQuery{"", "node01", std::nullopt, 50});
  REQUIRE(on_node01);
  REQUIRE(on_node01->size() == 1);
  CHECK(on_node01->front().workload_id == "1");
  auto symptomatic = s.reports(ReportQuery{"", "node99", std::nullopt, 50});  // any named host
  REQUIRE(symptomatic);
  CHECK(symptomatic->size() == 3);
  auto recent = s.reports(ReportQuery{"", "", kT0 + kHour, 50});
  REQUIRE(recent);
  CHECK(recent->size() == 2);
  auto limited = s.reports(ReportQuery{"", "", std::nullopt, 1});
  REQUIRE(limited);
  CHECK(limited->size() == 1);

  auto json = s.document(*three, DocumentFormat::json);
  REQUIRE(json);
  REQUIRE(json->has_value());
  CHECK(**json == rendered("3").json);
  auto html = s.document(*three, DocumentFormat::html);
  REQUIRE(html);
  CHECK(**html == "<p>3</p>");
  auto missing = s.document(12345, DocumentFormat::json);
  REQUIRE(missing);
  CHECK(!missing->has_value());
}

inline void check_offenders(Store& s) {
  REQUIRE(s.add(report("1", "nvlink", "node01"), rendered("1"), kT0));
  REQUIRE(s.add(report("2", "xid", "node01"), rendered("2"), kT0 + kHour));
  REQUIRE(s.add(report("3", "nvlink", "node01"), rendered("3"), kT0 + 2 * kHour));
  REQUIRE(s.add(report("4", "nvlink", "node02"), rendered("4"), kT0 + 3 * kHour));
  auto nodes = s.nodes(std::nullopt, 2);
  REQUIRE(nodes);
  REQUIRE(nodes->size() == 1);  // node02 once, node99 only symptomatic
  const NodeRecord& n = nodes->front();
  CHECK(n.host == "node01");
  CHECK(n.root_cause_count == 3);
  CHECK(n.families == std::map<std::string, int64_t>{{"nvlink", 2}, {"xid", 1}});
  CHECK(n.last_seen == kT0 + 2 * kHour);
  CHECK(n.report_ids == std::vector<int64_t>{3, 2, 1});
  auto recent = s.nodes(kT0 + kHour, 1);
  REQUIRE(recent);
  CHECK(recent->size() == 2);
  CHECK(recent->front().root_cause_count == 2);
  std::string json = render_nodes_json(*nodes);
  CHECK(json.find("\"root_cause_count\": 3") != std::string::npos);
  CHECK(json.find("\"last_seen\": \"2026-01-01T02:00:00.000000Z\"") != std::string::npos);
}

// 8 writers, each with its own connection as separate diagnoses have, 25 reports each.
inline void check_concurrent_writers(const std::string& path) {
  constexpr int kWriters = 8, kEach = 25;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  std::mutex mu;
  std::string first_error;  // what the first failure said, for the report when there is one
  auto failed = [&](const std::string& what) {
    std::lock_guard lock(mu);
    if (failures++ == 0) first_error = what;
  };
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      auto store = open_store(path, true);  // each its own connection, as separate diagnoses are
      if (!store) return failed("open: " + store.error().message);
      for (int i = 0; i < kEach; ++i) {
        std::string id = std::to_string(w) + "-" + std::to_string(i);
        if (auto added = (*store)->add(report(id, "nvlink", "node01"), rendered(id), kT0 + i); !added)
          failed("add: " + added.error().message);
      }
    });
  for (auto& t : writers) t.join();
  INFO(first_error);
  CHECK(failures == 0);
  auto store = open_store(path, false);
  REQUIRE(store);
  auto all = (*store)->reports(ReportQuery{"", "", std::nullopt, 10000});
  REQUIRE(all);
  std::set<std::string> ids;
  for (const auto& r : *all) ids.insert(r.workload_id);
  CHECK(all->size() == kWriters * kEach);
  CHECK(ids.size() == kWriters * kEach);
  auto stats = (*store)->stats();
  REQUIRE(stats);
  CHECK(stats->reports == kWriters * kEach);
  CHECK(stats->bytes > 0);
}

}  // namespace attribution::test

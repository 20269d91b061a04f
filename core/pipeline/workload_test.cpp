#include <catch2/catch.hpp>

#include "core/pipeline/workload.hpp"
#include "sources/registry.hpp"
#include "sources/transport/command.hpp"
#include "sources/transport/http.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {
ReplayRunner no_commands;  // a host without sacct or scontrol
ReplayHttpClient no_http;
Transports no_slurm{no_commands, no_http};
}  // namespace

TEST_CASE("static workload: nodes expanded and the window widened by before/after") {
  test::TempDir d;
  d.file("job.toml", "id = 4242\nnodes = \"node[01-04]\"\nstart = \"2025-03-14T09:00:00Z\"\nend = \"2025-03-14T10:00:00Z\"\n");
  auto cfg = parse_config("[workload]\nscheduler = \"static\"\nstatic = \"job.toml\"\nbefore = \"15m\"\nafter = \"5m\"\n",
                          d.path() + "/a.toml");
  REQUIRE(cfg);
  auto w = resolve_workload(*cfg, WorkloadRequest{}, no_slurm);
  REQUIRE(w);
  CHECK(w->id == "4242");
  CHECK(w->nodes.size() == 4);
  CHECK(w->window.start == test::utc("2025-03-14T08:45:00Z"));
  CHECK(w->window.end == test::utc("2025-03-14T10:05:00Z"));
  CHECK(w->window_known);
  WorkloadRequest same;
  same.job = "4242";
  CHECK(resolve_workload(*cfg, same, no_slurm));
  WorkloadRequest other;
  other.job = "7";
  auto bad = resolve_workload(*cfg, other, no_slurm);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("does not match") != std::string::npos);
  WorkloadRequest narrowed;  // command-line times refine the scheduler's
  narrowed.start = "2025-03-14T09:30:00Z";
  CHECK(resolve_workload(*cfg, narrowed, no_slurm)->window.start == test::utc("2025-03-14T09:15:00Z"));
}

TEST_CASE("ad-hoc logs workload: optional nodes and times") {
  Config cfg = default_config();
  WorkloadRequest r;
  r.logs = {"x"};
  auto open = resolve_workload(cfg, r, no_slurm);
  REQUIRE(open);
  CHECK(open->scheduler == "none");
  CHECK_FALSE(open->window_known);
  CHECK(open->nodes.empty());
  r.nodes = "gpu[1-2]";
  r.start = "2025-03-14T09:00:00Z";
  auto w = resolve_workload(cfg, r, no_slurm);
  REQUIRE(w);
  CHECK(w->nodes == std::vector<std::string>{"gpu1", "gpu2"});
  CHECK(w->window_known);
  CHECK(w->window.start == test::utc("2025-03-14T08:45:00Z"));
  r.end = "2025-03-14T08:00:00Z";
  CHECK_FALSE(resolve_workload(cfg, r, no_slurm));
  r.end.reset();
  r.nodes = "gpu[2-1]";
  CHECK_FALSE(resolve_workload(cfg, r, no_slurm));
}

TEST_CASE("no workload source is a usage error that says what to pass") {
  Config cfg = default_config();
  auto w = resolve_workload(cfg, WorkloadRequest{}, no_slurm);
  REQUIRE_FALSE(w);
  CHECK(w.error().kind == ErrorKind::usage);
  CHECK(w.error().hint.find("--logs") != std::string::npos);
  cfg.scheduler = find_scheduler("slurm");
  WorkloadRequest job;
  job.job = "12";
  auto s = resolve_workload(cfg, job, no_slurm);
  REQUIRE_FALSE(s);
  CHECK(s.error().message.find("neither sacct nor scontrol") != std::string::npos);
  CHECK_FALSE(resolve_workload(cfg, WorkloadRequest{}, no_slurm));  // slurm needs --job
}

#include <catch2/catch.hpp>

#include "core/pipeline/diagnose.hpp"
#include "sources/transport/http.hpp"
#include "sources/slurm/slurm_workload.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {

// The NODE_FAIL job as a login node's commands answer for it.
ReplayRunner nodefail_cluster() {
  ReplayRunner r;
  r.add("sacct -j 2 --json", CommandOutput{0, test::fixture("slurm/nodefail-sacct-j-json.json"), ""});
  r.add("scontrol show job -o 2", CommandOutput{0, test::fixture("slurm/nodefail-scontrol-show-job-o.txt"), ""});
  // Node events as accounting keeps them (recorded form; the reason of nodefail-sinfo-R.txt).
  r.add("sacctmgr -n -P show event Start=2026-11-29 End=2026-12-02 Format=NodeName,TimeStart,State,Reason",
        CommandOutput{0, "|2026-11-30T19:30:41|Unknown|Cluster Registered TRES\ngpu-node03|2026-11-30T19:33:18|DOWN|GPU Xid 79 on GPU 5\n", ""});
  return r;
}
}  // namespace

TEST_CASE("job ids: plain, array task, het component, step") {
  CHECK(parse_job_spec("12345")->job == "12345");
  CHECK(parse_job_spec("12345_7")->job == "12345_7");
  CHECK(parse_job_spec("12345+1")->job == "12345+1");
  auto step = parse_job_spec("12345.batch");
  CHECK(step->job == "12345");
  CHECK(step->step == "batch");
  CHECK(parse_job_spec("12345.0")->step == "0");
  for (const char* bad : {"", "abc", "12 34", "12345.", "12345;rm -rf /", "-1"}) CHECK_FALSE(parse_job_spec(bad));
}

TEST_CASE("NODE_FAIL: sacct + scontrol + sinfo -R name the failed node as a fact") {
  ReplayRunner r = nodefail_cluster();
  auto w = resolve_slurm_workload("2", r, SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE(w);
  CHECK(w->state == "NODE_FAIL");
  CHECK(w->nodes == std::vector<std::string>{"gpu-node01", "gpu-node02", "gpu-node03", "gpu-node04"});
  CHECK(w->log_paths.size() == 1);  // StdOut == StdErr
  REQUIRE_FALSE(w->facts.empty());
  bool job_line = false, node_line = false;
  for (const auto& f : w->facts) {
    job_line |= f.text.find("slurm job 2 state NODE_FAIL reason NodeDown") != std::string::npos &&
                f.text.find("failed_node gpu-node03") != std::string::npos;
    node_line |= f.text.find("slurm node gpu-node03 down reason \"GPU Xid 79 on GPU 5\"") != std::string::npos;
  }
  CHECK(job_line);
  CHECK(node_line);
}

TEST_CASE("a node still down: sinfo -R names it when accounting has no events") {
  ReplayRunner r;
  r.add("sacct -j 2 --json", CommandOutput{0, test::fixture("slurm/nodefail-sacct-j-json.json"), ""});
  r.add("sinfo -R -h -N -o %N|%H|%E", CommandOutput{0, "gpu-node03|2026-11-30T19:33:18|GPU Xid 79 on GPU 5\n", ""});
  auto w = resolve_slurm_workload("2", r, SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE(w);
  CHECK(w->facts.back().text.find("slurm node gpu-node03 down") != std::string::npos);
}

TEST_CASE("a failed job: scontrol's real exit code replaces sacct's, output paths come from scontrol") {
  ReplayRunner r;
  r.add("sacct -j 1 --json", CommandOutput{0, test::fixture("slurm/sacct-j-json.json"), ""});
  r.add("scontrol show job -o 1", CommandOutput{0, test::fixture("slurm/scontrol-show-job-o.txt"), ""});
  r.add("sinfo -R -h -N -o %N|%H|%E", CommandOutput{0, "", ""});
  auto w = resolve_slurm_workload("1", r, SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE(w);
  CHECK(w->exit_code == 143);
  CHECK(w->log_paths.size() == 2);
  CHECK(w->workdir == "/tmp");
}

TEST_CASE("unknown job and missing tools are clear errors") {
  ReplayRunner r;
  r.add("sacct -j 99 --json", CommandOutput{0, R"({"jobs": [], "errors": []})", ""});
  r.add("scontrol show job -o 99", CommandOutput{1, "", "slurm_load_jobs error: Invalid job id specified\n"});
  auto w = resolve_slurm_workload("99", r, SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE_FALSE(w);
  CHECK(w.error().message.find("does not know job 99") != std::string::npos);
  CHECK(w.error().message.find("Invalid job id") != std::string::npos);
}

TEST_CASE("Slurm commands that cannot reach the controller say so, not that the job is unknown") {
  ReplayRunner r;
  // The wording of Slurm 22.05's sacct and scontrol when slurmdbd / slurmctld are down.
  r.add("sacct -j 7 --json",
        CommandOutput{1, "", "sacct: error: slurm_persist_conn_open_without_init: failed to open persistent connection to "
                             "host:localhost:6819: Connection refused\nsacct: error: Problem talking to the database: "
                             "Connection refused\n"});
  r.add("scontrol show job -o 7",
        CommandOutput{1, "", "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"});
  auto w = resolve_slurm_workload("7", r, SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE_FALSE(w);
  CHECK(w.error().message.find("cannot reach the controller") != std::string::npos);
  CHECK(w.error().message.find("does not know") == std::string::npos);
  CHECK(w.error().hint.find("scontrol ping") != std::string::npos);
}

TEST_CASE("a running job has no end: its window runs to now") {
  ReplayRunner r;
  r.add("scontrol show job -o 1", CommandOutput{0, test::fixture("slurm/scontrol-show-job-running.txt"), ""});
  auto w = resolve_slurm_workload("1", r, SlurmResolveOptions{TimeZone::utc(), 1796067500LL * kMicrosPerSecond});
  REQUIRE(w);
  CHECK(w->state == "RUNNING");
  CHECK_FALSE(w->end);
  CHECK(w->facts.front().time == 1796067500LL * kMicrosPerSecond);
}

TEST_CASE("diagnose --job with no config: the NODE_FAIL job's failed node is the root cause") {
  ReplayRunner r = nodefail_cluster();
  DiagnoseRequest req;
  req.config_path = std::string(ATTRIBUTION_SOURCE_DIR) + "/tests/fixtures/slurm-scheduler.toml";
  req.workload.job = std::string("2");
  req.runner = &r;
  auto report = diagnose(req);
  REQUIRE(report);
  CHECK(report->workload.scheduler == "slurm");
  CHECK(report->outcome.category == "node_failure");
  CHECK(report->outcome.exclude_nodes == std::vector<std::string>{"gpu-node03"});
  REQUIRE_FALSE(report->root_causes.empty());
  CHECK(report->root_causes.front().host == "gpu-node03");
  CHECK(report->root_causes.front().rule == "scheduler.slurm-node-down");
}

TEST_CASE("slurmrestd: newest API first, JWT headers, accounting then controller view") {
  ReplayHttpClient http;
  const std::string base = "http://127.0.0.1:6820";
  // A 22.05 server answers only v0.0.38; the newer paths are 404.
  for (const char* v : {"v0.0.41", "v0.0.40", "v0.0.39"}) {
    http.add(base + "/slurmdb/" + v + "/job/1", HttpResponse{404, "Unable to find plugin"});
    http.add(base + "/slurm/" + v + "/job/1", HttpResponse{404, "Unable to find plugin"});
  }
  http.add(base + "/slurmdb/v0.0.38/job/1", HttpResponse{200, test::fixture("slurm/slurmrestd-slurmdb-v0.0.38-job.json")});
  http.add(base + "/slurm/v0.0.38/job/1", HttpResponse{200, test::fixture("slurm/slurmrestd-slurm-v0.0.38-job.json")});
  http.add(base + "/slurm/v0.0.38/nodes", HttpResponse{200, test::fixture("slurm/slurmrestd-slurm-v0.0.38-nodes.json")});
  auto w = resolve_slurm_workload_rest("1", http, SlurmRestOptions{base + "/", "alice", "tok-123", "", ""},
                                       SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE(w);
  CHECK(w->state == "FAILED");
  CHECK(w->exit_code == 143);  // the controller's raw wait status, not accounting's 0
  CHECK(w->nodes.size() == 4);
  CHECK(w->log_paths.size() == 2);
  REQUIRE_FALSE(http.seen_headers.empty());
  const auto& h = http.seen_headers.front();
  CHECK(std::find(h.begin(), h.end(), "X-SLURM-USER-NAME: alice") != h.end());
  CHECK(std::find(h.begin(), h.end(), "X-SLURM-USER-TOKEN: tok-123") != h.end());
}

TEST_CASE("slurmrestd: a refused token is a config error that does not print the token") {
  ReplayHttpClient http;
  http.add("http://r/slurmdb/v0.0.38/job/1", HttpResponse{401, "Authentication failure"});
  auto w = resolve_slurm_workload_rest("1", http, SlurmRestOptions{"http://r", "alice", "secret-token", "v0.0.38", ""},
                                       SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE_FALSE(w);
  CHECK(w.error().kind == ErrorKind::config);
  CHECK(w.error().message.find("secret-token") == std::string::npos);
  CHECK(w.error().hint.find("secret-token") == std::string::npos);
  ReplayHttpClient old;  // Slurm 22.05's answer to a bad token
  old.add("http://r/slurmdb/v0.0.38/job/1",
          HttpResponse{500, R"({"errors": [{"error_number": 1007, "error": "Protocol authentication error"}], "jobs": []})"});
  auto o = resolve_slurm_workload_rest("1", old, SlurmRestOptions{"http://r", "alice", "secret-token", "v0.0.38", ""},
                                       SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE_FALSE(o);
  CHECK(o.error().message.find("refused the token") != std::string::npos);
  ReplayHttpClient down;
  auto d = resolve_slurm_workload_rest("1", down, SlurmRestOptions{"http://r", "alice", "secret-token", "v0.0.38", ""},
                                       SlurmResolveOptions{TimeZone::utc(), 0});
  REQUIRE_FALSE(d);
  CHECK(d.error().message.find("Couldn't connect") != std::string::npos);
  CHECK(d.error().message.find("secret-token") == std::string::npos);
}

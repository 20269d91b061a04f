#include <catch2/catch.hpp>

#include "sources/slurm/slurm_parse.hpp"
#include "tests/test_util.hpp"

using namespace attribution;


TEST_CASE("sacct --json from Slurm 22.05 (dbv0.0.38): a failed 4-node job") {
  auto jobs = parse_slurm_json(test::fixture("slurm/sacct-j-json.json"), "sacct");
  REQUIRE(jobs);
  REQUIRE(jobs->size() == 1);
  const SlurmJob& j = jobs->front();
  CHECK(j.id == "1");
  CHECK(j.name == "llama3-70b-pretrain");
  CHECK(j.state == "FAILED");
  CHECK(j.nodes == "gpu-node[01-04]");
  CHECK(*j.start == 1796067190LL * kMicrosPerSecond);
  CHECK(*j.end == 1796067191LL * kMicrosPerSecond);
  REQUIRE(j.steps.size() == 2);
  CHECK(j.steps[0].id == "1.batch");
  CHECK(j.steps[1].id == "1.0");
  CHECK(j.steps[1].nodes == "gpu-node[01-04]");
}

TEST_CASE("sacct NODE_FAIL job: signals per step") {
  auto jobs = parse_slurm_json(test::fixture("slurm/nodefail-sacct-j-json.json"), "sacct");
  REQUIRE(jobs);
  const SlurmJob& j = jobs->front();
  CHECK(j.state == "NODE_FAIL");
  REQUIRE(j.steps.size() >= 2);
  CHECK(j.steps[1].state == "CANCELLED");
  CHECK(j.steps[1].signal == 15);
}

TEST_CASE("data_parser v0.0.41 shapes: arrays, set/number objects, failed_node, array tasks") {
  auto jobs = parse_slurm_json(test::fixture("slurm/sacct-v0.0.41-constructed.json"), "sacct");
  REQUIRE(jobs);
  REQUIRE(jobs->size() == 2);
  const SlurmJob& j = (*jobs)[0];
  CHECK(j.id == "4242");
  CHECK(j.state == "NODE_FAIL");
  CHECK(j.failed_node == "node003");
  CHECK(j.exit_code == 0);
  REQUIRE(j.steps.size() == 1);
  CHECK(j.steps[0].id == "4242.0");
  CHECK(j.steps[0].signal == 9);
  CHECK(*j.steps[0].start == 1717000061LL * kMicrosPerSecond);
  const SlurmJob& a = (*jobs)[1];
  CHECK(a.id == "4249_7");
  CHECK(a.state == "TIMEOUT");
  CHECK(a.signal == 15);
}

TEST_CASE("squeue --json and slurmrestd (openapi v0.0.38): raw wait status, running job") {
  auto running = parse_slurm_json(test::fixture("slurm/squeue-running.json"), "squeue");
  REQUIRE(running);
  CHECK(running->front().state == "RUNNING");
  CHECK(running->front().std_out.find("slurm-%j.out") != std::string::npos);
  auto rest = parse_slurm_json(test::fixture("slurm/slurmrestd-slurm-v0.0.38-job.json"), "slurmrestd");
  REQUIRE(rest);
  CHECK(rest->front().exit_code == 143);  // 36608 = 143 << 8
}

TEST_CASE("scontrol show job text: one-line and multi-line forms") {
  auto one = parse_scontrol_text(test::fixture("slurm/scontrol-show-job-o.txt"), TimeZone::utc());
  REQUIRE(one);
  const SlurmJob& j = one->front();
  CHECK(j.exit_code == 143);
  CHECK(j.state == "FAILED");
  CHECK(j.reason == "NonZeroExitCode");
  CHECK(j.std_out.find("slurm-1.out") != std::string::npos);
  CHECK(j.work_dir == "/tmp");
  CHECK(*j.start == test::utc("2026-11-30T19:33:10Z"));
  CHECK(j.user == "root");
  auto multi = parse_scontrol_text(test::fixture("slurm/scontrol-show-job.txt"), TimeZone::utc());
  REQUIRE(multi);
  CHECK(multi->front().nodes == j.nodes);
  CHECK(multi->front().std_err == j.std_err);
  auto nf = parse_scontrol_text(test::fixture("slurm/nodefail-scontrol-show-job-o.txt"), TimeZone::utc());
  REQUIRE(nf);
  CHECK(nf->front().signal == 15);
  // Values with spaces survive: Command= and WorkDir= may contain them.
  auto sp = parse_scontrol_text("JobId=9 JobName=a b JobState=FAILED WorkDir=/home/x y/run StdOut=/o/%j.out", TimeZone::utc());
  REQUIRE(sp);
  CHECK(sp->front().name == "a b");
  CHECK(sp->front().work_dir == "/home/x y/run");
}

TEST_CASE("bad scheduler output is an error, not a crash") {
  CHECK_FALSE(parse_slurm_json("", "sacct"));
  CHECK_FALSE(parse_slurm_json("{\"jobs\": 3}", "sacct"));
  auto err = parse_slurm_json(R"({"errors": [{"error": "Invalid job id specified"}], "jobs": []})", "sacct");
  REQUIRE_FALSE(err);
  CHECK(err.error().message.find("Invalid job id") != std::string::npos);
  CHECK_FALSE(parse_scontrol_text("slurm_load_jobs error: Invalid job id specified", TimeZone::utc()));
  auto jobs = parse_slurm_json(R"({"jobs": [{"job_id": "x", "state": 7, "time": [], "steps": {}}]})", "sacct");
  REQUIRE(jobs);  // wrong types degrade to unknown fields
  CHECK(jobs->front().state.empty());
}

TEST_CASE("sacctmgr node events: only nodes taken out, with their reason and time") {
  auto r = parse_node_events("|2026-11-30T20:28:41|Unknown||Cluster Registered TRES\n"
                             "gpu-node03|2026-11-30T20:35:28|DOWN|GPU Xid 79 on GPU 5 (health check)\n"
                             "gpu-node01|2026-11-30T20:36:00|DRAIN|Kill task failed\n"
                             "gpu-node02|2026-11-30T20:37:00|IDLE|\n", TimeZone::utc());
  REQUIRE(r.size() == 2);
  CHECK(r[0].node == "gpu-node03");
  CHECK(r[0].reason == "GPU Xid 79 on GPU 5 (health check)");
  CHECK(*r[0].since == test::utc("2026-11-30T20:35:28Z"));
  CHECK(r[1].reason == "Kill task failed");
}

TEST_CASE("sinfo -R reasons and output path patterns") {
  auto r = parse_sinfo_reasons("gpu-node03|2026-11-30T19:33:18|GPU Xid 79 on GPU 5\nbad line\n", TimeZone::utc());
  REQUIRE(r.size() == 1);
  CHECK(r[0].node == "gpu-node03");
  CHECK(*r[0].since == test::utc("2026-11-30T19:33:18Z"));
  SlurmJob j;
  j.job_id = 77;
  j.user = "alice";
  j.name = "train";
  j.nodes = "node[03-04]";
  CHECK(expand_slurm_path("/out/%x-%j.%u.%N.%%.log", j) == "/out/train-77.alice.node03.%.log");
  CHECK(expand_slurm_path("/out/slurm-%5j.out", j) == "/out/slurm-00077.out");
  // Slurm pads to 10 at most; a run of digits must neither overflow nor pad without bound.
  CHECK(expand_slurm_path("/out/%12j.out", j) == "/out/0000000077.out");
  CHECK(expand_slurm_path("/out/%99999999999999999999j.out", j) == "/out/0000000077.out");
  j.array_job_id = 70;
  j.array_task_id = 7;
  CHECK(expand_slurm_path("/out/%A_%a.out", j) == "/out/70_7.out");
}

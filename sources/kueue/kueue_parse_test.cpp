#include <catch2/catch.hpp>

#include "sources/kueue/kueue_parse.hpp"
#include "tests/kube_fixtures.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

TEST_CASE("Kueue Workload v1beta2: owner / admission / conditions") {
  auto w = parse_kueue_workload(test::fixture("kueue/workload-v1beta2.json"), "wl");
  REQUIRE(w);
  CHECK(w->api_version == "kueue.x-k8s.io/v1beta2");
  CHECK(w->ns == "training");
  CHECK(w->name == "pytorchjob-llm-pretrain-7c4d1");
  REQUIRE(w->owners.size() == 1);
  CHECK(w->owners[0].kind == "PyTorchJob");
  CHECK(w->owners[0].name == "llm-pretrain");
  CHECK(w->owners[0].controller);
  CHECK(w->cluster_queue == "gpu-cq");
  CHECK(w->queue_name == "team-a");
  REQUIRE(w->pod_sets.size() == 2);
  CHECK(w->pod_sets[1].name == "worker");
  CHECK(w->pod_sets[1].count == 3);
  REQUIRE(w->conditions.size() == 4);
  CHECK(w->conditions[3].type == "Finished");
  CHECK(w->conditions[3].reason == "Failed");
  CHECK(w->conditions[3].time == test::kube_time("2025-05-06T10:25:40Z"));
}

TEST_CASE("Kueue Workload v1beta1: preempted and requeued") {
  auto w = parse_kueue_workload(test::fixture("kueue/workload-preempted-v1beta1.json"), "wl");
  REQUIRE(w);
  CHECK(w->api_version == "kueue.x-k8s.io/v1beta1");
  CHECK(w->requeue_count == 1);
  bool preempted = false;
  for (const auto& c : w->conditions) preempted |= c.type == "Preempted" && c.status == "True" && c.reason == "InClusterQueue";
  CHECK(preempted);
}

TEST_CASE("Kueue Workload: unhealthy nodes / lists / wrong kinds") {
  auto nf = parse_kueue_workload(test::fixture("kueue/workload-nodefailures-v1beta2.json"), "wl");
  REQUIRE(nf);
  CHECK(nf->unhealthy_nodes == std::vector<std::string>{"gpu-node07.cluster.local"});
  auto list = parse_kueue_workload_list(test::fixture("kueue/workload-list-v1beta2.json"), "list");
  REQUIRE(list);
  REQUIRE(list->size() == 3);
  CHECK((*list)[0].owners[0].kind == "Job");
  CHECK(parse_kueue_workload_list(R"({"kind":"WorkloadList","items":null})", "l")->empty());
  CHECK_FALSE(parse_kueue_workload(test::fixture("kueue/pods-llm-pretrain.json"), "x"));
  CHECK_FALSE(parse_kueue_workload("<html>", "x"));
}

TEST_CASE("PodList: node / container states / previous instance") {
  auto pods = parse_pod_list(test::fixture("kueue/pods-llm-pretrain.json"), "pods");
  REQUIRE(pods);
  REQUIRE(pods->size() == 4);
  const KubePod& w0 = (*pods)[1];
  CHECK(w0.name == "llm-pretrain-worker-0");
  CHECK(w0.node == "gpu-node02.cluster.local");
  CHECK(w0.phase == "Failed");
  CHECK(w0.containers == std::vector<std::string>{"pytorch"});
  REQUIRE(w0.statuses.size() == 1);
  const KubeContainer& c = w0.statuses[0];
  CHECK(c.restarts == 1);
  REQUIRE(c.last);
  CHECK(c.last->reason == "OOMKilled");
  CHECK(c.last->exit_code == 137);
  CHECK(c.last->finished == test::kube_time("2025-05-06T10:15:02Z"));
  REQUIRE(c.terminated);
  CHECK(c.terminated->reason == "Error");
  bool labelled = false;
  for (const auto& [k, v] : w0.labels) labelled |= k == "training.kubeflow.org/job-name" && v == "llm-pretrain";
  CHECK(labelled);
  CHECK(w0.owners[0].kind == "PyTorchJob");
}

TEST_CASE("Pod: DisruptionTarget and node-shutdown reason") {
  auto p = parse_pod(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":"n1","containers":[{"name":"c"}]},
    "status":{"phase":"Failed","reason":"Terminated","message":"Pod was terminated in response to imminent node shutdown.",
    "conditions":[{"type":"DisruptionTarget","status":"True","reason":"TerminationByKubelet","message":"Pod was terminated in response to imminent node shutdown.","lastTransitionTime":"2025-05-06T10:15:02Z"}],
    "containerStatuses":[{"name":"c","restartCount":0,"state":{"terminated":{"exitCode":137,"signal":9,"reason":"Error","startedAt":"2025-05-06T10:00:00Z","finishedAt":"2025-05-06T10:15:03Z"}},"lastState":{}}]}})",
                     "pod");
  REQUIRE(p);
  CHECK(p->reason == "Terminated");
  CHECK(p->conditions[0].reason == "TerminationByKubelet");
  CHECK(p->statuses[0].terminated->signal == 9);
  CHECK_FALSE(p->statuses[0].last);
}

TEST_CASE("EventList: old-style timestamps / eventTime-only events / node events") {
  auto ev = parse_event_list(test::fixture("kueue/events-worker-0.json"), "events");
  REQUIRE(ev);
  REQUIRE(ev->size() == 4);
  CHECK((*ev)[0].reason == "Scheduled");
  CHECK((*ev)[0].first == test::kube_time("2025-05-06T10:00:04.912345Z"));  // MicroTime, no firstTimestamp
  CHECK((*ev)[1].count == 2);
  CHECK((*ev)[1].first == test::kube_time("2025-05-06T10:00:38Z"));
  CHECK((*ev)[1].last == test::kube_time("2025-05-06T10:15:08Z"));
  CHECK((*ev)[3].type == "Warning");
  auto nodes = parse_event_list(test::fixture("kueue/events-nodes.json"), "events");
  REQUIRE(nodes);
  CHECK((*nodes)[0].kind == "Node");
  CHECK((*nodes)[0].name == "gpu-node02.cluster.local");
  CHECK((*nodes)[0].reason == "SystemOOM");
}

TEST_CASE("metav1 Status bodies") {
  auto s = parse_kube_status(test::fixture("kueue/status-404-workload.json"));
  REQUIRE(s);
  CHECK(s->code == 404);
  CHECK(s->reason == "NotFound");
  CHECK(s->details_kind == "workloads");
  CHECK(parse_kube_status(test::fixture("kueue/status-400-previous.json"))->message.find("previous terminated container") == 0);
  CHECK_FALSE(parse_kube_status("404 page not found"));
  CHECK_FALSE(parse_kube_status(test::fixture("kueue/workload-v1beta2.json")));
  CHECK_FALSE(parse_kube_time(""));
  CHECK_FALSE(parse_kube_time("2025-05-06"));
  CHECK(parse_kube_time("2025-05-06T10:00:00+02:00") == test::kube_time("2025-05-06T08:00:00Z"));
}

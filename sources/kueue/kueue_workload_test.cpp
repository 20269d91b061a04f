#include <catch2/catch.hpp>

#include "sources/kubernetes/kube_logs.hpp"
#include "sources/kueue/kueue_scheduler.hpp"

#include <algorithm>

#include "core/pipeline/config.hpp"
#include "sources/transport/http.hpp"
#include "sources/kueue/kueue_workload.hpp"
#include "tests/kube_fixtures.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {

const std::string kWl2 = test::kKubeServer + "/apis/kueue.x-k8s.io/v1beta2/namespaces/training/workloads";
const std::string kWl1 = test::kKubeServer + "/apis/kueue.x-k8s.io/v1beta1/namespaces/training/workloads";
const std::string kPods = test::kKubeServer + "/api/v1/namespaces/training/pods?labelSelector=training.kubeflow.org%2Fjob-name%3Dllm-pretrain";
const std::string kNodeEvents = test::kKubeServer + "/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DNode";

std::string pod_events(const std::string& pod) {
  return test::kKubeServer + "/api/v1/namespaces/training/events?fieldSelector=involvedObject.name%3D" + pod;
}

// The PyTorchJob's API as kube-apiserver answers it; the job name is not a Workload name.
ReplayHttpClient cluster() {
  ReplayHttpClient h;
  h.add(kWl2 + "/llm-pretrain", HttpResponse{404, test::fixture("kueue/status-404-workload.json")});
  h.add(kWl2, HttpResponse{200, test::fixture("kueue/workload-list-v1beta2.json")});
  h.add(kWl2 + "/pytorchjob-llm-pretrain-7c4d1", HttpResponse{200, test::fixture("kueue/workload-v1beta2.json")});
  h.add(kPods, HttpResponse{200, test::fixture("kueue/pods-llm-pretrain.json")});
  for (const char* p : {"llm-pretrain-master-0", "llm-pretrain-worker-1", "llm-pretrain-worker-2"})
    h.add(pod_events(p), HttpResponse{200, test::fixture("kueue/events-empty.json")});
  h.add(pod_events("llm-pretrain-worker-0"), HttpResponse{200, test::fixture("kueue/events-worker-0.json")});
  h.add(kNodeEvents, HttpResponse{200, test::fixture("kueue/events-nodes.json")});
  return h;
}

bool has_fact(const Workload& w, const std::string& text) {
  return std::any_of(w.facts.begin(), w.facts.end(), [&](const SchedulerFact& f) { return f.text == text; });
}
}  // namespace

TEST_CASE("kueue --job: ns/name or name") {
  CHECK(parse_kueue_job("training/llm-pretrain")->ns == "training");
  CHECK(parse_kueue_job("llm-pretrain")->ns.empty());
  CHECK(parse_kueue_job("pytorchjob-llm.v2-7c4d1")->name == "pytorchjob-llm.v2-7c4d1");
  for (const char* bad : {"", "A/b", "a/b/c", "-x", "x y", "ns/", "/name", "ns/name;rm"}) CHECK_FALSE(parse_kueue_job(bad));
}

TEST_CASE("kueue: a PyTorchJob's name finds its newest Workload / pods / events and facts") {
  ReplayHttpClient http = cluster();
  auto w = resolve_kueue_workload("llm-pretrain", http, test::recorded_kube_access("training"), KueueResolveOptions{"", "auto", 0});
  REQUIRE(w);
  CHECK(w->id == "training/pytorchjob-llm-pretrain-7c4d1");  // not the older run of the same job
  CHECK(w->scheduler == "kueue");
  CHECK(w->name == "llm-pretrain");
  CHECK(w->state == "Failed");
  CHECK(w->exit_code == 137);  // the first failure: worker-0's OOM kill
  CHECK(w->nodes == std::vector<std::string>{"gpu-node01", "gpu-node02", "gpu-node03", "gpu-node04"});
  CHECK(w->start == test::kube_time("2025-05-06T10:00:04Z"));
  CHECK(w->end == test::kube_time("2025-05-06T10:25:40Z"));
  REQUIRE(w->pods.size() == 4);
  CHECK(w->pods[1].name == "llm-pretrain-worker-0");
  CHECK(w->pods[1].node == "gpu-node02");
  CHECK(w->pods[1].restarted == std::vector<std::string>{"pytorch"});
  CHECK(w->pods[0].restarted.empty());
  CHECK(has_fact(*w, "2025-05-06T10:15:02.000000Z kueue pod training/llm-pretrain-worker-0 node gpu-node02 container pytorch "
                     "terminated reason OOMKilled exit_code 137 restarts 1 instance previous"));
  CHECK(has_fact(*w, "2025-05-06T10:16:12.000000Z kueue pod training/llm-pretrain-worker-0 node gpu-node02 container pytorch "
                     "terminated reason Error exit_code 1 restarts 1 instance current"));
  CHECK(has_fact(*w, "2025-05-06T10:25:40.000000Z kueue workload training/pytorchjob-llm-pretrain-7c4d1 condition Finished "
                     "status True reason Failed message \"PyTorchJob llm-pretrain is failed because 1 Worker replica(s) failed.\""));
  CHECK(has_fact(*w, "2025-05-06T10:25:40.000000Z kueue workload training/pytorchjob-llm-pretrain-7c4d1 state Failed reason Failed "
                     "exit_code 137 cluster_queue gpu-cq requeues 0 nodes gpu-node01,gpu-node02,gpu-node03,gpu-node04"));
  CHECK(has_fact(*w, "2025-05-06T10:15:01.000000Z kueue event Node gpu-node02.cluster.local node gpu-node02 type Warning reason "
                     "SystemOOM count 1 message \"System OOM encountered, victim process: python, pid: 48211\""));
  CHECK(has_fact(*w, "2025-05-06T10:00:04.912345Z kueue event Pod training/llm-pretrain-worker-0 node gpu-node02 type Normal "
                     "reason Scheduled count 1 message \"Successfully assigned training/llm-pretrain-worker-0 to gpu-node02.cluster.local\""));
  for (const auto& f : w->facts) CHECK(f.text.find("gpu-node09") == std::string::npos);  // not a node of the job
  CHECK(std::is_sorted(w->facts.begin(), w->facts.end(), [](const auto& a, const auto& b) { return a.time < b.time; }));
  CHECK(w->facts.front().origin == "GET " + kWl2 + "/pytorchjob-llm-pretrain-7c4d1");
  for (const auto& h : http.seen_headers) CHECK(std::find(h.begin(), h.end(), "Authorization: Bearer tok-123") != h.end());
}

TEST_CASE("kueue: a Workload named directly / in the configured namespace") {
  ReplayHttpClient http = cluster();
  http.add(test::kKubeServer + "/apis/kueue.x-k8s.io/v1beta2/namespaces/research/workloads/pytorchjob-llm-pretrain-7c4d1",
           HttpResponse{200, test::fixture("kueue/workload-v1beta2.json")});
  auto w = resolve_kueue_workload("pytorchjob-llm-pretrain-7c4d1", http, test::recorded_kube_access("training"), KueueResolveOptions{"research", "auto", 0});
  REQUIRE(w);
  CHECK(http.seen_urls.front() == test::kKubeServer + "/apis/kueue.x-k8s.io/v1beta2/namespaces/research/workloads/pytorchjob-llm-pretrain-7c4d1");
  CHECK(w->pods.size() == 4);
}

TEST_CASE("kueue: v1beta1 when v1beta2 is not served / a preempted workload") {
  ReplayHttpClient http;
  http.add(kWl2 + "/bert-finetune", HttpResponse{404, test::fixture("kueue/status-404-page.json")});
  http.add(kWl2, HttpResponse{404, test::fixture("kueue/status-404-page.json")});
  http.add(kWl1 + "/bert-finetune", HttpResponse{404, test::fixture("kueue/status-404-workload.json")});
  http.add(kWl1, HttpResponse{200, R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"WorkloadList","items":[)" +
                                        test::fixture("kueue/workload-preempted-v1beta1.json") + "]}"});
  http.set_default(HttpResponse{200, test::fixture("kueue/events-empty.json")});
  auto w = resolve_kueue_workload("training/bert-finetune", http, test::recorded_kube_access("training"), KueueResolveOptions{"", "auto", 1746530000LL * kMicrosPerSecond});
  REQUIRE(w);
  CHECK(w->id == "training/job-bert-finetune-1a2b3");
  CHECK(w->state == "Evicted");
  CHECK(has_fact(*w, "2025-05-06T11:20:05.000000Z kueue workload training/job-bert-finetune-1a2b3 condition Preempted status True "
                     "reason InClusterQueue message \"Preempted to accommodate a workload (UID: 7d1e2c55-7b0a-4f44-9a51-2f1c2f0f9a11, "
                     "JobUID: 3f2d8e4a-6c1b-4f7e-8a9d-5b4c3d2e1f00) due to prioritization in the ClusterQueue\""));
  // A Job's pods are asked for by the batch label first.
  CHECK(std::find(http.seen_urls.begin(), http.seen_urls.end(),
                  test::kKubeServer + "/api/v1/namespaces/training/pods?labelSelector=batch.kubernetes.io%2Fjob-name%3Dbert-finetune") !=
        http.seen_urls.end());
}

TEST_CASE("kueue: an eviction for node failures names the unhealthy node") {
  ReplayHttpClient http;
  http.add(kWl2 + "/jobset-trainer-9f8e7", HttpResponse{200, test::fixture("kueue/workload-nodefailures-v1beta2.json")});
  http.set_default(HttpResponse{200, R"({"kind":"PodList","apiVersion":"v1","items":[]})"});
  auto w = resolve_kueue_workload("jobset-trainer-9f8e7", http, test::recorded_kube_access("training"), KueueResolveOptions{"", "v1beta2", 0});
  REQUIRE(w);
  CHECK(w->state == "Evicted");
  CHECK(has_fact(*w, "2025-05-07T03:10:12.000000Z kueue workload training/jobset-trainer-9f8e7 unhealthy_node gpu-node07"));
  CHECK(std::find(http.seen_urls.begin(), http.seen_urls.end(),
                  test::kKubeServer + "/api/v1/namespaces/training/pods?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Dtrainer") !=
        http.seen_urls.end());
}

TEST_CASE("kueue: refused credentials are a config error / no answer and unknown names are not") {
  ReplayHttpClient h401;
  h401.add(kWl2 + "/llm-pretrain", HttpResponse{401, test::fixture("kueue/status-401.json")});
  auto e401 = resolve_kueue_workload("llm-pretrain", h401, test::recorded_kube_access("training"), KueueResolveOptions{});
  REQUIRE_FALSE(e401);
  CHECK(e401.error().kind == ErrorKind::config);
  CHECK(e401.error().message.find("HTTP 401") != std::string::npos);
  CHECK(e401.error().message.find("tok-123") == std::string::npos);

  ReplayHttpClient h403;
  h403.add(kWl2 + "/llm-pretrain", HttpResponse{403, test::fixture("kueue/status-403.json")});
  auto e403 = resolve_kueue_workload("llm-pretrain", h403, test::recorded_kube_access("training"), KueueResolveOptions{});
  REQUIRE_FALSE(e403);
  CHECK(e403.error().message.find("cannot get resource \"workloads\"") != std::string::npos);
  CHECK(e403.error().hint.find("RBAC") != std::string::npos);

  ReplayHttpClient stalled;
  stalled.add_error(kWl2 + "/llm-pretrain", "HTTP GET failed: Timeout was reached");
  auto et = resolve_kueue_workload("llm-pretrain", stalled, test::recorded_kube_access("training"), KueueResolveOptions{});
  REQUIRE_FALSE(et);
  CHECK(et.error().kind == ErrorKind::input);
  CHECK(et.error().message.find("Timeout was reached") != std::string::npos);
  CHECK(et.error().message.find(test::kKubeServer) != std::string::npos);

  ReplayHttpClient empty;
  empty.set_default(HttpResponse{404, test::fixture("kueue/status-404-page.json")});
  auto en = resolve_kueue_workload("llm-pretrain", empty, test::recorded_kube_access("training"), KueueResolveOptions{});
  REQUIRE_FALSE(en);
  CHECK(en.error().kind == ErrorKind::no_data);
  CHECK(en.error().hint.find("is Kueue installed") != std::string::npos);
}

TEST_CASE("kueue: pod selectors by job kind") {
  CHECK(pod_selectors("Job", "j").front() == "batch.kubernetes.io/job-name=j");
  CHECK(pod_selectors("JobSet", "s").front() == "jobset.sigs.k8s.io/jobset-name=s");
  CHECK(pod_selectors("PyTorchJob", "p").front() == "training.kubeflow.org/job-name=p");
  CHECK(pod_selectors("Unknown", "x").empty());
}

TEST_CASE("config: kueue section and kubernetes source keys") {
  auto c = parse_config("[workload]\nscheduler = \"kueue\"\n\n[kueue]\nnamespace = \"training\"\nkubeconfig = \"kube/config\"\n"
                        "context = \"prod\"\nin_cluster = false\napi = \"v1beta1\"\ntimeout = \"10s\"\nca_file = \"/etc/ca.pem\"\n\n"
                        "[[source]]\nname = \"pods\"\nkind = \"kubernetes\"\nnamespace = \"training\"\ncontainer = [\"pytorch\", \"sidecar\"]\n"
                        "in_cluster = true\ntimeout = \"20s\"\n",
                        "/etc/attribution/attribution.toml");
  REQUIRE(c);
  REQUIRE(c->scheduler);
  CHECK(c->scheduler->name() == "kueue");
  const auto& k = static_cast<const KueueSettings&>(*c->scheduler_settings.at("kueue"));
  CHECK(k.keys.ns == "training");
  CHECK(k.keys.auth.kubeconfig == "/etc/attribution/kube/config");  // relative to the config file
  CHECK(k.keys.auth.context == "prod");
  CHECK(k.api == "v1beta1");
  CHECK(k.keys.auth.timeout == 10 * kMicrosPerSecond);
  CHECK(k.keys.auth.ca_file == "/etc/ca.pem");
  REQUIRE(c->sources.size() == 1);
  const auto& pods = static_cast<const KubeLogsSettings&>(*c->sources[0].settings);
  CHECK(pods.containers == std::vector<std::string>{"pytorch", "sidecar"});
  CHECK(pods.auth.in_cluster == true);
  CHECK(pods.ns == "training");
  CHECK(pods.auth.timeout == 20 * kMicrosPerSecond);
  // The source's credentials default to [kueue]'s.
  CHECK(pods.auth.kubeconfig == "/etc/attribution/kube/config");
  CHECK(pods.auth.context == "prod");
  auto home = parse_config("[kueue]\nkubeconfig = \"~/.kube/other\"\n", "a.toml");
  REQUIRE(home);
  CHECK(static_cast<const KueueSettings&>(*home->scheduler_settings.at("kueue")).keys.auth.kubeconfig == "~/.kube/other");
  for (const char* bad : {"[kueue]\napi = \"v2\"\n", "[kueue]\nin_cluster = \"yes\"\n", "[kueue]\ntimeout = \"soon\"\n",
                          "[kueue]\nnamspace = \"x\"\n", "[[source]]\nname = \"p\"\nkind = \"kubernetes\"\nurl = \"http://x\"\n"}) {
    INFO(bad);
    auto e = parse_config(bad, "bad.toml");
    REQUIRE_FALSE(e);
    CHECK(e.error().kind == ErrorKind::config);
    CHECK(e.error().line > 0);
  }
}

#include <catch2/catch.hpp>

#include <algorithm>

#include "core/pipeline/diagnose.hpp"
#include "core/scan/line_prefix.hpp"
#include "sources/transport/http.hpp"
#include "sources/kubernetes/kube_logs.hpp"
#include "sources/kueue/kueue_parse.hpp"
#include "tests/kube_fixtures.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

namespace {


Workload pytorchjob() {
  Workload w;
  w.scheduler = "kueue";
  w.nodes = {"gpu-node01", "gpu-node02", "gpu-node03", "gpu-node04"};
  w.start = *parse_kube_time("2025-05-06T10:00:04Z");
  w.window = Window{*w.start - 15 * 60 * kMicrosPerSecond, *w.start + 3600 * kMicrosPerSecond};
  w.window_known = true;
  w.pods = {{"training", "llm-pretrain-master-0", "gpu-node01", {"pytorch"}, {}},
            {"training", "llm-pretrain-worker-0", "gpu-node02", {"pytorch"}, {"pytorch"}},
            {"training", "llm-pretrain-worker-1", "gpu-node03", {"pytorch"}, {}},
            {"training", "llm-pretrain-worker-2", "gpu-node04", {"pytorch"}, {}}};
  return w;
}

std::string log_url(const std::string& pod, bool previous) {
  return test::kKubeServer + "/api/v1/namespaces/training/pods/" + pod +
         "/log?container=pytorch&timestamps=true&sinceTime=2025-05-06T09%3A45%3A04Z" + (previous ? "&previous=true" : "");
}

void serve_logs(ReplayHttpClient& h, const std::string& skip = "") {
  for (const char* p : {"master-0", "worker-0", "worker-1", "worker-2"})
    if (p != skip) h.add(log_url(std::string("llm-pretrain-") + p, false), HttpResponse{200, test::fixture(std::string("kueue/logs/") + p + ".log")});
  h.add(log_url("llm-pretrain-worker-0", true), HttpResponse{400, test::fixture("kueue/status-400-previous.json")});
}
}  // namespace

TEST_CASE("pod log requests: timestamps / sinceTime / container / previous") {
  Workload::Pod p{"ns", "pod-a", "n1", {"c"}, {}};
  CHECK(pod_log_path(p, "c", std::nullopt, false) == "/api/v1/namespaces/ns/pods/pod-a/log?container=c&timestamps=true");
  CHECK(pod_log_path(p, "c", *parse_kube_time("2025-05-06T09:45:04.9Z"), true) ==
        "/api/v1/namespaces/ns/pods/pod-a/log?container=c&timestamps=true&sinceTime=2025-05-06T09%3A45%3A04Z&previous=true");
}

TEST_CASE("pod logs: one inline file per container instance / host hint the node / a gone log is a problem") {
  ReplayHttpClient http;
  serve_logs(http);
  KubeLogsSettings sc;
  SourceCoverage cov;
  auto files = collect_kube_logs(sc, test::recorded_kube_access(""), pytorchjob(), 3, http, cov);
  REQUIRE(files.size() == 4);
  CHECK(files[1].path == "pods/training/llm-pretrain-worker-0/pytorch.log");
  CHECK(files[1].host_hint == "gpu-node02");
  CHECK(files[1].source == 3);
  REQUIRE(files[1].text);
  CHECK(files[1].text->find("sendBytes failed") != std::string::npos);
  CHECK(cov.status == SourceStatus::ok);  // the scan turns problems into partial
  REQUIRE(cov.problems.size() == 1);
  CHECK(cov.problems[0].find("pod training/llm-pretrain-worker-0 container pytorch (previous instance): log not available (HTTP 400") == 0);
  CHECK(cov.hosts_expected == 4);
  CHECK(cov.bytes > 0);
  // previous=true only for the restarted container
  CHECK(std::count_if(http.seen_urls.begin(), http.seen_urls.end(),
                      [](const std::string& u) { return u.find("previous=true") != std::string::npos; }) == 1);
}

TEST_CASE("pod logs: containers chosen by the source / namespace filter") {
  ReplayHttpClient http;
  http.set_default(HttpResponse{200, "2025-05-06T10:00:41.1Z hello\n"});
  KubeLogsSettings sc;
  sc.containers = {"sidecar"};
  SourceCoverage cov;
  auto files = collect_kube_logs(sc, test::recorded_kube_access(""), pytorchjob(), 0, http, cov);
  CHECK(files.empty());
  CHECK(cov.problems.size() == 4);
  CHECK(cov.problems[0] == "pod training/llm-pretrain-master-0: no container named sidecar");
  sc.containers.clear();
  sc.ns = "other";
  SourceCoverage cov2;
  CHECK(collect_kube_logs(sc, test::recorded_kube_access(""), pytorchjob(), 0, http, cov2).empty());
  CHECK(cov2.problems[0].find("outside the source's namespace other") != std::string::npos);
}

TEST_CASE("pod logs: refused or unanswered requests stop the source with an error naming why") {
  KubeLogsSettings sc;
  ReplayHttpClient refused;
  refused.set_default(HttpResponse{403, test::fixture("kueue/status-403.json")});
  SourceCoverage cov;
  CHECK(collect_kube_logs(sc, test::recorded_kube_access(""), pytorchjob(), 0, refused, cov).empty());
  CHECK(cov.status == SourceStatus::error);
  CHECK(cov.reason.find("refused the request (HTTP 403)") != std::string::npos);
  CHECK(refused.seen_urls.size() == 1);

  ReplayHttpClient stalled;
  serve_logs(stalled, "worker-1");
  stalled.add_error(log_url("llm-pretrain-worker-1", false), "HTTP GET failed: Timeout was reached");
  SourceCoverage cov2;
  auto files = collect_kube_logs(sc, test::recorded_kube_access(""), pytorchjob(), 0, stalled, cov2);
  CHECK(files.size() == 2);  // master-0 and worker-0 (current; its previous is gone) came back before the stall
  CHECK(cov2.status == SourceStatus::partial);
  CHECK(cov2.reason.find("llm-pretrain-worker-1") != std::string::npos);
  CHECK(cov2.reason.find("Timeout was reached") != std::string::npos);
  CHECK(stalled.seen_urls.size() == 4);  // worker-2 is not asked: the server did not answer
}

TEST_CASE("pod logs: a workload without pods") {
  KubeLogsSettings sc;
  ReplayHttpClient http;
  Workload w;
  w.scheduler = "static";
  SourceCoverage cov;
  CHECK(collect_kube_logs(sc, test::recorded_kube_access(""), w, 0, http, cov).empty());
  CHECK(cov.status == SourceStatus::skipped);
  w.scheduler = "kueue";
  SourceCoverage cov2;
  collect_kube_logs(sc, test::recorded_kube_access(""), w, 0, http, cov2);
  CHECK(cov2.status == SourceStatus::empty);
  CHECK(http.seen_urls.empty());
}

TEST_CASE("pod log lines keep the API server's time / rank and message follow") {
  std::string line = "2025-05-06T10:25:15.426415540Z [rank2]:[E0506 10:25:15.426415540 ProcessGroupNCCL.cpp:629] [Rank 2] Watchdog caught";
  LinePrefix p = parse_line_prefix(line);
  auto t = resolve_time(p, TimeContext{TimeZone::utc(), 0, std::nullopt, std::nullopt, std::nullopt});
  REQUIRE(t);
  CHECK(*t == *parse_kube_time("2025-05-06T10:25:15.426415Z"));
  CHECK(p.rank == 2);
  CHECK(p.host.empty());  // the node comes from the file's host hint
  std::string nccl = "2025-05-06T10:00:41.118230511Z llm-pretrain-master-0:412:412 [0] NCCL INFO Bootstrap : Using eth0";
  LinePrefix q = parse_line_prefix(nccl);
  CHECK(resolve_time(q, TimeContext{TimeZone::utc(), 0, std::nullopt, std::nullopt, std::nullopt}) == *parse_kube_time("2025-05-06T10:00:41.118230Z"));
  CHECK(q.host == "llm-pretrain-master-0");  // the pod's name: the scan reads it as the file's node (local_name)
}

TEST_CASE("diagnose a Kueue PyTorchJob: the OOMKilled pod's node is the root cause / NCCL timeouts its symptoms") {
  test::TempDir d;
  std::string kc = d.file("kubeconfig", "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: " + test::kKubeServer +
                                            "\n  name: c\ncontexts:\n- context:\n    cluster: c\n    namespace: training\n    user: u\n"
                                            "  name: t\ncurrent-context: t\nusers:\n- name: u\n  user:\n    token: tok-123\n");
  std::string cfg = d.file("attribution.toml", "[workload]\nscheduler = \"kueue\"\n\n[kueue]\nkubeconfig = \"kubeconfig\"\n\n"
                                               "[[source]]\nname = \"pods\"\nkind = \"kubernetes\"\n");
  ReplayHttpClient http;
  const std::string wl = test::kKubeServer + "/apis/kueue.x-k8s.io/v1beta2/namespaces/training/workloads";
  http.add(wl + "/llm-pretrain", HttpResponse{404, test::fixture("kueue/status-404-workload.json")});
  http.add(wl, HttpResponse{200, test::fixture("kueue/workload-list-v1beta2.json")});
  http.add(test::kKubeServer + "/api/v1/namespaces/training/pods?labelSelector=training.kubeflow.org%2Fjob-name%3Dllm-pretrain",
           HttpResponse{200, test::fixture("kueue/pods-llm-pretrain.json")});
  http.add(test::kKubeServer + "/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DNode",
           HttpResponse{200, test::fixture("kueue/events-nodes.json")});
  serve_logs(http);
  http.set_default(HttpResponse{200, test::fixture("kueue/events-empty.json")});  // the pods' events
  DiagnoseRequest req;
  req.config_path = cfg;
  req.workload.job = std::string("llm-pretrain");
  req.http = &http;
  auto report = diagnose(req);
  REQUIRE(report);
  CHECK(report->workload.scheduler == "kueue");
  CHECK(report->outcome.family == "host-oom");
  REQUIRE_FALSE(report->root_causes.empty());
  CHECK(report->root_causes.front().rule == "scheduler.kueue-oom-killed");
  CHECK(report->root_causes.front().host == "gpu-node02");
  bool watchdog = false;
  for (const auto& s : report->symptoms)
    if (s.rule == "pytorch.watchdog-timeout") {
      watchdog = true;
      CHECK(s.explained_by == report->root_causes.front().id);
      CHECK(s.hosts == std::vector<std::string>{"gpu-node01", "gpu-node03", "gpu-node04"});
    }
  CHECK(watchdog);
  const auto& sources = report->sources;
  auto pods = std::find_if(sources.begin(), sources.end(), [](const SourceCoverage& s) { return s.name == "pods"; });
  REQUIRE(pods != sources.end());
  CHECK(pods->status == SourceStatus::partial);
  CHECK(pods->reason.find("llm-pretrain-worker-0") != std::string::npos);
}

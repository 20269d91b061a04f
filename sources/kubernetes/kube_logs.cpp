#include "sources/kubernetes/kube_logs.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "sources/transport/http.hpp"
#include "sources/transport/http_auth.hpp"

namespace attribution {

std::string pod_log_path(const Workload::Pod& pod, const std::string& container, std::optional<Micros> since,
                         bool previous) {
  std::string path = fmt::format("/api/v1/namespaces/{}/pods/{}/log?container={}&timestamps=true", pod.ns, pod.name,
                                 url_encode(container));
  // sinceTime is second-resolution RFC 3339; floor, so the window's first second is included.
  if (since) path += "&sinceTime=" + url_encode(format_rfc3339(*since).substr(0, 19) + "Z");
  if (previous) path += "&previous=true";
  return path;
}

std::vector<InputFile> collect_kube_logs(const KubeLogsSettings& sc, const KubeAccess& access, const Workload& w,
                                         size_t index, HttpClient& http, SourceCoverage& cov) {
  std::vector<InputFile> files;
  bool failed = false;  // a log request failed for another reason than the log being gone
  cov.hosts_expected = static_cast<int64_t>(w.nodes.size());
  if (w.pods.empty()) {
    cov.status = w.scheduler == "kueue" ? SourceStatus::empty : SourceStatus::skipped;
    cov.reason = w.scheduler == "kueue" ? "the workload has no pods (none scheduled, or deleted)"
                                        : "a kubernetes source reads the pods of a Kueue workload (scheduler = \"kueue\")";
    return files;
  }
  std::optional<Micros> since;
  if (w.window_known && w.start) since = w.window.start;
  for (const auto& pod : w.pods) {
    if (!sc.ns.empty() && pod.ns != sc.ns) {
      cov.problems.push_back(fmt::format("pod {}/{}: outside the source's namespace {}", pod.ns, pod.name, sc.ns));
      continue;
    }
    std::vector<std::string> containers;
    for (const auto& c : pod.containers)
      if (sc.containers.empty() || std::find(sc.containers.begin(), sc.containers.end(), c) != sc.containers.end())
        containers.push_back(c);
    if (containers.empty()) {
      cov.problems.push_back(fmt::format("pod {}/{}: no container named {}", pod.ns, pod.name,
                                         sc.containers.empty() ? std::string("(none listed)") : sc.containers.front()));
      continue;
    }
    for (const auto& c : containers) {
      bool restarted = std::find(pod.restarted.begin(), pod.restarted.end(), c) != pod.restarted.end();
      for (bool previous : {true, false}) {
        if (previous && !restarted) continue;
        std::string path = pod_log_path(pod, c, since, previous);
        std::string name = fmt::format("pods/{}/{}/{}{}.log", pod.ns, pod.name, c, previous ? ".previous" : "");
        auto r = kube_get(http, access, path);
        if (!r) {
          // A server that does not answer will not answer the next pod either: stop waiting.
          cov.status = files.empty() ? SourceStatus::error : SourceStatus::partial;
          cov.reason = fmt::format("{} the Kubernetes API server at {} for pod {}/{}: {}",
                                   is_tls_failure(r.error().message) ? "cannot talk to" : "no answer from", access.server,
                                   pod.ns, pod.name, r.error().message);
          cov.problems.push_back(cov.reason);
          return files;
        }
        if (r->status == 401 || r->status == 403) {
          cov.status = SourceStatus::error;
          cov.reason = kube_refused(*r, access.server + path, access, "source").message;
          cov.problems.push_back(cov.reason);
          return files;
        }
        if (r->status != 200) {
          std::string said;
          if (auto st = parse_kube_status(r->body); st && !st->message.empty()) said = ": " + st->message.substr(0, 200);
          bool gone = r->status == 404 || r->status == 400;
          failed = failed || !gone;
          cov.problems.push_back(fmt::format("pod {}/{} container {}{}: {} (HTTP {}{})", pod.ns, pod.name, c,
                                             previous ? " (previous instance)" : "",
                                             gone ? "log not available" : "log request failed", r->status, said));
          continue;
        }
        cov.bytes += static_cast<int64_t>(r->body.size());
        InputFile f{name, index, pod.node, -1, std::make_shared<const std::string>(std::move(r->body)), nullptr};
        f.local_name = pod.name;  // NCCL's prefix inside the pod names the pod, not the node
        files.push_back(std::move(f));
      }
    }
  }
  if (!files.empty() && cov.bytes == 0 && cov.problems.empty()) {
    cov.status = SourceStatus::empty;
    cov.reason = fmt::format("the API server returned {} empty log(s) for the window", files.size());
  }
  if (failed && files.empty()) {  // nothing read because the server refused: an error, not "empty"
    cov.status = SourceStatus::error;
    cov.reason = fmt::format("{} log request(s) failed; first: {}", cov.problems.size(), cov.problems.front());
  }
  return files;
}

Result<std::shared_ptr<const SourceSettings>> KubeLogsKind::parse(const TomlReader& r, const ParseContext& context) const {
  if (auto st = r.only_keys({"name", "kind", "namespace", "kubeconfig", "context", "in_cluster", "container",
                             "timeout", "ca_file", "stream"});
      !st)
    return st.error();
  auto s = std::make_shared<KubeLogsSettings>();
  KubeKeys keys;
  // Credentials default to [kueue]'s (checked where [kueue] is read); the namespace and the
  // deadline are the source's own.
  if (const toml::table* kueue = context.document ? (*context.document)["kueue"].as_table() : nullptr)
    if (auto st = parse_kube_keys(TomlReader(*kueue, context.file, "kueue"), keys, context.base_dir); !st) return st.error();
  keys.ns.clear();
  keys.auth.timeout = KubeAuthOptions{}.timeout;
  if (auto st = parse_kube_keys(r, keys, context.base_dir); !st) return st.error();
  s->ns = keys.ns;
  s->auth = keys.auth;
  ATTRIBUTION_TRY(s->containers, r.str_list("container"));
  if (auto st = parse_stream(r, s->stream, false); !st) return st.error();
  return std::shared_ptr<const SourceSettings>(std::move(s));
}

std::vector<InputFile> KubeLogsKind::collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                             SourceCoverage& cov) const {
  const auto& sc = static_cast<const KubeLogsSettings&>(*entry.settings);
  const Workload& w = context.workload;
  HttpClient& http = context.transports.http;
  if (w.pods.empty()) return collect_kube_logs(sc, KubeAccess{}, w, index, http, cov);
  KubeAuthOptions auth = sc.auth;
  auth.config_key = "source." + entry.name;
  LocalKubeAccessResolver local;
  KubeAccessResolver& resolver = context.transports.kube ? *context.transports.kube : local;
  auto access = resolver.resolve(auth);
  if (!access) {
    cov.status = SourceStatus::error;
    cov.reason = access.error().message;
    if (!access.error().file.empty()) cov.reason += " (" + access.error().file + ")";
    return {};
  }
  return collect_kube_logs(sc, *access, w, index, http, cov);
}

}  // namespace attribution

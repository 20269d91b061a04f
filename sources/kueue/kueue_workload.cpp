#include "sources/kueue/kueue_workload.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <re2/re2.h>
#include <set>

#include "sources/transport/http.hpp"
#include "sources/transport/http_auth.hpp"

namespace attribution {
namespace {

std::string short_node(const std::string& n) { return n.substr(0, n.find('.')); }

std::string or_none(const std::string& s, const char* none = "none") { return s.empty() ? std::string(none) : s; }

// A message inside a fact: one line, quotes that cannot end the field, bounded.
std::string quoted(std::string m) {
  for (char& c : m) {
    if (c == '"') c = '\'';
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (m.size() > 300) {
    size_t cut = 300;
    while (cut > 0 && (static_cast<unsigned char>(m[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    m = m.substr(0, cut) + "...";
  }
  return "\"" + m + "\"";
}

const KubeCondition* condition(const KueueWorkload& wl, const char* type) {
  for (const auto& c : wl.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

bool is_true(const KubeCondition* c) { return c && c->status == "True"; }

// The owner whose pods we want: the controller reference, else the first.
const KubeOwnerRef* owner_of(const KueueWorkload& wl) {
  for (const auto& o : wl.owners)
    if (o.controller) return &o;
  return wl.owners.empty() ? nullptr : &wl.owners.front();
}

}  // namespace

Result<KueueJobSpec> parse_kueue_job(std::string_view text) {
  static const RE2 re(R"((?:([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)/)?([a-z0-9](?:[-.a-z0-9]{0,251}[a-z0-9])?))");
  KueueJobSpec s;
  if (!RE2::FullMatch(re2::StringPiece(text.data(), text.size()), re, &s.ns, &s.name))
    return make_error(ErrorKind::usage, fmt::format("'{}' is not a Kubernetes object name", text), {}, 0, {},
                      "write NAMESPACE/NAME or NAME: a Kueue Workload, or the Job / JobSet / PyTorchJob that owns one");
  return s;
}

std::vector<std::string> pod_selectors(const std::string& kind, const std::string& name) {
  if (kind == "Job") return {"batch.kubernetes.io/job-name=" + name, "job-name=" + name};
  if (kind == "JobSet") return {"jobset.sigs.k8s.io/jobset-name=" + name};
  if (kind == "PyTorchJob" || kind == "TFJob" || kind == "MPIJob" || kind == "XGBoostJob" || kind == "PaddleJob" ||
      kind == "JAXJob" || kind == "TrainJob")
    return {"training.kubeflow.org/job-name=" + name};
  if (kind == "RayJob" || kind == "RayCluster") return {"ray.io/cluster=" + name};
  return {};
}

namespace {

// The window: admission (or the first container start) to the end (Finished, or the last
// container termination when nothing runs any more); the first failed container's exit code.
void set_window(Workload& w, const KueueWorkload& wl, const std::vector<KubePod>& pods) {
  const KubeCondition* admitted = condition(wl, "Admitted");
  const KubeCondition* finished = condition(wl, "Finished");
  const KubeCondition* evicted = condition(wl, "Evicted");
  std::optional<Micros> first_start, last_end;
  bool running = false, any_container = false;
  const KubeTermination* first_failure = nullptr;
  for (const auto& p : pods)
    for (const auto& c : p.statuses) {
      any_container = true;
      if (!c.terminated) running = true;
      for (const auto* t : {c.last ? &*c.last : nullptr, c.terminated ? &*c.terminated : nullptr}) {
        if (!t) continue;
        if (t->started) first_start = std::min(first_start.value_or(*t->started), *t->started);
        if (t->finished) last_end = std::max(last_end.value_or(*t->finished), *t->finished);
        if (t->exit_code != 0 && t->finished && (!first_failure || *t->finished < *first_failure->finished)) first_failure = t;
      }
      if (c.running_since) first_start = std::min(first_start.value_or(*c.running_since), *c.running_since);
    }
  if (is_true(admitted) && admitted->time) w.start = *admitted->time;
  if (first_start && (!w.start || *first_start < *w.start)) w.start = first_start;
  if (!w.start)
    if (const KubeCondition* q = condition(wl, "QuotaReserved"); is_true(q) && q->time) w.start = q->time;
  if (is_true(finished) && finished->time) w.end = std::max(*finished->time, last_end.value_or(*finished->time));
  else if (any_container && !running && last_end) w.end = last_end;
  else if (is_true(evicted) && !running && evicted->time) w.end = evicted->time;
  if (first_failure) w.exit_code = first_failure->exit_code;
}

// The workload's state from its conditions, and the reason the fact states.
std::string set_state(Workload& w, const KueueWorkload& wl) {
  const KubeCondition* finished = condition(wl, "Finished");
  const KubeCondition* evicted = condition(wl, "Evicted");
  std::string reason = "None";
  if (is_true(finished)) {
    w.state = finished->reason == "Succeeded" || finished->reason == "Failed" ? finished->reason : "Finished";
    reason = or_none(finished->reason, "None");
  } else if (is_true(evicted)) {
    w.state = "Evicted";
    reason = or_none(evicted->reason, "None");
  } else if (is_true(condition(wl, "Admitted"))) {
    w.state = "Running";
  } else if (is_true(condition(wl, "QuotaReserved"))) {
    w.state = "QuotaReserved";
  } else {
    w.state = "Pending";
  }
  if (!w.exit_code && w.state == "Succeeded") w.exit_code = 0;
  return reason;
}

// The facts (one line each, wording in kueue_workload.hpp), in time order.
class KueueFacts {
 public:
  KueueFacts(Workload& w, const std::string& origin, Micros fate) : w_(w), origin_(origin), fate_(fate) {}

  void workload(const KueueWorkload& wl, const std::string& reason) {
    std::string node_list;
    for (const auto& n : w_.nodes) node_list += (node_list.empty() ? "" : ",") + n;
    add(fate_, fmt::format("kueue workload {} state {} reason {} exit_code {} cluster_queue {} requeues {} nodes {}", w_.id,
                           w_.state, reason, w_.exit_code ? std::to_string(*w_.exit_code) : std::string("unknown"),
                           or_none(wl.cluster_queue), wl.requeue_count, or_none(node_list)));
    for (const auto& c : wl.conditions)
      add(c.time.value_or(fate_), fmt::format("kueue workload {} condition {} status {} reason {} message {}", w_.id, c.type,
                                              or_none(c.status, "Unknown"), or_none(c.reason, "None"), quoted(c.message)));
    const KubeCondition* evicted = condition(wl, "Evicted");
    Micros unhealthy_at = evicted && evicted->reason == "NodeFailures" && evicted->time ? *evicted->time : fate_;
    for (const auto& n : wl.unhealthy_nodes)
      add(unhealthy_at, fmt::format("kueue workload {} unhealthy_node {}", w_.id, short_node(n)));
  }

  // A pod's container terminations, disruption and phase; the pod joins the workload's pods.
  void pod(const KubePod& p) {
    std::string node = or_none(short_node(p.node));
    node_of_pod_[p.name] = node;
    std::string pid = p.ns + "/" + p.name;
    std::optional<Micros> pod_last;
    for (const auto& c : p.statuses)
      for (const auto& [t, instance] : {std::pair{c.last ? &*c.last : nullptr, "previous"},
                                        std::pair{c.terminated ? &*c.terminated : nullptr, "current"}}) {
        if (!t) continue;
        Micros at = t->finished.value_or(t->started.value_or(fate_));
        pod_last = std::max(pod_last.value_or(at), at);
        std::string line = fmt::format("kueue pod {} node {} container {} terminated reason {} exit_code {}", pid, node,
                                       c.name, or_none(t->reason, "None"), t->exit_code);
        if (t->signal) line += fmt::format(" signal {}", *t->signal);
        add(at, line + fmt::format(" restarts {} instance {}", c.restarts, instance));
      }
    for (const auto& c : p.conditions)
      if (c.type == "DisruptionTarget")
        add(c.time.value_or(pod_last.value_or(fate_)),
            fmt::format("kueue pod {} node {} condition {} status {} reason {} message {}", pid, node, c.type,
                        or_none(c.status, "Unknown"), or_none(c.reason, "None"), quoted(c.message)));
    if (!p.reason.empty())
      add(pod_last.value_or(fate_), fmt::format("kueue pod {} node {} phase {} reason {} message {}", pid, node,
                                                or_none(p.phase, "Unknown"), p.reason, quoted(p.message)));
    Workload::Pod wp{p.ns, p.name, short_node(p.node), p.containers, {}};
    for (const auto& c : p.statuses) {
      if (p.containers.empty()) wp.containers.push_back(c.name);  // a pod list without spec
      if (c.restarts > 0) wp.restarted.push_back(c.name);
    }
    w_.pods.push_back(std::move(wp));
  }

  void event(const KubeEvent& e) {
    std::string node = e.kind == "Node"                                   ? short_node(e.name)
                       : e.kind == "Pod" && node_of_pod_.count(e.name) ? node_of_pod_[e.name]
                                                                        : "none";
    std::string object = e.ns.empty() ? e.name : e.ns + "/" + e.name;
    add(e.first.value_or(fate_), fmt::format("kueue event {} {} node {} type {} reason {} count {} message {}",
                                             or_none(e.kind, "Unknown"), object, node, or_none(e.type, "Normal"),
                                             or_none(e.reason, "None"), e.count, quoted(e.message)));
  }

 private:
  void add(Micros t, std::string text) { w_.facts.push_back(SchedulerFact{t, format_rfc3339(t) + " " + text, origin_}); }

  Workload& w_;
  const std::string& origin_;
  Micros fate_;
  std::map<std::string, std::string> node_of_pod_;
};

}  // namespace

Workload workload_from_kueue(const KueueWorkload& wl, const std::vector<KubePod>& pods_in,
                             const std::vector<KubeEvent>& events, const std::string& origin, Micros now) {
  Workload w;
  std::vector<KubePod> pods = pods_in;
  std::sort(pods.begin(), pods.end(), [](const KubePod& a, const KubePod& b) { return a.name < b.name; });
  w.id = wl.ns + "/" + wl.name;
  w.scheduler = "kueue";
  // formats.md knows v1beta1 and v1beta2; another version is read where its fields are found.
  if (!wl.api_version.empty() && wl.api_version != "kueue.x-k8s.io/v1beta1" && wl.api_version != "kueue.x-k8s.io/v1beta2")
    w.problems.push_back(fmt::format("{}: apiVersion {} is not one this version knows (kueue.x-k8s.io/v1beta1, "
                                     "v1beta2); fields were read where they were found",
                                     origin, wl.api_version));
  if (pods_in.empty()) w.problems.push_back(fmt::format("{}: no pods found for the workload", origin));
  const KubeOwnerRef* owner = owner_of(wl);
  w.name = owner ? owner->name : wl.name;
  std::set<std::string> nodes;
  for (const auto& p : pods)
    if (!p.node.empty()) nodes.insert(short_node(p.node));
  w.nodes.assign(nodes.begin(), nodes.end());
  set_window(w, wl, pods);
  std::string reason = set_state(w, wl);

  KueueFacts facts(w, origin, w.end.value_or(now));
  facts.workload(wl, reason);
  for (const auto& p : pods) facts.pod(p);
  for (const auto& e : events) facts.event(e);
  std::stable_sort(w.facts.begin(), w.facts.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  return w;
}

namespace {

struct Api {
  HttpClient& http;
  const KubeAccess& access;
  std::vector<std::string> tried;  // for the error when nothing is found

  // GET that turns refusals into config errors and no answer into an input error.
  Result<HttpResponse> get(const std::string& path) {
    auto r = kube_get(http, access, path);
    if (!r) {
      if (is_tls_failure(r.error().message))
        return make_error(ErrorKind::input,
                          fmt::format("cannot talk to the Kubernetes API server ({}): {}", access.server, r.error().message),
                          access.server + path, 0, "kueue.ca_file",
                          "name the cluster's CA in the kubeconfig (certificate-authority) or in [kueue] ca_file");
      return make_error(ErrorKind::input,
                        fmt::format("no answer from the Kubernetes API server ({}): {}", access.server, r.error().message),
                        access.server + path, 0, "kueue.timeout",
                        "check that the server is reachable from here; a slow server needs a longer [kueue] timeout");
    }
    if (r->status == 401 || r->status == 403) return kube_refused(*r, access.server + path, access, "kueue");
    return r;
  }
};

std::string said(const HttpResponse& r) {
  if (auto st = parse_kube_status(r.body); st && !st->message.empty()) return fmt::format("HTTP {}: {}", r.status, st->message.substr(0, 200));
  return fmt::format("HTTP {}", r.status);
}

// The workload named, or the newest one owned by an object of that name; nullopt when this API
// version does not know it (`served` false when the version is not served at all).
Result<std::optional<KueueWorkload>> find_workload(Api& api, const std::string& version, const KueueJobSpec& spec,
                                                   bool& served) {
  std::string base = fmt::format("/apis/kueue.x-k8s.io/{}/namespaces/{}/workloads", version, spec.ns);
  auto r = api.get(base + "/" + spec.name);
  if (!r) return r.error();
  if (r->status == 200) {
    auto wl = parse_kueue_workload(r->body, api.access.server + base + "/" + spec.name);
    if (!wl) return wl.error();
    return std::optional<KueueWorkload>(std::move(wl.value()));
  }
  if (r->status != 404) api.tried.push_back(fmt::format("GET {}/{}: {}", base, spec.name, said(*r)));
  auto l = api.get(base);
  if (!l) return l.error();
  if (l->status == 404) {
    served = false;
    api.tried.push_back(fmt::format("GET {}: {} (kueue.x-k8s.io/{} not served)", base, said(*l), version));
    return std::optional<KueueWorkload>();
  }
  served = true;
  if (l->status != 200) {
    api.tried.push_back(fmt::format("GET {}: {}", base, said(*l)));
    return std::optional<KueueWorkload>();
  }
  auto list = parse_kueue_workload_list(l->body, api.access.server + base);
  if (!list) return list.error();
  const KueueWorkload* best = nullptr;
  for (const auto& wl : *list)
    for (const auto& o : wl.owners)
      if (o.name == spec.name && (!best || wl.created.value_or(0) > best->created.value_or(0) ||
                                  (wl.created == best->created && wl.name > best->name)))
        best = &wl;
  if (!best) {
    api.tried.push_back(fmt::format("GET {}: no workload named {} or owned by an object named {}", base, spec.name, spec.name));
    return std::optional<KueueWorkload>();
  }
  return std::optional<KueueWorkload>(*best);
}

Result<std::vector<KubePod>> find_pods(Api& api, const KueueWorkload& wl) {
  const KubeOwnerRef* owner = owner_of(wl);
  if (!owner) return std::vector<KubePod>{};  // a workload created on its own has no pods to find
  std::string base = fmt::format("/api/v1/namespaces/{}/pods", wl.ns);
  if (owner->kind == "Pod") {  // Kueue's plain-pod integration: the pod owns its workload
    auto r = api.get(base + "/" + owner->name);
    if (!r) return r.error();
    if (r->status != 200) return std::vector<KubePod>{};
    auto p = parse_pod(r->body, api.access.server + base + "/" + owner->name);
    if (!p) return p.error();
    return std::vector<KubePod>{*p};
  }
  std::vector<std::string> selectors = pod_selectors(owner->kind, owner->name);
  selectors.push_back("");  // last resort: every pod of the namespace, kept by owner or label value
  for (const auto& sel : selectors) {
    std::string path = sel.empty() ? base : base + "?labelSelector=" + url_encode(sel);
    auto r = api.get(path);
    if (!r) return r.error();
    if (r->status != 200) {
      api.tried.push_back(fmt::format("GET {}: {}", path, said(*r)));
      continue;
    }
    auto pods = parse_pod_list(r->body, api.access.server + path);
    if (!pods) return pods.error();
    if (sel.empty()) {
      std::erase_if(*pods, [&](const KubePod& p) {
        for (const auto& o : p.owners)
          if (o.name == owner->name) return false;
        for (const auto& [k, v] : p.labels)
          if (v == owner->name && (k.find("job-name") != std::string::npos || k.find("jobset-name") != std::string::npos))
            return false;
        return true;
      });
    }
    if (!pods->empty()) return pods;
  }
  return std::vector<KubePod>{};
}

// Events are best effort: the API server keeps them about an hour, and reading node events needs
// access to the "default" namespace, which a namespaced identity may not have.
std::vector<KubeEvent> find_events(Api& api, const std::vector<KubePod>& pods) {
  std::vector<KubeEvent> out;
  std::set<std::string> nodes;
  for (const auto& p : pods) {
    if (!p.node.empty()) nodes.insert(p.node);
    std::string path = fmt::format("/api/v1/namespaces/{}/events?fieldSelector={}", p.ns, url_encode("involvedObject.name=" + p.name));
    auto r = kube_get(api.http, api.access, path);
    if (!r || r->status != 200) continue;
    if (auto ev = parse_event_list(r->body, path))
      for (auto& e : *ev)
        if (e.kind.empty() || e.kind == "Pod") out.push_back(std::move(e));
  }
  if (nodes.empty()) return out;
  std::string path = "/api/v1/namespaces/default/events?fieldSelector=" + url_encode("involvedObject.kind=Node");
  auto r = kube_get(api.http, api.access, path);
  if (r && r->status == 200)
    if (auto ev = parse_event_list(r->body, path))
      for (auto& e : *ev)
        if (nodes.count(e.name)) out.push_back(std::move(e));
  return out;
}

}  // namespace

Result<Workload> resolve_kueue_workload(const std::string& job, HttpClient& http, const KubeAccess& access,
                                        const KueueResolveOptions& opt) {
  auto spec = parse_kueue_job(job);
  if (!spec) return spec.error();
  if (spec->ns.empty()) spec->ns = !opt.ns.empty() ? opt.ns : !access.ns.empty() ? access.ns : "default";
  Api api{http, access, {}};
  std::vector<std::string> versions = opt.api == "auto" || opt.api.empty() ? std::vector<std::string>{"v1beta2", "v1beta1"}
                                                                            : std::vector<std::string>{opt.api};
  std::optional<KueueWorkload> wl;
  std::string origin;
  bool any_served = false;
  for (const auto& v : versions) {
    bool served = true;
    auto found = find_workload(api, v, *spec, served);
    if (!found) return found.error();
    any_served = any_served || served;
    if (*found) {
      wl = std::move(**found);
      origin = fmt::format("GET {}/apis/kueue.x-k8s.io/{}/namespaces/{}/workloads/{}", access.server, v, spec->ns, wl->name);
      break;
    }
  }
  if (!wl) {
    std::string why;
    for (const auto& t : api.tried) why += "\n  " + t;
    return make_error(ErrorKind::no_data,
                      fmt::format("Kueue knows no workload {}/{} (nor one owned by a job of that name){}", spec->ns, spec->name, why),
                      {}, 0, {},
                      any_served ? "check the name and namespace (`kubectl get workloads -n NS`); finished workloads may have been deleted"
                                 : "the API server serves no kueue.x-k8s.io workloads: is Kueue installed? ([kueue] api)");
  }
  auto pods = find_pods(api, *wl);
  if (!pods) return pods.error();
  std::vector<KubeEvent> events = find_events(api, *pods);
  return workload_from_kueue(*wl, *pods, events, origin, opt.now);
}

}  // namespace attribution

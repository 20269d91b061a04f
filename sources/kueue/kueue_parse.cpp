#include "sources/kueue/kueue_parse.hpp"

#include <fmt/format.h>
#include <simdjson.h>

namespace attribution {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Templates: `e` is an element or a lookup result (simdjson_result), so a missing member anywhere
// in a chain reads as absent instead of throwing.
template <class E>
std::string str(E e, std::string_view key) {
  std::string_view s;
  if (e[key].get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  return {};
}

template <class E>
std::optional<int64_t> integer(E e, std::string_view key) {
  int64_t i;
  if (e[key].get_int64().get(i) == simdjson::SUCCESS) return i;
  return std::nullopt;
}

template <class E>
std::optional<Micros> time_at(E e, std::string_view key) {
  std::string_view s;
  if (e[key].get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  return parse_kube_time(s);
}

template <class E>
std::vector<element> items_of(E e, std::string_view key) {
  std::vector<element> out;  // a default dom::array is not iterable: copy the elements out
  array a;
  if (e[key].get_array().get(a) == simdjson::SUCCESS)
    for (element x : a) out.push_back(x);
  return out;
}

std::vector<KubeOwnerRef> owners(element obj) {
  std::vector<KubeOwnerRef> out;
  for (element o : items_of(obj["metadata"], "ownerReferences")) {
    bool controller = false;
    if (o["controller"].get_bool().get(controller) != simdjson::SUCCESS) controller = false;
    out.push_back(KubeOwnerRef{str(o, "kind"), str(o, "name"), str(o, "uid"), controller});
  }
  return out;
}

template <class E>
std::vector<KubeCondition> conditions(E status) {
  std::vector<KubeCondition> out;
  for (element c : items_of(status, "conditions"))
    out.push_back(KubeCondition{str(c, "type"), str(c, "status"), str(c, "reason"), str(c, "message"),
                                time_at(c, "lastTransitionTime")});
  return out;
}

template <class E>
std::optional<KubeTermination> termination(E state) {
  element t;
  if (state["terminated"].get(t) != simdjson::SUCCESS || t.type() != simdjson::dom::element_type::OBJECT)
    return std::nullopt;
  KubeTermination k;
  k.reason = str(t, "reason");
  k.message = str(t, "message");
  k.exit_code = static_cast<int>(integer(t, "exitCode").value_or(0));
  if (auto s = integer(t, "signal")) k.signal = static_cast<int>(*s);
  k.started = time_at(t, "startedAt");
  k.finished = time_at(t, "finishedAt");
  return k;
}

Result<element> parse_doc(simdjson::dom::parser& parser, std::string_view json, const std::string& from,
                          const char* what) {
  element doc;
  if (auto err = parser.parse(json.data(), json.size()).get(doc))
    return make_error(ErrorKind::input, fmt::format("{} is not JSON ({})", what, simdjson::error_message(err)), from);
  if (doc.type() != simdjson::dom::element_type::OBJECT)
    return make_error(ErrorKind::input, fmt::format("{} is not a JSON object", what), from);
  return doc;
}

KueueWorkload workload(element w) {
  KueueWorkload k;
  k.api_version = str(w, "apiVersion");
  auto md = w["metadata"];
  k.ns = str(md, "namespace");
  k.name = str(md, "name");
  k.uid = str(md, "uid");
  k.created = time_at(md, "creationTimestamp");
  k.owners = owners(w);
  k.queue_name = str(w["spec"], "queueName");
  auto status = w["status"];
  k.cluster_queue = str(status["admission"], "clusterQueue");
  for (element a : items_of(status["admission"], "podSetAssignments"))
    k.pod_sets.push_back(KueuePodSet{str(a, "name"), integer(a, "count").value_or(0)});
  if (k.pod_sets.empty())
    for (element p : items_of(w["spec"], "podSets")) k.pod_sets.push_back(KueuePodSet{str(p, "name"), integer(p, "count").value_or(0)});
  k.conditions = conditions(status);
  for (element n : items_of(status, "unhealthyNodes")) {
    std::string name = str(n, "name");
    if (!name.empty()) k.unhealthy_nodes.push_back(name);
  }
  k.requeue_count = integer(status["requeueState"], "count").value_or(0);
  return k;
}

KubePod pod(element p) {
  KubePod k;
  auto md = p["metadata"];
  k.ns = str(md, "namespace");
  k.name = str(md, "name");
  object labels;
  if (md["labels"].get_object().get(labels) == simdjson::SUCCESS)
    for (auto [key, v] : labels) {
      std::string_view s;
      if (v.get_string().get(s) == simdjson::SUCCESS) k.labels.emplace_back(std::string(key), std::string(s));
    }
  k.owners = owners(p);
  k.node = str(p["spec"], "nodeName");
  for (element c : items_of(p["spec"], "containers")) k.containers.push_back(str(c, "name"));
  auto status = p["status"];
  k.phase = str(status, "phase");
  k.reason = str(status, "reason");
  k.message = str(status, "message");
  k.start = time_at(status, "startTime");
  k.conditions = conditions(status);
  for (element c : items_of(status, "containerStatuses")) {
    KubeContainer kc;
    kc.name = str(c, "name");
    kc.restarts = integer(c, "restartCount").value_or(0);
    kc.waiting_reason = str(c["state"]["waiting"], "reason");
    kc.running_since = time_at(c["state"]["running"], "startedAt");
    kc.terminated = termination(c["state"]);
    kc.last = termination(c["lastState"]);
    k.statuses.push_back(std::move(kc));
  }
  return k;
}

}  // namespace

std::optional<Micros> parse_kube_time(std::string_view text) {
  if (text.size() < 19) return std::nullopt;  // a date and a time, at least
  size_t used = 0;
  auto c = parse_iso8601(text, &used);
  if (!c || used != text.size() || c->year == 0) return std::nullopt;
  return civil_to_micros_utc(*c) - Micros(c->utc_offset_s.value_or(0)) * kMicrosPerSecond;
}

Result<KueueWorkload> parse_kueue_workload(std::string_view json, const std::string& from) {
  simdjson::dom::parser parser;
  auto doc = parse_doc(parser, json, from, "the Workload");
  if (!doc) return doc.error();
  if (str(*doc, "kind") != "Workload")
    return make_error(ErrorKind::input, fmt::format("expected a Kueue Workload, got kind '{}'", str(*doc, "kind")), from);
  return workload(*doc);
}

Result<std::vector<KueueWorkload>> parse_kueue_workload_list(std::string_view json, const std::string& from) {
  simdjson::dom::parser parser;
  auto doc = parse_doc(parser, json, from, "the Workload list");
  if (!doc) return doc.error();
  array items;
  if ((*doc)["items"].get_array().get(items) != simdjson::SUCCESS) {
    if ((*doc)["items"].is_null()) return std::vector<KueueWorkload>{};  // an empty list is "items": null at times
    return make_error(ErrorKind::input, "the Workload list has no items array", from);
  }
  std::vector<KueueWorkload> out;
  for (element w : items) {
    out.push_back(workload(w));
    if (out.back().api_version.empty()) out.back().api_version = str(*doc, "apiVersion");
  }
  return out;
}

Result<std::vector<KubePod>> parse_pod_list(std::string_view json, const std::string& from) {
  simdjson::dom::parser parser;
  auto doc = parse_doc(parser, json, from, "the pod list");
  if (!doc) return doc.error();
  array items;
  if ((*doc)["items"].get_array().get(items) != simdjson::SUCCESS) {
    if ((*doc)["items"].is_null()) return std::vector<KubePod>{};
    return make_error(ErrorKind::input, "the pod list has no items array", from);
  }
  std::vector<KubePod> out;
  for (element p : items) out.push_back(pod(p));
  return out;
}

Result<KubePod> parse_pod(std::string_view json, const std::string& from) {
  simdjson::dom::parser parser;
  auto doc = parse_doc(parser, json, from, "the pod");
  if (!doc) return doc.error();
  if (str(*doc, "kind") != "Pod") return make_error(ErrorKind::input, "expected a Pod", from);
  return pod(*doc);
}

Result<std::vector<KubeEvent>> parse_event_list(std::string_view json, const std::string& from) {
  simdjson::dom::parser parser;
  auto doc = parse_doc(parser, json, from, "the event list");
  if (!doc) return doc.error();
  array items;
  if ((*doc)["items"].get_array().get(items) != simdjson::SUCCESS) {
    if ((*doc)["items"].is_null()) return std::vector<KubeEvent>{};
    return make_error(ErrorKind::input, "the event list has no items array", from);
  }
  std::vector<KubeEvent> out;
  for (element e : items) {
    KubeEvent k;
    auto io = e["involvedObject"];
    k.kind = str(io, "kind");
    k.ns = str(io, "namespace");
    k.name = str(io, "name");
    k.type = str(e, "type");
    k.reason = str(e, "reason");
    k.message = str(e, "message");
    k.source_host = str(e["source"], "host");
    k.count = integer(e, "count").value_or(0);
    if (k.count == 0) k.count = integer(e["series"], "count").value_or(1);
    // Old-style events fill first/lastTimestamp; events.k8s.io-created ones only eventTime (+series).
    k.first = time_at(e, "firstTimestamp");
    if (!k.first) k.first = time_at(e, "eventTime");
    k.last = time_at(e, "lastTimestamp");
    if (!k.last) k.last = time_at(e["series"], "lastObservedTime");
    if (!k.last) k.last = k.first;
    if (!k.first) k.first = k.last;
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace attribution

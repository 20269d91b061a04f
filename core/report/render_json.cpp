#include "core/base/json_writer.hpp"
#include "core/report/render.hpp"

namespace attribution {
namespace {

void time_or_null(JsonWriter& j, std::string_view key, std::optional<Micros> t) {
  j.key(key);
  if (t && *t != kTimeUnknown) j.value(format_rfc3339(*t));
  else j.null();
}

void string_list(JsonWriter& j, std::string_view key, const std::vector<std::string>& v) {
  j.key(key).begin_array();
  for (const auto& s : v) j.value(s);
  j.end_array();
}

void int_list(JsonWriter& j, std::string_view key, const std::vector<int>& v) {
  j.key(key).begin_array();
  for (int x : v) j.value(x);
  j.end_array();
}

void int_or_null(JsonWriter& j, std::string_view key, int v) {
  j.key(key);
  if (v >= 0) j.value(v);
  else j.null();
}

}  // namespace

void write_workload_fields(JsonWriter& j, const Workload& w) {
  j.field("id", w.id).field("scheduler", w.scheduler);
  j.key("name").string_or_null(w.name);
  j.key("user").string_or_null(w.user);
  j.key("state").string_or_null(w.state);
  j.key("exit_code");
  if (w.exit_code) j.value(*w.exit_code);
  else j.null();
  j.key("exit_signal");
  if (w.exit_signal) j.value(*w.exit_signal);
  else j.null();
  string_list(j, "nodes", w.nodes);
  time_or_null(j, "start", w.start);
  time_or_null(j, "end", w.end);
  j.key("window").begin_object();
  time_or_null(j, "start", w.window_known ? std::optional<Micros>(w.window.start) : std::nullopt);
  time_or_null(j, "end", w.window_known ? std::optional<Micros>(w.window.end) : std::nullopt);
  j.end_object();
}

namespace {

void write_outcome(JsonWriter& j, const Outcome& o) {
  j.key("outcome").begin_object();
  j.field("category", o.category).field("family", o.family).field("blame", to_string(o.blame));
  j.field("summary", o.summary).field("confidence", to_string(o.confidence)).field("action", o.action);
  string_list(j, "exclude_nodes", o.exclude_nodes);
  string_list(j, "caveats", o.caveats);
  j.end_object();
}

void write_root_cause(JsonWriter& j, const ReportRootCause& rc) {
  j.begin_object();
  j.field("id", rc.id).field("rule", rc.rule).field("title", rc.title).field("category", rc.category);
  j.field("family", rc.family).field("blame", to_string(rc.blame)).field("confidence", to_string(rc.confidence));
  j.field("action", rc.action);
  j.key("host").string_or_null(rc.host);
  int_or_null(j, "gpu", rc.gpu);
  j.key("pci").string_or_null(rc.pci);
  int_or_null(j, "rank", rc.rank);
  j.key("pid");
  if (rc.pid >= 0) j.value(rc.pid);
  else j.null();
  j.key("process").string_or_null(rc.process);
  j.key("message").string_or_null(rc.message);
  time_or_null(j, "first_seen", rc.first_seen);
  time_or_null(j, "last_seen", rc.last_seen);
  j.key("time_inferred").value(rc.time_inferred);
  j.key("count").value(rc.count);
  j.key("explains").value(rc.explains);
  j.key("localised").value(rc.localised);
  j.key("detail").string_or_null(rc.detail);
  string_list(j, "evidence", rc.evidence);
  j.end_object();
}

void write_symptom(JsonWriter& j, const ReportSymptom& s) {
  j.begin_object();
  j.field("rule", s.rule).field("title", s.title).field("role", s.role);
  string_list(j, "hosts", s.hosts);
  int_list(j, "ranks", s.ranks);
  j.key("count").value(s.count);
  time_or_null(j, "first_seen", s.first_seen);
  j.key("time_inferred").value(s.time_inferred);
  j.key("explained_by").string_or_null(s.explained_by);
  j.key("why").string_or_null(s.why);
  string_list(j, "evidence", s.evidence);
  j.end_object();
}

void write_node(JsonWriter& j, const AffectedNode& n) {
  j.begin_object();
  j.field("host", n.host).field("role", n.role);
  string_list(j, "gpus", n.gpus);
  int_list(j, "ranks", n.ranks);
  j.key("findings").value(n.findings);
  j.end_object();
}

void write_evidence(JsonWriter& j, const ReportEvidence& e) {
  j.begin_object();
  j.field("id", e.id);
  time_or_null(j, "time", e.time);
  j.key("time_inferred").value(e.time_inferred);
  j.field("source", e.source);
  j.key("host").string_or_null(e.host);
  int_or_null(j, "rank", e.rank);
  j.field("location", e.location).field("text", e.text);
  j.key("captures").begin_object();
  for (const auto& [k, v] : e.captures) j.field(k, v);
  j.end_object();
  j.end_object();
}

void write_source(JsonWriter& j, const SourceCoverage& s) {
  j.begin_object();
  j.field("name", s.name).field("kind", s.kind).field("status", to_string(s.status));
  j.key("reason").string_or_null(s.reason);
  j.key("records").value(s.records);
  j.key("bytes").value(s.bytes);
  j.key("files").value(s.files);
  string_list(j, "hosts_covered", s.hosts_covered);
  j.key("hosts_expected").value(s.hosts_expected);
  string_list(j, "problems", s.problems);
  j.end_object();
}

void write_limits(JsonWriter& j, const Limits& l) {
  j.key("limits").begin_object();
  for (auto [k, v] : {std::pair{"evidence_text_bytes", l.evidence_text_bytes}, {"evidence_per_finding", l.evidence_per_finding},
                      {"evidence_per_symptom", l.evidence_per_symptom}, {"findings", l.findings},
                      {"findings_per_file", l.findings_per_file}, {"texts_cut", l.texts_cut},
                      {"lines_not_kept", l.lines_not_kept}})
    j.key(k).value(v);
  j.end_object();
}

// An array of `items`, each written by `write`.
template <class T, class F>
void array_of(JsonWriter& j, const char* key, const std::vector<T>& items, F write) {
  j.key(key).begin_array();
  for (const auto& item : items) write(j, item);
  j.end_array();
}

}  // namespace

std::string render_json(const Report& r) {
  JsonWriter j;
  j.begin_object();
  j.field("schema_version", kSchemaVersion);
  j.key("tool").begin_object().field("name", "attribution").field("version", r.tool_version).end_object();
  j.key("workload").begin_object();
  write_workload_fields(j, r.workload);
  j.end_object();
  write_outcome(j, r.outcome);
  array_of(j, "root_causes", r.root_causes, write_root_cause);
  array_of(j, "symptoms", r.symptoms, write_symptom);
  array_of(j, "affected_nodes", r.affected_nodes, write_node);
  array_of(j, "evidence", r.evidence, write_evidence);
  array_of(j, "unread", r.unread, write_evidence);  // empty unless no root cause was found
  array_of(j, "sources", r.sources, write_source);
  write_limits(j, r.limits);
  j.key("ruleset").begin_object();
  j.key("rules").value(r.rule_count);
  j.field("digest", r.ruleset_digest);
  j.end_object();
  j.field("inputs_digest", r.inputs_digest);
  j.end_object();
  return j.take();
}

}  // namespace attribution

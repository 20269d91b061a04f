#include "core/pipeline/config.hpp"

#include <filesystem>
#include <fmt/format.h>

#include "core/base/duration.hpp"
#include "core/base/toml_util.hpp"

namespace attribution {
namespace fs = std::filesystem;

namespace {

Status parse_workload(const TomlReader& r, Config& c) {
  if (auto st = r.only_keys({"scheduler", "static", "before", "after", "timezone"}); !st) return st;
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("scheduler"));
  if (s) {
    if (*s != "static" && *s != "slurm" && *s != "kueue" && *s != "none")
      return r.error("scheduler", fmt::format("scheduler '{}' is not one of slurm, kueue, static, none", *s));
    c.scheduler = *s;
  }
  ATTRIBUTION_TRY(s, r.str("static"));
  if (s) c.static_file = *s;
  for (auto [key, out] : {std::pair{"before", &c.before}, std::pair{"after", &c.after}}) {
    ATTRIBUTION_TRY(s, r.str(key));
    if (!s) continue;
    auto d = parse_duration(*s);
    if (!d) return r.error(key, d.error().message, d.error().hint);
    *out = *d;
  }
  ATTRIBUTION_TRY(s, r.str("timezone"));
  if (s) {
    auto tz = TimeZone::parse(*s);
    if (!tz) return r.error("timezone", tz.error().message, tz.error().hint);
    c.timezone = *tz;
  }
  if (c.scheduler == "static" && c.static_file.empty())
    return r.error("static", "scheduler = \"static\" needs static = \"FILE\" naming the workload file");
  return Ok{};
}

// [kueue] and the kubernetes source share the credential keys (docs/kubernetes.md).
Status parse_kube_keys(const TomlReader& r, std::string& ns, std::string& kubeconfig, std::string& context,
                       std::string& ca_file, std::optional<bool>& in_cluster, Micros& timeout) {
  for (auto [key, out] : {std::pair{"namespace", &ns}, std::pair{"kubeconfig", &kubeconfig},
                          std::pair{"context", &context}, std::pair{"ca_file", &ca_file}}) {
    std::optional<std::string> v;
    ATTRIBUTION_TRY(v, r.str(key));
    if (v) *out = *v;
  }
  if (const toml::node* b = r.table().get("in_cluster")) {
    if (!b->is_boolean()) return r.error("in_cluster", "in_cluster is true or false");
    in_cluster = b->value<bool>();
  }
  std::optional<std::string> t;
  ATTRIBUTION_TRY(t, r.str("timeout"));
  if (t) {
    auto d = parse_duration(*t);
    if (!d || *d <= 0) return r.error("timeout", fmt::format("'{}' is not a positive duration", *t));
    timeout = *d;
  }
  return Ok{};
}

Status parse_kueue(const TomlReader& r, KueueConfig& k) {
  if (auto st = r.only_keys({"namespace", "kubeconfig", "context", "in_cluster", "api", "timeout", "ca_file"}); !st)
    return st;
  k.line = r.line();
  std::optional<bool> in_cluster;
  if (auto st = parse_kube_keys(r, k.ns, k.kubeconfig, k.context, k.ca_file, in_cluster, k.timeout); !st) return st;
  k.in_cluster = in_cluster.value_or(false);
  std::optional<std::string> api;
  ATTRIBUTION_TRY(api, r.str("api"));
  if (api) {
    if (*api != "v1beta2" && *api != "v1beta1" && *api != "auto")
      return r.error("api", fmt::format("api '{}' is not one of v1beta2, v1beta1, auto", *api));
    k.api = *api;
  }
  return Ok{};
}

Status parse_slurm(const TomlReader& r, SlurmConfig& s) {
  if (auto st = r.only_keys({"mode", "url", "token_env", "token_file", "user", "api", "ca_file", "timeout"}); !st)
    return st;
  s.line = r.line();
  for (auto [key, out] : {std::pair{"mode", &s.mode}, std::pair{"url", &s.url}, std::pair{"token_env", &s.token_env},
                          std::pair{"token_file", &s.token_file}, std::pair{"user", &s.user}, std::pair{"api", &s.api},
                          std::pair{"ca_file", &s.ca_file}}) {
    std::optional<std::string> v;
    ATTRIBUTION_TRY(v, r.str(key));
    if (v) *out = *v;
  }
  std::optional<std::string> t;
  ATTRIBUTION_TRY(t, r.str("timeout"));
  if (t) {
    auto d = parse_duration(*t);
    if (!d || *d <= 0) return r.error("timeout", fmt::format("'{}' is not a positive duration", *t));
    s.timeout = *d;
  }
  if (s.mode != "cli" && s.mode != "rest") return r.error("mode", fmt::format("mode '{}' is not one of cli, rest", s.mode));
  if (s.mode == "rest" && s.url.empty()) return r.error("url", "mode = \"rest\" needs url = \"http://slurmrestd:6820\"");
  if (!s.api.empty() && s.api.rfind("v0.0.", 0) != 0) return r.error("api", "api is a data parser version like v0.0.40");
  return Ok{};
}

// A source's `stream`: which rules read its lines. Pod logs cannot be the scheduler's account.
Status parse_stream(const TomlReader& r, std::string& stream, bool scheduler_allowed) {
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("stream"));
  if (!s) return Ok{};
  if (*s != "applog" && *s != "syslog" && (!scheduler_allowed || *s != "scheduler"))
    return r.error("stream", fmt::format("stream '{}' is not one of applog, syslog{}", *s,
                                         scheduler_allowed ? ", scheduler" : ""));
  stream = *s;
  return Ok{};
}

// The loki-only keys; the transport keys are shared with prometheus.
Status parse_loki_keys(const TomlReader& r, SourceConfig& sc) {
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("query"));
  if (s) sc.query = *s;  // empty: the adapter selects the job's hosts through the first host label
  ATTRIBUTION_TRY(s, r.str("org_id"));
  if (s) sc.org_id = *s;
  std::optional<int64_t> limit;
  ATTRIBUTION_TRY(limit, r.integer("limit"));
  if (limit) {
    if (*limit < 1 || *limit > 5000)
      return r.error("limit", fmt::format("limit {} is not between 1 and 5000", *limit),
                     "5000 is Loki's default max_entries_limit_per_query; larger requests are refused");
    sc.limit = *limit;
  }
  return parse_stream(r, sc.stream, true);
}

Result<SourceConfig> parse_source(const TomlReader& r) {
  SourceConfig sc;
  sc.line = r.line();
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("name", true));
  sc.name = *s;
  ATTRIBUTION_TRY(s, r.str("kind", true));
  sc.kind = *s;
  // Only the kinds this version reads are accepted: a source it would skip is a config error now,
  // with the way to the same data, not a surprise in the report.
  if (sc.kind == "journal")
    return r.error("kind", "source kind 'journal' is not available in this version",
                   "export the journal to a file (journalctl -o json > NODE.journal, or -o short-iso) and read it with "
                   "kind = \"files\": journald JSON and syslog lines are understood");
  if (sc.kind == "static")
    return r.error("kind", "'static' is a scheduler, not a source kind",
                   "write [workload] scheduler = \"static\" with static = \"job.toml\"");
  static const std::set<std::string> kinds = {"files", "loki", "prometheus", "kubernetes"};
  if (!kinds.count(sc.kind))
    return r.error("kind", fmt::format("source kind '{}' is not one of files, loki, prometheus, kubernetes", sc.kind));
  if (sc.kind == "prometheus" || sc.kind == "loki") {
    const bool loki = sc.kind == "loki";
    std::set<std::string> keys = {"name", "kind", "url", "host_label", "host_map", "timeout", "token_env",
                                  "token_file", "username", "password_env", "ca_file"};
    if (loki) keys.insert({"query", "org_id", "limit", "stream"});
    else keys.insert("step");
    if (auto st = r.only_keys(keys); !st) return st.error();
    for (auto [key, out] : {std::pair{"url", &sc.url}, std::pair{"token_env", &sc.token_env},
                            std::pair{"token_file", &sc.token_file}, std::pair{"username", &sc.username},
                            std::pair{"password_env", &sc.password_env}, std::pair{"ca_file", &sc.ca_file}}) {
      ATTRIBUTION_TRY(s, r.str(key));
      if (s) *out = *s;
    }
    if (sc.url.empty())
      return r.error("url", loki ? "a loki source needs url = \"http://loki:3100\""
                                 : "a prometheus source needs url = \"http://prometheus:9090\"");
    std::vector<std::string> labels;
    ATTRIBUTION_TRY(labels, r.str_list("host_label"));
    if (!labels.empty()) sc.host_labels = labels;
    else if (loki) sc.host_labels = {"host", "hostname", "node", "nodename", "instance"};  // common shipper labels
    if (loki) {
      if (auto st = parse_loki_keys(r, sc); !st) return st.error();
    }
    if (const toml::node* hm = r.table().get("host_map")) {
      const toml::table* t = hm->as_table();
      if (!t) return r.error("host_map", "host_map is a table: { \"label value\" = \"node name\" }");
      for (const auto& [k, v] : *t) {
        auto node = v.value<std::string>();
        if (!node) return r.error("host_map", "host_map values are node names (strings)");
        sc.host_map[std::string(k.str())] = *node;
      }
    }
    for (auto [key, out] : {std::pair{"step", &sc.step}, std::pair{"timeout", &sc.timeout}}) {
      ATTRIBUTION_TRY(s, r.str(key));
      if (!s) continue;
      auto d = parse_duration(*s);
      if (!d || *d <= 0) return r.error(key, fmt::format("'{}' is not a positive duration", *s));
      *out = *d;
    }
    return sc;
  }
  if (sc.kind == "kubernetes") {
    if (auto st = r.only_keys({"name", "kind", "namespace", "kubeconfig", "context", "in_cluster", "container",
                               "timeout", "ca_file", "stream"});
        !st)
      return st.error();
    if (auto st = parse_kube_keys(r, sc.kube_namespace, sc.kubeconfig, sc.context, sc.ca_file, sc.in_cluster, sc.timeout); !st)
      return st.error();
    ATTRIBUTION_TRY(sc.containers, r.str_list("container"));
    if (auto st = parse_stream(r, sc.stream, false); !st) return st.error();
    return sc;
  }
  if (sc.kind != "files") return sc;  // other kinds are validated by their own adapters
  if (auto st = r.only_keys({"name", "kind", "paths", "stream", "timezone", "boot_time", "host"}); !st) return st.error();
  ATTRIBUTION_TRY(sc.paths, r.str_list("paths"));
  if (sc.paths.empty()) return r.error("paths", "a files source needs paths = [\"...\"]");
  if (auto st = parse_stream(r, sc.stream, true); !st) return st.error();
  ATTRIBUTION_TRY(s, r.str("timezone"));
  if (s) {
    auto tz = TimeZone::parse(*s);
    if (!tz) return r.error("timezone", tz.error().message, tz.error().hint);
    sc.timezone = *tz;
  }
  ATTRIBUTION_TRY(s, r.str("boot_time"));
  if (s) {
    auto t = parse_time_value(*s, TimeZone::utc());
    if (!t) return r.error("boot_time", t.error().message, t.error().hint);
    sc.boot_time = *t;
  }
  ATTRIBUTION_TRY(s, r.str("host"));
  if (s) sc.host = *s;
  return sc;
}

}  // namespace

Result<Config> parse_config(std::string_view text, const std::string& file) {
  auto doc = parse_toml(text, file);
  if (!doc) return doc.error();
  Config c;
  c.file = file;
  c.text = std::string(text);
  fs::path dir = fs::path(file).parent_path();
  c.base_dir = dir.empty() ? fs::path(".").string() : dir.string();
  TomlReader top(*doc, file);
  if (auto st = top.only_keys({"workload", "source", "rules", "slurm", "kueue"}); !st) return st.error();
  if (const toml::table* w = (*doc)["workload"].as_table()) {
    if (auto st = parse_workload(TomlReader(*w, file, "workload"), c); !st) return st.error();
  }
  if (const toml::table* st = (*doc)["slurm"].as_table()) {
    if (auto s = parse_slurm(TomlReader(*st, file, "slurm"), c.slurm); !s) return s.error();
    if (!c.slurm.token_file.empty() && fs::path(c.slurm.token_file).is_relative())
      c.slurm.token_file = (fs::path(c.base_dir) / c.slurm.token_file).string();
  }
  if (const toml::table* kt = (*doc)["kueue"].as_table()) {
    if (auto s = parse_kueue(TomlReader(*kt, file, "kueue"), c.kueue); !s) return s.error();
  }
  if (const toml::table* rt = (*doc)["rules"].as_table()) {
    TomlReader rr(*rt, file, "rules");
    if (auto st = rr.only_keys({"paths"}); !st) return st.error();
    ATTRIBUTION_TRY(c.rule_paths, rr.str_list("paths"));
    for (auto& p : c.rule_paths)
      if (fs::path(p).is_relative()) p = (fs::path(c.base_dir) / p).string();
  }
  if (const toml::node* src = doc->get("source")) {
    const toml::array* arr = src->as_array();
    if (!arr) return top.error("source", "sources are [[source]] tables");
    std::set<std::string> names;
    size_t i = 0;
    for (const auto& el : *arr) {
      const toml::table* t = el.as_table();
      if (!t) return top.error("source", "sources are [[source]] tables");
      auto sc = parse_source(TomlReader(*t, file, fmt::format("source[{}]", i++)));
      if (!sc) return sc.error();
      if (!names.insert(sc->name).second)
        return make_error(ErrorKind::config, fmt::format("two sources are named '{}'", sc->name), file, sc->line,
                          "source.name", "give each source its own name");
      c.sources.push_back(std::move(sc.value()));
    }
  }
  // Kubernetes paths are relative to the config file; "~/..." is left for the home directory.
  auto kube_path = [&](std::string& p) {
    if (!p.empty() && p[0] != '~' && fs::path(p).is_relative()) p = (fs::path(c.base_dir) / p).string();
  };
  kube_path(c.kueue.kubeconfig);
  kube_path(c.kueue.ca_file);
  for (auto& sc : c.sources)
    if (sc.kind == "kubernetes") kube_path(sc.kubeconfig), kube_path(sc.ca_file);
  if (!c.static_file.empty() && fs::path(c.static_file).is_relative())
    c.static_file = (fs::path(c.base_dir) / c.static_file).string();
  return c;
}

Result<Config> load_config(const std::optional<std::string>& path) {
  std::vector<std::string> candidates;
  if (path) candidates = {*path};
  else candidates = {"attribution.toml", "/etc/attribution/attribution.toml"};
  for (const auto& p : candidates) {
    std::error_code ec;
    if (!path && !fs::exists(p, ec)) continue;
    if (fs::is_directory(p, ec))
      return make_error(ErrorKind::config, "is a directory, not a config file", p, 0, {}, "pass the .toml file");
    auto text = read_text_file(p);
    if (!text) return text.error();
    return parse_config(*text, p);
  }
  Config c;
  c.base_dir.assign(1, '.');  // not = ".": a GCC 12 -Wrestrict false positive
  return c;
}

}  // namespace attribution

#include "core/pipeline/config.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "core/base/text.hpp"
#include "core/base/duration.hpp"
#include "core/base/toml_util.hpp"
#include "sources/registry.hpp"

namespace attribution {
namespace fs = std::filesystem;

namespace {

std::string names_of_schedulers() {
  std::string out;
  for (const Scheduler* s : schedulers()) out += std::string(s->name()) + ", ";
  return out + "none";
}

Status parse_workload(const TomlReader& r, Config& c) {
  std::vector<std::string> keys = {"scheduler", "before", "after", "timezone"};
  for (const Scheduler* s : schedulers())
    for (const auto& k : s->workload_keys()) keys.push_back(k);
  if (auto st = r.only_keys(std::set<std::string>(keys.begin(), keys.end())); !st) return st;
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("scheduler"));
  if (s && *s != "none") {
    c.scheduler = find_scheduler(*s);
    if (!c.scheduler)
      return r.error("scheduler", fmt::format("scheduler '{}' is not one of {}", *s, names_of_schedulers()));
  }
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
  return Ok{};
}

// Only the kinds this version reads are accepted: a source it would skip is a config error now,
// with the way to the same data, not a surprise in the report.
Result<const SourceKind*> source_kind(const TomlReader& r, const std::string& name) {
  if (const SourceKind* k = find_source_kind(name)) return k;
  if (name == "journal")
    return r.error("kind", "source kind 'journal' is not available in this version",
                   "export the journal to a file (journalctl -o json > NODE.journal, or -o short-iso) and read it with "
                   "kind = \"files\": journald JSON and syslog lines are understood");
  if (find_scheduler(name))
    return r.error("kind", fmt::format("'{}' is a scheduler, not a source kind", name),
                   name == "static" ? "write [workload] scheduler = \"static\" with static = \"job.toml\""
                                    : fmt::format("write [workload] scheduler = \"{}\"", name));
  std::string kinds;
  for (const SourceKind* k : source_kinds()) kinds += (kinds.empty() ? "" : ", ") + std::string(k->name());
  return r.error("kind", fmt::format("source kind '{}' is not one of {}", name, kinds));
}

Result<SourceEntry> parse_source(const TomlReader& r, const ParseContext& context) {
  SourceEntry e;
  e.line = r.line();
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("name", true));
  e.name = *s;
  ATTRIBUTION_TRY(s, r.str("kind", true));
  ATTRIBUTION_TRY(e.kind, source_kind(r, *s));
  ATTRIBUTION_TRY(e.settings, e.kind->parse(r, context));
  return e;
}

Status parse_sources(const toml::table& doc, const TomlReader& top, const ParseContext& context, Config& c) {
  const toml::node* src = doc.get("source");
  if (!src) return Ok{};
  const toml::array* arr = src->as_array();
  if (!arr) return top.error("source", "sources are [[source]] tables");
  std::set<std::string> names;
  size_t i = 0;
  for (const auto& el : *arr) {
    const toml::table* t = el.as_table();
    if (!t) return top.error("source", "sources are [[source]] tables");
    auto e = parse_source(TomlReader(*t, context.file, fmt::format("source[{}]", i++)), context);
    if (!e) return e.error();
    if (!names.insert(e->name).second)
      return make_error(ErrorKind::config, fmt::format("two sources are named '{}'", e->name), context.file, e->line,
                        "source.name", "give each source its own name");
    c.sources.push_back(std::move(e.value()));
  }
  return Ok{};
}

Status parse_schedulers(const ParseContext& context, Config& c) {
  for (const Scheduler* s : schedulers()) {
    auto settings = s->parse(context, s == c.scheduler);
    if (!settings) return settings.error();
    c.scheduler_settings.emplace(std::string(s->name()), std::move(settings.value()));
  }
  return Ok{};
}

// [store] path = "reports.db" (relative to the config's directory) or url = "postgresql://...".
Status parse_store(const TomlReader& r, Config& c) {
  if (auto st = r.only_keys({"path", "url"}); !st) return st;
  std::optional<std::string> path, url;
  ATTRIBUTION_TRY(path, r.str("path"));
  ATTRIBUTION_TRY(url, r.str("url"));
  if (path && url) return r.error("url", "give the store a path or a url, not both");
  if (path) c.store = fs::path(*path).is_relative() ? (fs::path(c.base_dir) / *path).string() : *path;
  if (url) c.store = *url;
  return Ok{};
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
  ParseContext context{c.base_dir, &*doc, file};
  TomlReader top(*doc, file);
  std::set<std::string> sections = {"workload", "source", "rules", "store"};
  for (const Scheduler* s : schedulers())
    if (!s->section().empty()) sections.insert(std::string(s->section()));
  if (auto st = top.only_keys(sections); !st) return st.error();
  if (const toml::table* w = (*doc)["workload"].as_table()) {
    if (auto st = parse_workload(TomlReader(*w, file, "workload"), c); !st) return st.error();
  }
  if (auto st = parse_schedulers(context, c); !st) return st.error();
  if (const toml::table* rt = (*doc)["rules"].as_table()) {
    TomlReader rr(*rt, file, "rules");
    if (auto st = rr.only_keys({"paths"}); !st) return st.error();
    ATTRIBUTION_TRY(c.rule_paths, rr.str_list("paths"));
    for (auto& p : c.rule_paths)
      if (fs::path(p).is_relative()) p = (fs::path(c.base_dir) / p).string();
  }
  if (const toml::table* st = (*doc)["store"].as_table()) {
    if (auto ok = parse_store(TomlReader(*st, file, "store"), c); !ok) return ok.error();
  }
  if (auto st = parse_sources(*doc, top, context, c); !st) return st.error();
  return c;
}

Micros command_timeout(const Config& config) {
  auto settings = config.scheduler ? config.scheduler_settings.find(config.scheduler->name()) : config.scheduler_settings.end();
  if (settings == config.scheduler_settings.end()) return kDefaultCommandTimeout;
  return config.scheduler->command_timeout(*settings->second);
}

Config default_config() {
  Config c;
  c.base_dir.assign(1, '.');  // not = ".": a GCC 12 -Wrestrict false positive
  (void)parse_schedulers(ParseContext{c.base_dir, nullptr, {}}, c);  // defaults cannot fail
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
  return default_config();
}

}  // namespace attribution

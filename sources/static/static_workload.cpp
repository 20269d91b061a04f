#include "sources/static/static_workload.hpp"

#include <filesystem>

#include <cstdio>
#include <fmt/format.h>

#include "core/base/text.hpp"
#include "core/base/hostlist.hpp"
#include "core/base/toml_util.hpp"

namespace attribution {

Result<Workload> parse_static_workload(std::string_view text, const std::string& file, const TimeZone& tz) {
  auto doc = parse_toml(text, file);
  if (!doc) return doc.error();
  TomlReader r(*doc, file);
  if (auto st = r.only_keys({"id", "name", "user", "nodes", "start", "end", "state", "exit_code", "tasks_per_node"}); !st)
    return st.error();
  Workload w;
  w.scheduler = "static";
  auto field = [&](std::string_view key, std::string& out, bool required) -> Status {
    const toml::node* n = doc->get(key);
    if (n && n->is_integer()) {  // ids are often written as numbers
      out = std::to_string(*n->value<int64_t>());
      return Ok{};
    }
    auto v = r.str(key, required);
    if (!v) return v.error();
    if (v.value()) out = **v;
    return Ok{};
  };
  if (auto st = field("id", w.id, true); !st) return st.error();
  if (auto st = field("name", w.name, false); !st) return st.error();
  if (auto st = field("user", w.user, false); !st) return st.error();
  if (auto st = field("state", w.state, false); !st) return st.error();
  // exit_code: an integer, or Slurm's "code:signal" as sacct prints it ("1:0", "0:9"): both kept.
  if (const toml::node* ec = doc->get("exit_code")) {
    if (ec->is_integer()) {  // checked first: value<int64_t>() of a float out of range is undefined
      int64_t n = *ec->value<int64_t>();
      if (n < 0 || n > 255)
        return r.error("exit_code", fmt::format("exit_code {} is not between 0 and 255", n),
                       "write the job's exit status as the scheduler reports it, e.g. exit_code = 1");
      w.exit_code = static_cast<int>(n);
    } else if (auto text = ec->value<std::string>()) {
      if (!parse_exit_status(*text, w))
        return r.error("exit_code", fmt::format("exit_code '{}' is not an integer or Slurm's \"code:signal\"", *text),
                       "write exit_code = 1, or exit_code = \"1:0\" as sacct prints it");
    } else {
      return r.error("exit_code", "exit_code is an integer or a \"code:signal\" string");
    }
  }
  auto tpn = r.integer("tasks_per_node");
  if (!tpn) return tpn.error();
  if (tpn.value()) {
    if (**tpn < 1 || **tpn > 4096) return r.error("tasks_per_node", "tasks_per_node must be between 1 and 4096");
    w.tasks_per_node = static_cast<int>(**tpn);
  }
  const toml::node* nodes = doc->get("nodes");
  if (!nodes) return r.error("nodes", "missing required key 'nodes'", "write nodes = \"node[01-04]\"");
  std::vector<std::string> exprs;
  if (auto s = nodes->value<std::string>()) exprs.push_back(*s);
  else {
    auto list = r.str_list("nodes");
    if (!list) return list.error();
    exprs = *list;
  }
  for (const auto& e : exprs) {
    auto hosts = expand_hostlist(e);
    if (!hosts) return r.error("nodes", hosts.error().message, hosts.error().hint);
    w.nodes.insert(w.nodes.end(), hosts->begin(), hosts->end());
  }
  for (auto [key, out] : {std::pair{"start", &w.start}, std::pair{"end", &w.end}}) {
    std::string s;
    if (auto st = field(key, s, key == std::string_view("start")); !st) return st.error();
    if (s.empty()) continue;
    auto t = parse_time_value(s, tz);
    if (!t) return r.error(key, t.error().message, t.error().hint);
    *out = *t;
  }
  if (w.start && w.end && *w.end < *w.start) return r.error("end", "end is before start");
  return w;
}

Result<std::shared_ptr<const SchedulerSettings>> StaticScheduler::parse(const ParseContext& context, bool selected) const {
  auto s = std::make_shared<StaticSettings>();
  const toml::table* w = context.document ? (*context.document)["workload"].as_table() : nullptr;
  if (w) {
    TomlReader r(*w, context.file, "workload");
    std::optional<std::string> file;
    ATTRIBUTION_TRY(file, r.str("static"));
    if (file) s->file = *file;
    if (selected && s->file.empty())
      return r.error("static", "scheduler = \"static\" needs static = \"FILE\" naming the workload file");
  }
  if (!s->file.empty() && std::filesystem::path(s->file).is_relative())
    s->file = (std::filesystem::path(context.base_dir) / s->file).string();
  return std::shared_ptr<const SchedulerSettings>(std::move(s));
}

Result<Workload> StaticScheduler::resolve(const SchedulerRequest& req, const SchedulerSettings& settings,
                                          const Transports& transports) const {
  const auto& s = static_cast<const StaticSettings&>(settings);
  Result<std::string> text = transports.files ? transports.files->read_text(s.file) : read_text_file(s.file);
  if (!text) return text.error();
  auto w = parse_static_workload(*text, s.file, req.zone);
  if (!w) return w.error();
  if (!req.job.empty() && req.job != w->id)
    return make_error(ErrorKind::usage, fmt::format("--job {} does not match the static workload's id {}", req.job, w->id),
                      s.file, 0, "id", "omit --job, or pass the id the workload file declares");
  return w;
}

}  // namespace attribution

#include "sources/static_workload.hpp"

#include <fmt/format.h>

#include "core/hostlist.hpp"
#include "core/toml_util.hpp"

namespace attribution {

Result<Workload> parse_static_workload(std::string_view text, const std::string& file, const TimeZone& tz) {
  auto doc = parse_toml(text, file);
  if (!doc) return doc.error();
  TomlReader r(*doc, file);
  if (auto st = r.only_keys({"id", "name", "user", "nodes", "start", "end", "state", "exit_code"}); !st)
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
  auto ec = r.integer("exit_code");
  if (!ec) return ec.error();
  if (ec.value()) w.exit_code = static_cast<int>(**ec);
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

Result<Workload> read_static_workload(const std::string& path, const TimeZone& tz) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_static_workload(*text, path, tz);
}

}  // namespace attribution

#include "sources/host_labels.hpp"

#include <cctype>

#include <algorithm>

#include "core/base/identity.hpp"

namespace attribution {

Status parse_host_labels(const TomlReader& r, HostLabels& out, const std::vector<std::string>& defaults) {
  ATTRIBUTION_TRY(out.host_labels, r.str_list("host_label"));
  if (out.host_labels.empty()) out.host_labels = defaults;
  if (const toml::node* hm = r.table().get("host_map")) {
    const toml::table* t = hm->as_table();
    if (!t) return r.error("host_map", "host_map is a table: { \"label value\" = \"node name\" }");
    for (const auto& [k, v] : *t) {
      auto node = v.value<std::string>();
      if (!node) return r.error("host_map", "host_map values are node names (strings)");
      out.host_map[std::string(k.str())] = *node;
    }
  }
  return Ok{};
}

std::string series_host(const std::map<std::string, std::string>& labels, const std::vector<std::string>& host_labels,
                        const std::map<std::string, std::string>& host_map) {
  for (const auto& label : host_labels) {
    auto it = labels.find(label);
    if (it == labels.end() || it->second.empty()) continue;
    std::string h = it->second;
    if (auto m = host_map.find(h); m != host_map.end()) return m->second;
    if (label == "instance" && h.rfind(':') != std::string::npos && h.find(']') == std::string::npos) h = h.substr(0, h.rfind(':'));
    if (auto m = host_map.find(h); m != host_map.end()) return m->second;
    return is_ip_address(h) ? h : h.substr(0, h.find('.'));
  }
  return {};
}

std::vector<std::string> host_label_values(const std::vector<std::string>& nodes,
                                           const std::map<std::string, std::string>& host_map) {
  std::vector<std::string> names = nodes;
  for (const auto& [value, node] : host_map)
    if (std::find(nodes.begin(), nodes.end(), node) != nodes.end()) names.push_back(value);
  return names;
}

std::string regex_alternation(const std::vector<std::string>& values) {
  std::string alt;
  for (const auto& v : values) {
    if (!alt.empty()) alt += '|';
    for (char c : v) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') alt += "\\\\";
      alt += c;
    }
  }
  return alt;
}

std::vector<std::vector<std::string>> host_groups(const std::vector<std::string>& values) {
  std::vector<std::vector<std::string>> out;
  for (size_t i = 0; i < values.size(); i += kHostsPerQuery)
    out.emplace_back(values.begin() + static_cast<std::ptrdiff_t>(i),
                     values.begin() + static_cast<std::ptrdiff_t>(std::min(values.size(), i + kHostsPerQuery)));
  return out;
}

}  // namespace attribution

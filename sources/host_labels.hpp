#pragma once
// Labels that name a series' or a stream's host (Prometheus, Loki), and label values mapped to
// node names (an exporter pod's name -> the node it runs on).
#include <map>
#include <string>
#include <vector>

#include "core/base/toml_util.hpp"

namespace attribution {

struct HostLabels {
  std::vector<std::string> host_labels;
  std::map<std::string, std::string> host_map;  // label value -> node name
};

// `host_label = [...]` (else `defaults`) and `host_map = { "value" = "node" }`.
Status parse_host_labels(const TomlReader& r, HostLabels& out, const std::vector<std::string>& defaults);

// The node a series is about: the first host label present (instance without its port, a domain
// cut off), through `host_map` when the label names something else (an exporter pod).
std::string series_host(const std::map<std::string, std::string>& labels, const std::vector<std::string>& host_labels,
                        const std::map<std::string, std::string>& host_map);

// The label values that select the job's nodes: the nodes, and the host map's values naming them.
std::vector<std::string> host_label_values(const std::vector<std::string>& nodes,
                                           const std::map<std::string, std::string>& host_map);

// The values regex-escaped for a double-quoted PromQL or LogQL string (a backslash is written
// twice there) and joined with '|'.
std::string regex_alternation(const std::vector<std::string>& values);

// The values in groups of at most kHostsPerQuery, in order: one query (or one Loki pager) per group
// keeps a 1,000-node job's URLs short and lets a source fetch groups in parallel. A job of up to
// kHostsPerQuery hosts is one group, one query.
constexpr size_t kHostsPerQuery = 64;
std::vector<std::vector<std::string>> host_groups(const std::vector<std::string>& values);

}  // namespace attribution

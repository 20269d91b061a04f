#include "core/analysis/hosts.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace attribution {
namespace {

// One setting that some hosts hold differently from the rest.
struct Difference {
  std::string what, majority_value;
  std::map<std::string, std::string> odd;  // host -> its value
  size_t majority_hosts = 0;
  std::vector<size_t> findings;
};

std::vector<Difference> differences(const Timeline& t, const RuleSet& rules) {
  // (rule, setting) -> host -> (values, first finding)
  std::map<std::pair<int, std::string>, std::map<std::string, std::pair<std::set<std::string>, size_t>>> seen;
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    if (rules.rules[f.rule].role != Role::context || f.host.empty() || !f.fields.count("value")) continue;
    auto& [values, first] = seen[{f.rule, field_of(f, "setting")}].try_emplace(f.host, std::set<std::string>{}, i).first->second;
    values.insert(field_of(f, "value"));
  }
  std::vector<Difference> out;
  for (const auto& [key, hosts] : seen) {
    if (hosts.size() < 3) continue;  // two hosts that differ: nothing says which one is odd
    std::map<std::string, std::vector<std::string>> by_value;
    for (const auto& [host, v] : hosts)
      if (v.first.size() == 1) by_value[*v.first.begin()].push_back(host);
    if (by_value.size() < 2) continue;
    auto most = std::max_element(by_value.begin(), by_value.end(),
                                 [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    if (most->second.size() * 2 <= hosts.size()) continue;  // no majority to differ from
    Difference d;
    d.what = key.second.empty() ? rules.rules[key.first].title : key.second;
    d.majority_value = most->first;
    d.majority_hosts = most->second.size();
    for (const auto& [value, hs] : by_value)
      if (value != most->first)
        for (const auto& h : hs) {
          d.odd[h] = value;
          d.findings.push_back(hosts.at(h).second);
        }
    d.findings.push_back(hosts.at(most->second.front()).second);
    if (d.odd.size() * 3 <= hosts.size()) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::optional<Localisation> host_mismatch(const Timeline& t, const RuleSet& rules) {
  std::vector<Difference> diffs = differences(t, rules);
  if (diffs.empty()) return std::nullopt;
  const Difference& d = diffs.front();
  std::vector<std::string> odd_hosts;
  for (const auto& [h, v] : d.odd) odd_hosts.push_back(h);
  Localisation l = localisation("host-mismatch", "host_configuration_mismatch", "configuration", Blame::unknown,
                                Confidence::medium);
  if (odd_hosts.size() == 1) l.host = odd_hosts.front();
  l.title = fmt::format("{} differ{} from the other {} node(s): {} is '{}' there and '{}' on the others",
                        fmt::join(odd_hosts, ", "), odd_hosts.size() == 1 ? "s" : "", d.majority_hosts, d.what,
                        d.odd.begin()->second, d.majority_value);
  std::vector<std::string> all;
  for (const Difference& x : diffs)
    for (const auto& [h, v] : x.odd) all.push_back(fmt::format("{}: {} = '{}' (others: '{}')", h, x.what, v, x.majority_value));
  l.detail = fmt::format("the ranks' own init lines disagree across nodes ({}); ranks that load a different "
                         "library, plugin or network cannot complete collectives together, and often hang without "
                         "an error",
                         fmt::join(all, "; "));
  l.action = fmt::format("Make {} match the other nodes (the same driver, NCCL and network plugin, the same NCCL_* "
                         "environment), or leave {} out of the job until it does; then rerun.",
                         fmt::join(odd_hosts, ", "), odd_hosts.size() == 1 ? "it" : "them");
  for (const Difference& x : diffs)
    for (size_t i : x.findings)
      if (l.findings.size() < 8) l.findings.push_back(i);
  return l;
}

std::optional<Localisation> init_incomplete(const Timeline& t, const RuleSet& rules) {
  std::vector<size_t> setup;
  std::set<std::string> hosts;  // "" for set-up lines that name no machine
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    const Rule& r = rules.rules[f.rule];
    // A communicator that finished init, a rank that timed out in a collective or a step report:
    // the job got past init, and whatever stopped it is not read here.
    if (r.category == "nccl_init_complete" || !f.series_head.empty()) return std::nullopt;
    if (r.role == Role::symptom && r.signal == Signal::timeout) return std::nullopt;
    if (r.category != "nccl_setup") continue;
    setup.push_back(i);
    hosts.insert(f.host);
  }
  if (setup.empty()) return std::nullopt;
  Localisation l = localisation("init-incomplete", "nccl_init_incomplete", "configuration", Blame::unknown);
  // One machine's set-up lines and no other's: the stall was seen there (a one-node job, or the one
  // node whose log there is). Several: nothing says which one stalled.
  if (hosts.size() == 1) l.host = *hosts.begin();
  std::string where = hosts.size() > 1 ? fmt::format("{} hosts", hosts.size()) : l.host.empty() ? "an unnamed host" : l.host;
  l.title = fmt::format("NCCL began setting up on {} and no communicator finished its init (no 'Init COMPLETE' line)", where);
  l.detail = "the job stopped or hung while NCCL was setting up its transports, before any collective ran: most often "
             "the environment NCCL runs in (an interface the peers cannot reach, NCCL_SOCKET_IFNAME, a firewall or "
             "closed ports between nodes, a network plugin or RDMA device missing from the container, PCIe P2P with "
             "IOMMU/ACS on) rather than a failing device; a log cut short after init reads the same";
  if (!l.host.empty()) l.detail += fmt::format("; only {} printed NCCL set-up lines here", l.host);
  l.action = "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,BOOTSTRAP and compare the last line each rank prints: "
             "check that every node reaches the others over the interface and ports NCCL picked, that the network plugin "
             "and RDMA devices exist in every container, and run nccl-tests between two nodes (and with NCCL_P2P_DISABLE=1 "
             "on one node) to tell the network from the PCIe path.";
  for (size_t i = 0; i < setup.size() && l.findings.size() < 5; ++i) l.findings.push_back(setup[i]);
  return l;
}

}  // namespace attribution

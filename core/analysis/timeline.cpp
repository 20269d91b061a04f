#include "core/analysis/timeline.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "core/base/identity.hpp"

namespace attribution {
namespace {

// The value seen most often; ties go to the smallest, so the result never depends on order.
template <typename K, typename V>
std::map<K, V> majority(const std::map<K, std::map<V, int>>& votes) {
  std::map<K, V> out;
  for (const auto& [k, vs] : votes) {
    auto best = vs.begin();
    for (auto it = vs.begin(); it != vs.end(); ++it)
      if (it->second > best->second) best = it;
    out[k] = best->first;
  }
  return out;
}

struct GpuId {
  int gpu = -1;
  std::string pci;
  bool operator<(const GpuId& o) const { return std::tie(gpu, pci) < std::tie(o.gpu, o.pci); }
};

auto sort_key(const Finding& f, const RuleSet& rules) {
  return std::make_tuple(f.first_seen, std::cref(rules.rules[f.rule].id), std::cref(f.host), f.rank, f.gpu,
                         std::cref(f.pci), std::cref(f.evidence.front().location));
}

// Equal, or one is the other behind a collector's prefix (Loki's lines carry "<time> <host> loki: ").
bool same_text(std::string_view a, std::string_view b) {
  if (a.size() < b.size()) std::swap(a, b);
  return a.size() >= b.size() && a.substr(a.size() - b.size()) == b && (a.size() == b.size() || a[a.size() - b.size() - 1] == ' ');
}

// The same lines read from two inputs (or one file read by two sources) make findings equal in
// everything but their location: same rule, host, GPU, rank, peer, process, own times, count and text. One
// input's findings cannot be equal: a burst folds while scanning. `kept` is sorted so that they are adjacent.
void drop_duplicates(std::vector<Finding>& kept, std::map<std::pair<std::string, std::string>, int64_t>& duplicates) {
  auto same_lines = [](const Finding& a, const Finding& b) {
    return !a.time_inferred && !b.time_inferred &&
           std::tie(a.rule, a.host, a.pci, a.gpu, a.rank, a.peer, a.pid, a.first_seen, a.last_seen, a.count) ==
               std::tie(b.rule, b.host, b.pci, b.gpu, b.rank, b.peer, b.pid, b.first_seen, b.last_seen, b.count) &&
           same_text(a.evidence.front().text, b.evidence.front().text) &&
           same_text(a.evidence.back().text, b.evidence.back().text);
  };
  auto key = [](const Finding& x) { return std::tie(x.rule, x.host, x.pci, x.gpu, x.rank, x.peer, x.pid, x.first_seen); };
  size_t n = 0;      // kept[0, n) is the result, compacted in place
  size_t group = 0;  // first finding of the result with the current (rule, ..., first_seen)
  for (auto& f : kept) {
    if (group < n && key(kept[group]) != key(f)) group = n;
    bool dup = false;
    for (size_t i = group; i < n && !dup; ++i)
      if (same_lines(kept[i], f)) {
        if (f.input_order < kept[i].input_order) std::swap(kept[i], f);
        duplicates[{f.evidence.front().source, kept[i].evidence.front().source}] += f.count;
        dup = true;
      }
    if (!dup && &kept[n++] != &f) kept[n - 1] = std::move(f);
  }
  kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(n), kept.end());
}

// Renames a finding's host (and its evidence lines' that named it the same way).
void rename_host(Finding& f, const std::string& to) {
  for (auto& e : f.evidence)
    if (e.host == f.host) e.host = to;
  f.host = to;
}

// First which host owns which address and which other names a machine has, so a line that names
// its node by IP (NCCL's RAS client) or by a pod name counts for that node.
std::map<std::string, std::string> learn_names(std::vector<Finding>& raw) {
  std::map<std::string, std::map<std::string, int>> ip_host_votes, alias_votes;
  for (const auto& f : raw) {
    // EC2's default names carry their address ("ip-172-31-27-211"): a peer named by that address is it.
    if (auto ip = address_in_name(f.host); !ip.empty()) ip_host_votes[ip][f.host]++;
    if (auto it = f.fields.find("ip"); it != f.fields.end() && !f.host.empty() && !is_ip_address(f.host))
      ip_host_votes[peer_host(it->second)][f.host]++;
    // Another name of a machine (a pod's name in `kubectl get pods -o wide`): lines that name the
    // pod (its NCCL prefix) are the node's.
    if (auto it = f.fields.find("alias"); it != f.fields.end() && !f.host.empty() && it->second != f.host)
      alias_votes[short_host(it->second)][f.host]++;
  }
  auto ip_host = majority(ip_host_votes);
  auto alias_host = majority(alias_votes);
  for (auto& f : raw) {
    if (f.fields.count("alias")) continue;
    if (auto it = alias_host.find(f.host); it != alias_host.end()) rename_host(f, it->second);
    if (auto it = alias_host.find(f.peer); it != alias_host.end()) f.peer = it->second;
  }
  for (auto& f : raw)
    if (is_ip_address(f.host))
      if (auto it = ip_host.find(peer_host(f.host)); it != ip_host.end()) rename_host(f, it->second);
  return ip_host;
}

// What the lines teach about the job's layout: which host runs which rank, which GPU a rank or a
// process uses, which PCI address a GPU index has.
struct Layout {
  std::map<std::string, std::string> ip_host;
  std::map<int, std::string> rank_host;
  std::map<int, GpuId> rank_gpu;
  std::map<std::pair<std::string, int64_t>, GpuId> pid_gpu;
  std::map<std::pair<std::string, int64_t>, int> pid_rank;
  std::map<std::pair<int64_t, int>, std::string> task_host;  // (file, srun task label) -> its one host
  std::map<std::pair<std::string, int>, std::string> host_gpu_pci;
  std::map<std::pair<std::string, std::string>, int> host_pci_gpu;

  Layout(const std::vector<Finding>& raw, const RuleSet& rules, std::map<std::string, std::string> ips)
      : ip_host(std::move(ips)) {
    std::map<int, std::map<std::string, int>> rank_host_votes;
    std::map<int, std::map<GpuId, int>> rank_gpu_votes;
    std::map<std::pair<std::string, int64_t>, std::map<GpuId, int>> pid_gpu_votes;
    std::map<std::pair<std::string, int64_t>, std::map<int, int>> pid_rank_votes;
    std::map<std::pair<std::string, int>, std::map<std::string, int>> host_gpu_pci_votes;
    std::map<std::pair<int64_t, int>, std::map<std::string, int>> task_host_votes;
    for (const auto& f : raw) {
      if (f.rank >= 0 && !f.host.empty()) rank_host_votes[f.rank][f.host]++;
      if (f.task >= 0 && f.file >= 0 && !f.host.empty()) task_host_votes[{f.file, f.task}][f.host]++;
      if (f.rank >= 0 && f.pid >= 0 && !f.host.empty()) pid_rank_votes[{f.host, f.pid}][f.rank]++;
      if (f.gpu >= 0 && rules.rules[f.rule].role == Role::context) {
        if (f.rank >= 0) rank_gpu_votes[f.rank][GpuId{f.gpu, f.pci}]++;
        if (f.pid >= 0 && !f.host.empty()) pid_gpu_votes[{f.host, f.pid}][GpuId{f.gpu, f.pci}]++;
      }
      if (!f.host.empty() && f.gpu >= 0 && !f.pci.empty()) host_gpu_pci_votes[{f.host, f.gpu}][f.pci]++;
    }
    rank_host = majority(rank_host_votes);
    rank_gpu = majority(rank_gpu_votes);
    pid_gpu = majority(pid_gpu_votes);
    pid_rank = majority(pid_rank_votes);
    // One batch output can hold several steps, each with its own task 0..n: a task label that names
    // two hosts in a file is ambiguous, and fills nothing.
    for (const auto& [k, hosts] : task_host_votes)
      if (hosts.size() == 1) task_host[k] = hosts.begin()->first;
    host_gpu_pci = majority(host_gpu_pci_votes);
    for (const auto& [k, pci] : host_gpu_pci) host_pci_gpu[{k.first, pci}] = k.second;
  }

  // Fills in what a finding lacks: its host from its rank or from another line of its srun task (a
  // traceback names no host; the same task's NCCL or MPI line does), its rank from its process, its
  // GPU from its process or rank (not for a host's memory, disk or scheduler: such a cause names no
  // GPU), a GPU's PCI address or index from the other, a peer's host from its address.
  void fill(Finding& f, const Rule& rule) const {
    if (f.host.empty() && f.rank >= 0)
      if (auto it = rank_host.find(f.rank); it != rank_host.end()) f.host = it->second;
    if (f.host.empty() && f.task >= 0)
      if (auto it = task_host.find({f.file, f.task}); it != task_host.end()) f.host = it->second;
    if (f.rank < 0 && f.pid >= 0)
      if (auto it = pid_rank.find({f.host, f.pid}); it != pid_rank.end()) f.rank = it->second;
    bool gpu_place = rule.role != Role::cause || rule.family.rfind("accelerator", 0) == 0 || rule.family == "application";
    if (gpu_place && f.gpu < 0 && f.pid >= 0)
      if (auto it = pid_gpu.find({f.host, f.pid}); it != pid_gpu.end()) {
        f.gpu = it->second.gpu;
        if (f.pci.empty()) f.pci = it->second.pci;
      }
    if (gpu_place && f.gpu < 0 && f.rank >= 0)
      if (auto it = rank_gpu.find(f.rank); it != rank_gpu.end()) {
        f.gpu = it->second.gpu;
        if (f.pci.empty()) f.pci = it->second.pci;
      }
    if (f.pci.empty() && f.gpu >= 0)
      if (auto it = host_gpu_pci.find({f.host, f.gpu}); it != host_gpu_pci.end()) f.pci = it->second;
    if (f.gpu < 0 && !f.pci.empty())
      if (auto it = host_pci_gpu.find({f.host, f.pci}); it != host_pci_gpu.end()) f.gpu = it->second;
    if (!f.peer.empty() && is_ip_address(f.peer))
      if (auto it = ip_host.find(f.peer); it != ip_host.end()) f.peer = it->second;
    for (auto& e : f.evidence)
      if (e.host.empty()) e.host = f.host;
  }
};

// A node list that names none of the hosts the lines name is wrong, not the lines: those hosts,
// for the report to say so; empty when the list is usable.
std::vector<std::string> unmatched_hosts(const std::vector<Finding>& raw, const Workload& workload) {
  std::set<std::string> named;
  for (const auto& f : raw)
    if (!f.host.empty() && !is_ip_address(f.host)) named.insert(f.host);
  bool list_matches = workload.nodes.empty() || named.empty() ||
                      std::any_of(named.begin(), named.end(), [&](const std::string& h) {
                        return std::find(workload.nodes.begin(), workload.nodes.end(), h) != workload.nodes.end();
                      });
  return list_matches ? std::vector<std::string>{} : std::vector<std::string>(named.begin(), named.end());
}

// Fold bursts: same rule, host, GPU, rank, peer and process, closer than the rule's burst gap.
// The process stays apart so that a repeat by another process (a restart, another job) is seen.
void fold_bursts(std::vector<Finding>& kept, const RuleSet& rules, std::map<std::pair<std::string, std::string>, int64_t>& duplicates) {
  auto burst_key = [](const Finding& f) { return std::tie(f.rule, f.host, f.pci, f.gpu, f.rank, f.peer, f.pid); };
  std::sort(kept.begin(), kept.end(), [&](const Finding& a, const Finding& b) {
    return burst_key(a) < burst_key(b) || (burst_key(a) == burst_key(b) && sort_key(a, rules) < sort_key(b, rules));
  });
  drop_duplicates(kept, duplicates);
  size_t n = 0;  // kept[0, n) holds the folded findings, compacted in place
  for (auto& f : kept) {
    if (n > 0) {
      Finding& p = kept[n - 1];
      if (burst_key(p) == burst_key(f) && continues_burst(p, f, rules.rules[f.rule].burst)) {
        fold_into(p, std::move(f));
        continue;
      }
    }
    if (&kept[n++] != &f) kept[n - 1] = std::move(f);
  }
  kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(n), kept.end());
}

}  // namespace

Timeline build_timeline(std::vector<Finding> raw, const RuleSet& rules, const Workload& workload) {
  Timeline out;
  // 1. What the lines teach about the job's layout: other names of hosts first, then the layout
  // under the names settled.
  auto ip_host = learn_names(raw);
  const Layout layout(raw, rules, std::move(ip_host));
  out.unmatched_hosts = unmatched_hosts(raw, workload);
  const bool list_matches = out.unmatched_hosts.empty();

  // 2. Fill in what each finding lacks; set aside noise and other jobs' nodes.
  std::vector<Finding> kept;
  kept.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) raw[i].input_order = i;
  for (auto& f : raw) {
    const Rule& rule = rules.rules[f.rule];
    if (rule.role == Role::benign) {
      out.benign += f.count;
      continue;
    }
    // An address a line names as a node (NCCL RAS) that no line ties to a host may still be one of
    // the job's nodes: kept, named by the IP. A log line's own prefix host is the line's machine.
    if (list_matches && !f.host.empty() && !workload.nodes.empty() && !(f.host_named && is_ip_address(f.host)) &&
        std::find(workload.nodes.begin(), workload.nodes.end(), f.host) == workload.nodes.end()) {
      // A node outside this workload: its symptoms are not evidence about the job, but a fault there
      // is kept and flagged (a node list can be incomplete), never silently dropped.
      if (rule.role != Role::cause) {
        out.other_hosts += f.count;
        continue;
      }
      f.unlisted = true;
    }
    layout.fill(f, rule);
    kept.push_back(std::move(f));
  }
  std::vector<Finding>().swap(raw);  // the findings are held once, in `kept`

  // 3. Fold bursts, then order by time.
  fold_bursts(kept, rules, out.duplicates);
  std::sort(kept.begin(), kept.end(),
            [&](const Finding& a, const Finding& b) { return sort_key(a, rules) < sort_key(b, rules); });
  out.findings = std::move(kept);
  return out;
}

}  // namespace attribution

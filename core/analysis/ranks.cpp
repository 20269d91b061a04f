#include "core/analysis/ranks.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace attribution {
namespace {

std::optional<long> number(const Finding& f, const char* key) {
  auto it = f.fields.find(key);
  if (it == f.fields.end()) return std::nullopt;
  long v = 0;
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string field(const Finding& f, const char* key) {
  auto it = f.fields.find(key);
  return it == f.fields.end() ? std::string() : it->second;
}

void add_progress(RankProgress& p, const Finding& f, bool timed_out, size_t index) {
  if (p.host.empty()) p.host = f.host;
  if (auto seq = number(f, "seq"); seq && timed_out) {
    // The earliest collective it timed out in is the one it was stuck in; the others queued behind it.
    if (p.timed_out_at < 0 || *seq < p.timed_out_at) {
      p.timed_out_at = *seq;
      p.op = field(f, "op");
      p.numel_in = field(f, "numel_in");
      p.numel_out = field(f, "numel_out");
    }
    p.enqueued = std::max(p.enqueued, *seq);
  }
  // Counters only grow: a later line (a dump after the timeout) knows at least as much.
  if (auto e = number(f, "last_enqueued")) {
    p.enqueued = std::max(p.enqueued, *e);
    p.counted = true;
  }
  if (auto c = number(f, "last_completed")) p.completed = std::max(p.completed, *c);
  p.findings.push_back(index);
}

// The value most ranks hold (ties: the lowest), and how many hold it.
std::pair<long, size_t> mode(const std::map<long, std::vector<int>>& by_value) {
  std::pair<long, size_t> best{-1, 0};
  for (const auto& [v, ranks] : by_value)
    if (ranks.size() > best.second) best = {v, ranks.size()};
  return best;
}

// A rank, or a process with no rank (a negative id: see rank_progress).
const RankProgress& of(const std::vector<RankProgress>& ranks, int rank) {
  return *std::find_if(ranks.begin(), ranks.end(), [&](const RankProgress& p) { return p.rank == rank; });
}

std::string pg_words(const std::string& pg) {
  if (pg == "0") return {};
  if (pg.rfind("nccl:", 0) == 0) return " (NCCL communicators of " + pg.substr(5) + " ranks)";
  return " (process group " + pg + ")";
}

void set_suspect(Localisation& l, const std::vector<RankProgress>& ranks, const std::vector<int>& odd) {
  l.rank = std::max(odd.front(), -1);
  std::set<std::string> hosts;
  for (int r : odd) hosts.insert(of(ranks, r).host);
  if (hosts.size() == 1) l.host = *hosts.begin();
  for (int r : odd)
    for (size_t i : of(ranks, r).findings)
      if (l.findings.size() < 8) l.findings.push_back(i);
}

// "rank 2", "ranks 2, 5", or the processes' own names when some have no rank.
std::string rank_list(const std::vector<RankProgress>& all, const std::vector<int>& ids) {
  if (std::all_of(ids.begin(), ids.end(), [](int r) { return r >= 0; }))
    return fmt::format("{} {}", ids.size() == 1 ? "rank" : "ranks", fmt::join(ids, ", "));
  std::vector<std::string> names;
  for (int r : ids) names.push_back(of(all, r).who);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string capitalised(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

std::optional<long> hex_number(const std::string& s) {
  long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// NCCL_DEBUG_SUBSYS=COLL prints a line per call ("AllGather: opCount 28d ... count 15360 ... [nranks=4]");
// a burst of them is one finding, and its last line says how far the process got.
bool add_trace(RankProgress& p, const Finding& f) {
  if (f.evidence.empty()) return false;
  const auto& c = f.evidence.back().captures;
  auto at = c.find("op_count");
  auto op = c.find("op");
  if (at == c.end() || op == c.end()) return false;
  auto n = hex_number(at->second);
  if (!n || *n < p.traced_at) return false;
  p.traced_at = *n;
  p.traced_op = op->second;
  auto numel = c.find("numel_in");
  p.traced_numel = numel == c.end() ? std::string() : numel->second;
  return true;
}

}  // namespace

std::vector<std::pair<std::string, std::vector<RankProgress>>> rank_progress(const Timeline& t, const RuleSet& rules) {
  std::map<std::string, std::map<int, RankProgress>> groups;
  std::map<std::pair<std::string, int64_t>, int> process_ids;  // (host, pid) -> -2, -3, ... in timeline order
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    bool trace = !f.evidence.empty() && f.evidence.back().captures.count("op_count");
    if (trace) {
      if (f.rank < 0 && f.pid < 0) continue;
      int id = f.rank >= 0 ? f.rank : process_ids.try_emplace({f.host, f.pid}, -2 - int(process_ids.size())).first->second;
      auto n = f.evidence.back().captures.find("nranks");
      RankProgress& p = groups["nccl:" + (n == f.evidence.back().captures.end() ? std::string("?") : n->second)][id];
      p.rank = id;
      p.who = f.rank >= 0 ? fmt::format("rank {}", f.rank)
                          : fmt::format("process {}{}", f.pid, f.host.empty() ? "" : " on " + f.host);
      if (p.host.empty()) p.host = f.host;
      if (add_trace(p, f)) p.findings.push_back(i);
      continue;
    }
    if (f.rank < 0 || !(f.fields.count("seq") || f.fields.count("last_enqueued") || f.fields.count("last_completed")))
      continue;
    // A context line (a dump, a Flight Recorder status) reports counters; a symptom's seq is a timeout.
    bool timed_out = rules.rules[f.rule].role != Role::context;
    std::string pg = field(f, "pg");
    RankProgress& p = groups[pg.empty() ? "0" : pg][f.rank];
    p.rank = f.rank;
    p.who = fmt::format("rank {}", f.rank);
    add_progress(p, f, timed_out, i);
  }
  std::vector<std::pair<std::string, std::vector<RankProgress>>> out;
  for (auto& [pg, by_rank] : groups) {
    std::vector<RankProgress> ranks;
    for (auto& [rank, p] : by_rank) {
      // An uninitialised counter prints as a huge number: a completed count past the enqueued one is noise.
      if (p.enqueued >= 0 && p.completed > p.enqueued) p.completed = -1;
      ranks.push_back(std::move(p));
    }
    out.emplace_back(pg, std::move(ranks));
  }
  return out;
}

std::optional<Localisation> collective_mismatch(const Timeline& t, const RuleSet& rules) {
  for (const auto& [pg, ranks] : rank_progress(t, rules)) {
    // Ranks at the same collective (where they timed out, or the last one NCCL's trace shows them
    // issue), grouped by what they say it is.
    std::map<long, std::map<std::string, std::vector<int>>> at;
    for (const RankProgress& p : ranks) {
      if (p.timed_out_at >= 0 && !p.op.empty())
        at[p.timed_out_at][fmt::format("{} (NumelIn {}, NumelOut {})", p.op, p.numel_in.empty() ? "?" : p.numel_in,
                                       p.numel_out.empty() ? "?" : p.numel_out)]
            .push_back(p.rank);
      else if (p.traced_at >= 0)
        at[p.traced_at][fmt::format("{} (count {})", p.traced_op, p.traced_numel.empty() ? "?" : p.traced_numel)]
            .push_back(p.rank);
    }
    bool traced = pg.rfind("nccl:", 0) == 0;
    for (const auto& [seq, kinds] : at) {
      if (kinds.size() < 2) continue;
      auto fewest = std::min_element(kinds.begin(), kinds.end(),
                                     [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
      auto most = std::max_element(kinds.begin(), kinds.end(),
                                   [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
      Localisation l;
      l.kind = "collective-mismatch";
      l.category = "collective_mismatch";
      l.family = "application";
      l.blame = Blame::application;
      l.confidence = Confidence::medium;
      size_t others = 0;
      for (const auto& [k, rs] : kinds) others += k == fewest->first ? 0 : rs.size();
      bool odd_one_out = fewest->second.size() < most->second.size();
      if (odd_one_out) set_suspect(l, ranks, fewest->second);
      std::string where = traced ? fmt::format("opCount {:x}", seq) : fmt::format("collective {}", seq);
      std::vector<std::string> what_each_ran;
      for (const auto& [k, rs] : kinds) what_each_ran.push_back(rank_list(ranks, rs) + " ran " + k);
      l.title = odd_one_out ? capitalised(fmt::format("{} ran {} as {}{} while the other {} rank(s) ran {}",
                                                      rank_list(ranks, fewest->second), fewest->first, where,
                                                      pg_words(pg), others, most->first))
                            : fmt::format("Ranks disagree on {}{}: {}", where, pg_words(pg), fmt::join(what_each_ran, "; "));
      l.detail = "ranks at the same collective sequence number issued different collectives: the code took a "
                 "different path on some ranks, so the collective can never complete";
      l.action = fmt::format("Find why {} issued a different collective: every rank must call the same collectives in "
                             "the same order with the same sizes (a rank-dependent branch, an uneven last batch, a "
                             "skipped layer); TORCH_DISTRIBUTED_DEBUG=DETAIL checks each call and names the first "
                             "mismatch. No node is at fault.",
                             odd_one_out ? rank_list(ranks, fewest->second) : std::string("the ranks"));
      if (!odd_one_out) {
        // No odd one out: name the node when they all run on one.
        std::set<std::string> hosts;
        for (const auto& [k, rs] : kinds)
          for (int r : rs) {
            hosts.insert(of(ranks, r).host);
            for (size_t i : of(ranks, r).findings)
              if (l.findings.size() < 8) l.findings.push_back(i);
          }
        if (hosts.size() == 1) l.host = *hosts.begin();
      }
      return l;
    }
  }
  return std::nullopt;
}

namespace {

// The collective most timed-out ranks of a group were stuck in, with the ranks that say so.
struct Waited {
  long seq = -1;
  std::vector<int> ranks;
};

Waited waited_in(const std::vector<RankProgress>& ranks) {
  std::map<long, std::vector<int>> at;
  for (const RankProgress& p : ranks)
    if (p.timed_out_at >= 0) at[p.timed_out_at].push_back(p.rank);
  auto [seq, n] = mode(at);
  if (n == 0) return {};
  return {seq, at[seq]};
}

// Ranks whose enqueued count says they never issued the collective the others wait in. A rank that
// only says where it timed out (an earlier collective) is behind too, but less is known: it is
// named only as a clear minority, and not as the application's.
std::optional<Localisation> never_enqueued(const std::string& pg, const std::vector<RankProgress>& ranks,
                                           const Waited& w) {
  std::vector<int> behind;
  bool counted = true;
  for (const RankProgress& p : ranks)
    if (p.enqueued >= 0 && p.enqueued < w.seq) {
      behind.push_back(p.rank);
      counted = counted && p.counted;
    }
  if (behind.empty() || behind.size() > w.ranks.size()) return std::nullopt;
  if (!counted && (ranks.size() < 3 || behind.size() * 3 > ranks.size())) return std::nullopt;
  Localisation l;
  set_suspect(l, ranks, behind);
  const RankProgress& first = of(ranks, behind.front());
  std::string who = capitalised(rank_list(ranks, behind));
  std::string where = l.host.empty() ? std::string("its node") : l.host;
  if (!counted) {
    l.kind = "hang-minority";
    l.category = "collective_hang_straggler";
    l.family = "unknown";
    l.blame = Blame::unknown;
    l.title = fmt::format("{} {} behind: {} timed out in collective {}{} while the other {} rank(s) were waiting in {}",
                          who, behind.size() == 1 ? "is" : "are", behind.size() == 1 ? "it" : "they", first.timed_out_at, pg_words(pg), w.ranks.size(), w.seq);
    l.detail = fmt::format("ranks behind: {}", fmt::join(behind, ", "));
    l.action = fmt::format("Inspect {} on {} first: it fell behind the others. Its own log and a stack of the process "
                           "say whether it was stuck in its code or in the GPU or network.",
                           rank_list(ranks, behind), where);
  } else {
    l.kind = "never-enqueued";
    l.category = "collective_hang_rank_behind";
    l.family = "application";
    l.blame = Blame::application;
    l.title = fmt::format("{} never enqueued collective {}{}, which the other {} rank(s) were waiting in", who, w.seq,
                          pg_words(pg), w.ranks.size());
    l.detail = fmt::format("{}'s last issued collective is {} (last completed {}); the others timed out in {}: it was "
                           "stuck before the collective (its own Python code, data loading, I/O, a different code "
                           "path), not in the GPU or the network",
                           rank_list(ranks, behind), first.enqueued, first.completed, w.seq);
    l.action = fmt::format("Inspect {} on {}: what it was doing when the others waited (its own log before the "
                           "timeout, a py-spy dump or faulthandler stack of that process). Do not drain the node on "
                           "this evidence: nothing here says the hardware failed.",
                           rank_list(ranks, behind), where);
  }
  // The evidence: the suspect's own counters, then one rank that waited.
  if (const auto& w0 = of(ranks, w.ranks.front()); !w0.findings.empty()) l.findings.push_back(w0.findings.front());
  return l;
}

std::optional<Localisation> stuck_inside(const std::string& pg, const std::vector<RankProgress>& ranks) {
  std::map<long, std::vector<int>> completed;
  for (const RankProgress& p : ranks)
    if (p.completed >= 0) completed[p.completed].push_back(p.rank);
  auto [c, n] = mode(completed);
  size_t known = 0;
  for (const auto& [v, rs] : completed) known += rs.size();
  if (known < 3 || n == known) return std::nullopt;
  std::vector<int> lagging;
  for (const RankProgress& p : ranks)
    if (p.completed >= 0 && p.completed < c && p.enqueued > p.completed)
      lagging.push_back(p.rank);
  if (lagging.empty() || lagging.size() * 3 > known) return std::nullopt;
  Localisation l;
  l.kind = "stuck-in-collective";
  l.category = "collective_hang_in_collective";
  l.family = "unknown";
  l.blame = Blame::unknown;
  set_suspect(l, ranks, lagging);
  const RankProgress& first = of(ranks, lagging.front());
  l.title = fmt::format("{} issued collective {}{} but never completed it, while the other {} rank(s) completed {}",
                        capitalised(rank_list(ranks, lagging)),
                        first.completed + 1, pg_words(pg), n, c);
  l.detail = "it was stuck inside the collective, not before it: its GPU, its links or the fabric to its peers are "
             "candidates, and so is a kernel that never finished on that GPU";
  l.action = fmt::format("Check {}'s GPU and links on {} (nvidia-smi -q for errors, dcgmi diag -r 2, ibstat and the "
                         "port counters); if they are clean, take a stack of the process while it hangs.",
                         rank_list(ranks, lagging), l.host.empty() ? std::string("its node") : l.host);
  return l;
}

}  // namespace

namespace {

// NCCL's per-call trace: the process(es) whose last call comes before the call most others reached
// stopped issuing collectives there (the classic "no output after opCount N" of a hung rank).
std::optional<Localisation> trace_stopped(const std::string& pg, const std::vector<RankProgress>& ranks) {
  std::map<long, std::vector<int>> at;
  for (const RankProgress& p : ranks)
    if (p.traced_at >= 0) at[p.traced_at].push_back(p.rank);
  auto [reached, n] = mode(at);
  size_t traced = 0;
  std::vector<int> behind;
  for (const auto& [v, rs] : at) {
    traced += rs.size();
    if (v < reached) behind.insert(behind.end(), rs.begin(), rs.end());
  }
  if (behind.empty() || traced < 3 || behind.size() * 3 > traced) return std::nullopt;
  Localisation l;
  l.kind = "never-enqueued";
  l.category = "collective_hang_rank_behind";
  l.family = "application";
  l.blame = Blame::application;
  set_suspect(l, ranks, behind);
  const RankProgress& first = of(ranks, behind.front());
  l.title = fmt::format("{}'s last NCCL call is opCount {:x}{}, while the other {} process(es) went on to opCount {:x}",
                        capitalised(rank_list(ranks, behind)), first.traced_at, pg_words(pg), n, reached);
  l.detail = "it stopped issuing collectives before the others: stuck in its own code, data loading or I/O, or a "
             "different code path; its GPU or network would show as a call issued and never finished";
  l.action = fmt::format("Inspect {} on {}: what it was doing after its last NCCL call (its own log, a py-spy dump "
                         "of the process). Do not drain the node on this evidence.",
                         rank_list(ranks, behind), l.host.empty() ? std::string("its node") : l.host);
  return l;
}

}  // namespace

std::optional<Localisation> progress_behind(const Timeline& t, const RuleSet& rules) {
  for (const auto& [pg, ranks] : rank_progress(t, rules)) {
    Waited w = waited_in(ranks);
    if (w.seq >= 0)
      if (auto l = never_enqueued(pg, ranks, w)) return l;
    if (auto l = trace_stopped(pg, ranks)) return l;
  }
  for (const auto& [pg, ranks] : rank_progress(t, rules))
    if (auto l = stuck_inside(pg, ranks)) return l;
  return std::nullopt;
}

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
    auto& [values, first] = seen[{f.rule, field(f, "setting")}].try_emplace(f.host, std::set<std::string>{}, i).first->second;
    values.insert(field(f, "value"));
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
  Localisation l;
  l.kind = "host-mismatch";
  l.category = "host_configuration_mismatch";
  l.family = "configuration";
  l.blame = Blame::unknown;
  l.confidence = Confidence::medium;
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

}  // namespace attribution

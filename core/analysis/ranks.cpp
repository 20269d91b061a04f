#include "core/analysis/ranks.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

#include "core/base/text.hpp"

namespace attribution {
namespace {

std::optional<long> parse_long(const std::string& s, int base = 10) {
  long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<long> number(const Finding& f, const char* key) {
  auto it = f.fields.find(key);
  return it == f.fields.end() ? std::nullopt : parse_long(it->second);
}

void add_progress(RankProgress& p, const Finding& f, bool timed_out, size_t index) {
  if (auto seq = number(f, "seq"); seq && timed_out) {
    // The earliest collective it timed out in is the one it was stuck in; the others queued behind it.
    if (p.timed_out_at < 0 || *seq < p.timed_out_at) {
      p.timed_out_at = *seq;
      p.op = field_of(f, "op");
      p.numel_in = field_of(f, "numel_in");
      p.numel_out = field_of(f, "numel_out");
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

// NCCL_DEBUG_SUBSYS=COLL prints a line per call ("AllGather: opCount 28d ... count 15360 ... [nranks=4]");
// a tail rule keeps each process's last one, which says how far the process got.
void add_trace(RankProgress& p, const std::map<std::string, std::string>& c, size_t index) {
  auto at = c.find("op_count");
  auto op = c.find("op");
  if (at == c.end() || op == c.end()) return;
  auto n = parse_long(at->second, 16);
  if (!n || *n < p.traced_at) return;
  p.traced_at = *n;
  p.traced_op = op->second;
  auto numel = c.find("numel_in");
  p.traced_numel = numel == c.end() ? std::string() : numel->second;
  p.findings.push_back(index);
}

// Rank ids grouped by a counter's value (ranks that did not report it left out).
std::map<long, std::vector<int>> ranks_by(const std::vector<RankProgress>& ranks, long RankProgress::*counter) {
  std::map<long, std::vector<int>> out;
  for (const RankProgress& p : ranks)
    if (p.*counter >= 0) out[p.*counter].push_back(p.rank);
  return out;
}

// The value most ranks hold (ties: the lowest), and how many hold it.
std::pair<long, size_t> mode(const std::map<long, std::vector<int>>& by_value) {
  std::pair<long, size_t> best{-1, 0};
  for (const auto& [v, ranks] : by_value)
    if (ranks.size() > best.second) best = {v, ranks.size()};
  return best;
}

size_t count(const std::map<long, std::vector<int>>& by_value) {
  size_t n = 0;
  for (const auto& [v, ranks] : by_value) n += ranks.size();
  return n;
}

// A rank, or a process with no rank, by id: the ranks are in id order (rank_progress).
const RankProgress& of(const std::vector<RankProgress>& ranks, int id) {
  return *std::lower_bound(ranks.begin(), ranks.end(), id, [](const RankProgress& p, int r) { return p.rank < r; });
}

std::string pg_words(const std::string& pg) {
  if (pg == "0") return {};
  if (pg.rfind("nccl:", 0) == 0) return " (NCCL communicators of " + pg.substr(5) + " ranks)";
  return " (process group " + pg + ")";
}

// Names `ids` as the suspects: the rank (a process with no rank gives none), their host when they
// share one, and their lines as evidence.
void set_suspect(Localisation& l, const std::vector<RankProgress>& ranks, const std::vector<int>& ids) {
  l.rank = std::max(ids.front(), -1);
  std::set<std::string> hosts;
  for (int r : ids) {
    hosts.insert(of(ranks, r).host);
    for (size_t i : of(ranks, r).findings)
      if (l.findings.size() < 8) l.findings.push_back(i);
  }
  if (hosts.size() == 1) l.host = *hosts.begin();
}

// "rank 2", "ranks 2, 5", or the processes' own names when some have no rank.
std::string rank_list(const std::vector<RankProgress>& all, const std::vector<int>& ids) {
  if (std::all_of(ids.begin(), ids.end(), [](int r) { return r >= 0; }))
    return fmt::format("{} {}", ids.size() == 1 ? "rank" : "ranks", fmt::join(ids, ", "));
  std::vector<std::string> names;
  for (int r : ids) names.push_back(of(all, r).who);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Ranks that stopped before the collective the others reached: the application's side, whatever
// the counter that shows it (PyTorch's enqueued count, NCCL's last traced call).
// `look_for`: what to look at in the suspect, after "Inspect <ranks> on <node>: ".
Localisation stopped_before(const std::vector<RankProgress>& ranks, const std::vector<int>& behind, std::string title,
                            std::string detail, const char* look_for) {
  Localisation l = localisation("never-enqueued", "collective_hang_rank_behind", "application", Blame::application);
  set_suspect(l, ranks, behind);
  l.title = std::move(title);
  l.detail = std::move(detail);
  l.action = fmt::format("Inspect {} on {}: {}", rank_list(ranks, behind), host_or_its_node(l.host), look_for);
  return l;
}

}  // namespace

std::vector<GroupProgress> rank_progress(const Timeline& t, const RuleSet& rules) {
  std::map<std::string, std::map<int, RankProgress>> groups;
  std::map<std::pair<std::string, int64_t>, int> process_ids;  // (host, pid) -> -2, -3, ... in timeline order
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    const auto* trace = f.evidence.empty() || !f.evidence.back().captures.count("op_count")
                            ? nullptr
                            : &f.evidence.back().captures;
    bool counters = f.fields.count("seq") || f.fields.count("last_enqueued") || f.fields.count("last_completed");
    if (trace ? f.rank < 0 && f.pid < 0 : f.rank < 0 || !counters) continue;
    int id = f.rank >= 0 ? f.rank : process_ids.try_emplace({f.host, f.pid}, -2 - int(process_ids.size())).first->second;
    std::string pg = trace ? "nccl:" + (trace->count("nranks") ? trace->at("nranks") : std::string("?")) : field_of(f, "pg");
    RankProgress& p = groups[pg.empty() ? "0" : pg][id];
    p.rank = id;
    p.who = process_name(f.rank, f.pid, f.host);
    if (p.host.empty()) p.host = f.host;
    // A context line (a dump, a Flight Recorder status) reports counters; a symptom's seq is a timeout.
    if (trace) add_trace(p, *trace, i);
    else add_progress(p, f, rules.rules[f.rule].role != Role::context, i);
  }
  std::vector<GroupProgress> out;
  for (auto& [pg, by_rank] : groups) {
    GroupProgress g{pg, {}};
    for (auto& [rank, p] : by_rank) {
      // An uninitialised counter prints as a huge number: a completed count past the enqueued one is noise.
      if (p.enqueued >= 0 && p.completed > p.enqueued) p.completed = -1;
      g.ranks.push_back(std::move(p));
    }
    out.push_back(std::move(g));
  }
  return out;
}

namespace {

// Ranks at the same collective (where they timed out, or the last one NCCL's trace shows them
// issue), grouped by what they say it is.
std::map<long, std::map<std::string, std::vector<int>>> collectives_by_position(const std::vector<RankProgress>& ranks) {
  std::map<long, std::map<std::string, std::vector<int>>> at;
  auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
  for (const RankProgress& p : ranks) {
    if (p.timed_out_at >= 0 && !p.op.empty())
      at[p.timed_out_at][fmt::format("{} (NumelIn {}, NumelOut {})", p.op, or_unknown(p.numel_in), or_unknown(p.numel_out))]
          .push_back(p.rank);
    else if (p.traced_at >= 0)
      at[p.traced_at][fmt::format("{} (count {})", p.traced_op, or_unknown(p.traced_numel))].push_back(p.rank);
  }
  return at;
}

// How many ranks at one position ran something other than `kind`.
size_t others(const std::map<std::string, std::vector<int>>& kinds, const std::string& kind) {
  size_t n = 0;
  for (const auto& [k, rs] : kinds) n += k == kind ? 0 : rs.size();
  return n;
}

std::optional<Localisation> mismatch_in(const GroupProgress& g) {
  const auto& ranks = g.ranks;
  for (const auto& [seq, kinds] : collectives_by_position(ranks)) {
    if (kinds.size() < 2) continue;
    auto by_size = [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); };
    auto fewest = std::min_element(kinds.begin(), kinds.end(), by_size);
    auto most = std::max_element(kinds.begin(), kinds.end(), by_size);
    Localisation l = localisation("collective-mismatch", "collective_mismatch", "application", Blame::application,
                                  Confidence::medium);
    std::string where = g.pg.rfind("nccl:", 0) == 0 ? fmt::format("opCount {:x}", seq) : fmt::format("collective {}", seq);
    bool odd_one_out = fewest->second.size() < most->second.size();
    if (odd_one_out) {
      set_suspect(l, ranks, fewest->second);
      l.title = capitalised(fmt::format("{} ran {} as {}{} while the other {} rank(s) ran {}",
                                        rank_list(ranks, fewest->second), fewest->first, where, pg_words(g.pg),
                                        others(kinds, fewest->first), most->first));
    } else {
      // No odd one out: every rank involved is evidence, and their node is named when they share one.
      std::vector<int> involved;
      std::vector<std::string> what_each_ran;
      for (const auto& [k, rs] : kinds) {
        involved.insert(involved.end(), rs.begin(), rs.end());
        what_each_ran.push_back(rank_list(ranks, rs) + " ran " + k);
      }
      set_suspect(l, ranks, involved);
      l.rank = -1;
      l.title = fmt::format("Ranks disagree on {}{}: {}", where, pg_words(g.pg), fmt::join(what_each_ran, "; "));
    }
    l.detail = "ranks at the same collective sequence number issued different collectives: the code took a "
               "different path on some ranks, so the collective can never complete";
    l.action = fmt::format("Find why {} issued a different collective: every rank must call the same collectives in "
                           "the same order with the same sizes (a rank-dependent branch, an uneven last batch, a "
                           "skipped layer); TORCH_DISTRIBUTED_DEBUG=DETAIL checks each call and names the first "
                           "mismatch. No node is at fault.",
                           odd_one_out ? rank_list(ranks, fewest->second) : std::string("the ranks"));
    return l;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Localisation> collective_mismatch(const std::vector<GroupProgress>& progress) {
  for (const GroupProgress& g : progress)
    if (auto l = mismatch_in(g)) return l;
  return std::nullopt;
}

namespace {

// Ranks whose enqueued count says they never issued the collective most timed-out ranks wait in. A
// rank that only says where it timed out (an earlier collective) is behind too, but less is known: it
// is named only as a clear minority, and as the application's only when nothing but timeouts happened.
std::optional<Localisation> never_enqueued(const GroupProgress& g, bool only_timeouts) {
  const auto& ranks = g.ranks;
  auto timed_out = ranks_by(ranks, &RankProgress::timed_out_at);
  auto [waited, n] = mode(timed_out);
  if (n == 0) return std::nullopt;
  const std::vector<int>& waiting = timed_out.at(waited);
  std::vector<int> behind;
  bool counted = true;
  for (const RankProgress& p : ranks)
    if (p.enqueued >= 0 && p.enqueued < waited) {
      behind.push_back(p.rank);
      counted = counted && p.counted;
    }
  if (behind.empty() || behind.size() > waiting.size()) return std::nullopt;
  if (!counted && (ranks.size() < 3 || behind.size() * 3 > ranks.size())) return std::nullopt;
  const RankProgress& first = of(ranks, behind.front());
  std::string who = capitalised(rank_list(ranks, behind));
  Localisation l;
  if (counted) {
    l = stopped_before(ranks, behind,
                       fmt::format("{} never enqueued collective {}{}, which the other {} rank(s) were waiting in", who,
                                   waited, pg_words(g.pg), waiting.size()),
                       fmt::format("{}'s last issued collective is {} (last completed {}); the others timed out in {}: "
                                   "it was stuck before the collective (its own Python code, data loading, I/O, a "
                                   "different code path), not in the GPU or the network",
                                   rank_list(ranks, behind), first.enqueued, first.completed, waited),
                       "what it was doing when the others waited (its own log before the timeout, a py-spy dump or "
                       "faulthandler stack of that process). Do not drain the node on this evidence: nothing here says "
                       "the hardware failed.");
  } else {
    l = only_timeouts ? localisation("hang-minority", "collective_hang_straggler", "application", Blame::application)
                      : localisation("hang-minority", "collective_hang_straggler", "unknown", Blame::unknown);
    set_suspect(l, ranks, behind);
    l.title = fmt::format("{} {} behind: {} timed out in collective {}{} while the other {} rank(s) were waiting in {}",
                          who, behind.size() == 1 ? "is" : "are", behind.size() == 1 ? "it" : "they",
                          first.timed_out_at, pg_words(g.pg), waiting.size(), waited);
    l.detail = fmt::format("ranks behind: {}", fmt::join(behind, ", "));
    if (only_timeouts)
      l.detail += "; every error is a timeout and no node shows a fault: most such hangs are a rank busy or stuck "
                  "in its own code, though its GPU and links stay candidates";
    l.action = fmt::format("Inspect {} on {} first: it fell behind the others. Its own log and a stack of the process "
                           "say whether it was stuck in its code or in the GPU or network.",
                           rank_list(ranks, behind), host_or_its_node(l.host));
  }
  // The evidence: the suspect's own counters, then one rank that waited.
  if (const auto& w0 = of(ranks, waiting.front()); !w0.findings.empty()) l.findings.push_back(w0.findings.front());
  return l;
}

// NCCL's per-call trace: the process(es) whose last call comes before the call most others reached
// stopped issuing collectives there (the classic "no output after opCount N" of a hung rank).
std::optional<Localisation> trace_stopped(const GroupProgress& g) {
  auto at = ranks_by(g.ranks, &RankProgress::traced_at);
  auto [reached, n] = mode(at);
  std::vector<int> behind;
  for (const auto& [v, rs] : at)
    if (v < reached) behind.insert(behind.end(), rs.begin(), rs.end());
  size_t traced = count(at);
  if (behind.empty() || traced < 3 || behind.size() * 3 > traced) return std::nullopt;
  return stopped_before(
      g.ranks, behind,
      fmt::format("{}'s last NCCL call is opCount {:x}{}, while the other {} process(es) went on to opCount {:x}",
                  capitalised(rank_list(g.ranks, behind)), of(g.ranks, behind.front()).traced_at, pg_words(g.pg), n,
                  reached),
      "it stopped issuing collectives before the others: stuck in its own code, data loading or I/O, or a different "
      "code path; its GPU or network would show as a call issued and never finished",
      "what it was doing after its last NCCL call (its own log, a py-spy dump of the process). Do not drain the node "
      "on this evidence.");
}

// A rank with work in flight whose completed count lags the one most ranks reached.
std::optional<Localisation> stuck_inside(const GroupProgress& g) {
  const auto& ranks = g.ranks;
  auto completed = ranks_by(ranks, &RankProgress::completed);
  auto [c, n] = mode(completed);
  size_t known = count(completed);
  if (known < 3 || n == known) return std::nullopt;
  std::vector<int> lagging;
  for (const RankProgress& p : ranks)
    if (p.completed >= 0 && p.completed < c && p.enqueued > p.completed) lagging.push_back(p.rank);
  if (lagging.empty() || lagging.size() * 3 > known) return std::nullopt;
  Localisation l = localisation("stuck-in-collective", "collective_hang_in_collective", "unknown", Blame::unknown);
  set_suspect(l, ranks, lagging);
  l.title = fmt::format("{} issued collective {}{} but never completed it, while the other {} rank(s) completed {}",
                        capitalised(rank_list(ranks, lagging)), of(ranks, lagging.front()).completed + 1,
                        pg_words(g.pg), n, c);
  l.detail = "it was stuck inside the collective, not before it: its GPU, its links or the fabric to its peers are "
             "candidates, and so is a kernel that never finished on that GPU";
  l.action = fmt::format("Check {}'s GPU and links on {} (nvidia-smi -q for errors, dcgmi diag -r 2, ibstat and the "
                         "port counters); if they are clean, take a stack of the process while it hangs.",
                         rank_list(ranks, lagging), host_or_its_node(l.host));
  return l;
}

}  // namespace

std::optional<Localisation> progress_behind(const std::vector<GroupProgress>& progress, bool only_timeouts) {
  for (const GroupProgress& g : progress) {
    if (auto l = never_enqueued(g, only_timeouts)) return l;
    if (auto l = trace_stopped(g)) return l;
  }
  for (const GroupProgress& g : progress)
    if (auto l = stuck_inside(g)) return l;
  return std::nullopt;
}

}  // namespace attribution

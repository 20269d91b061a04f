#include "core/analysis/precedence.hpp"

#include "core/analysis/hosts.hpp"
#include "core/analysis/ranks.hpp"
#include "core/analysis/slowdown.hpp"
#include "core/analysis/stacks.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <tuple>

namespace attribution {
namespace {

bool same_gpu(const Finding& a, const Finding& b) {
  if (!a.pci.empty() && !b.pci.empty()) return a.pci == b.pci;
  if (a.gpu >= 0 && b.gpu >= 0) return a.gpu == b.gpu;
  return true;  // one side does not know its GPU: the host decides
}

// One machine: the same named host, or no host named on either side but the same file.
bool same_host(const Finding& a, const Finding& b) {
  if (!a.host.empty() || !b.host.empty()) return a.host == b.host;
  return a.file >= 0 && a.file == b.file;
}

bool in_scope(Scope s, const Finding& c, const Finding& f) {
  switch (s) {
    case Scope::gpu: return same_host(c, f) && same_gpu(c, f);
    case Scope::host: return same_host(c, f);
    case Scope::job: return true;
    case Scope::peer: return (!c.host.empty() && f.peer == c.host) || same_host(c, f);
  }
  return false;
}

// Whether c's line came before f's: by time where both carry one and they differ, else by position in
// one file; lines of two files whose order no time tells are in no known order.
bool came_first(const Finding& c, const Finding& f) {
  if (!c.time_inferred && !f.time_inferred && c.first_seen != f.first_seen) return c.first_seen < f.first_seen;
  return c.file >= 0 && c.file == f.file && c.input_order < f.input_order;
}

std::string human(Micros d) {
  if (d % (3600 * kMicrosPerSecond) == 0) return fmt::format("{}h", d / (3600 * kMicrosPerSecond));
  if (d % (60 * kMicrosPerSecond) == 0) return fmt::format("{}m", d / (60 * kMicrosPerSecond));
  return fmt::format("{}s", d / kMicrosPerSecond);
}

}  // namespace

bool explains(const Finding& c, const Finding& f, const RuleSet& rules, std::string* why, bool weak_as_symptom,
              bool ordered_only) {
  const Rule& cr = rules.rules[c.rule];
  const Rule& fr = rules.rules[f.rule];
  // Of the entries that hold, the narrowest scope is the best explanation: gpu, host, peer, job.
  const Explain* best = nullptr;
  auto narrowness = [](Scope s) { return s == Scope::gpu ? 0 : s == Scope::host ? 1 : s == Scope::peer ? 2 : 3; };
  bool timed = !c.time_inferred && !f.time_inferred;
  // A bug in the application does not make a GPU or a host report a hardware fault (a lone Xid 63 beside a
  // Python exception stays on its own), though a peer it kills does break links: its blanket
  // "role:symptom" claims weak network causes, not weak GPU or host ones blamed on the infrastructure.
  bool hardware = fr.blame == Blame::infrastructure && (fr.family.starts_with("accelerator-") || fr.family == "host");
  bool claims_weak = weak_as_symptom && fr.fallback && !(cr.blame == Blame::application && hardware);
  for (const Explain& e : cr.explains) {
    if (ordered_only && !e.first) continue;
    bool selected = selector_matches(e.what, fr) || (claims_weak && e.what == "role:symptom");
    if (!selected || !in_scope(e.scope, c, f) || (e.first && !came_first(c, f))) continue;
    if (timed && (f.first_seen < c.first_seen - kClockSkew || f.first_seen > c.first_seen + e.within)) continue;
    if (!best || narrowness(e.scope) < narrowness(best->scope)) best = &e;
  }
  if (!best) return false;
  if (why && best->first)
    *why = fmt::format("{} explains {} ({} scope; its line came first)", cr.id, fr.id, to_string(best->scope));
  else if (why)
    *why = timed ? fmt::format("{} explains {} ({} scope, within {})", cr.id, fr.id, to_string(best->scope), human(best->within))
                 : fmt::format("{} explains {} ({} scope; a time is inferred, so roles decide)", cr.id, fr.id,
                               to_string(best->scope));
  return true;
}

namespace {

// Ranking of causes: the job's own nodes first, then higher priority, then one whose host is known,
// earlier, then host, GPU, rule id.
auto cause_rank(const Timeline& t, const RuleSet& rules, size_t i) {
  const Finding& f = t.findings[i];
  const Rule& r = rules.rules[f.rule];
  return std::make_tuple(f.unlisted, -r.priority, f.host.empty(), f.time_inferred, f.first_seen, std::cref(f.host),
                         std::cref(f.pci), std::cref(r.id), i);
}

// Two causes are one fault reported twice: the same rule on the same host (GPU and rank agreeing
// where both know them); or the same category on the same host and GPU (a kernel Xid 74 line and
// DCGM's NVLink CRC counter), or where one side does not know its host (slurmstepd's "oom_kill
// event" and the kernel's OOM kill line).
bool same_fault(const Finding& a, const Finding& b, const RuleSet& rules) {
  const Rule& ra = rules.rules[a.rule];
  const Rule& rb = rules.rules[b.rule];
  // Weak link causes that name one peer, seen from several machines, are that peer's one fault
  // (host_from_peers makes the peer their host).
  if (a.rule == b.rule && ra.fallback && !a.peer.empty() && a.peer == b.peer) return true;
  // A copy without its host (a pasted excerpt) is the same fault as one that names it.
  if (a.rule == b.rule)
    return (same_host(a, b) || a.host.empty() != b.host.empty()) && same_gpu(a, b) &&
           (a.rank < 0 || b.rank < 0 || a.rank == b.rank);
  if (ra.category != rb.category || ra.category.empty()) return false;
  return a.host.empty() != b.host.empty() || (same_host(a, b) && same_gpu(a, b));
}

std::optional<Localisation> converging_peer(const Timeline& t, const Workload& w) {
  std::map<std::string, std::pair<int64_t, std::vector<size_t>>> named;
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    if (f.peer.empty() || f.peer == f.host) continue;
    auto& n = named[f.peer];
    n.first += f.count;
    n.second.push_back(i);
  }
  if (named.empty()) return std::nullopt;
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& [peer, v] : named) order.emplace_back(-v.first, peer);
  std::sort(order.begin(), order.end());
  int64_t top = -order[0].first;
  int64_t second = order.size() > 1 ? -order[1].first : 0;
  if (top < 2 || top <= 2 * second) return std::nullopt;  // no clear convergence
  Localisation l = localisation("converging-peer", "peer_unreachable", "unknown", Blame::unknown);
  l.host = order[0].second;
  bool known = std::find(w.nodes.begin(), w.nodes.end(), l.host) != w.nodes.end() || w.nodes.empty();
  l.title = fmt::format("Peers' network errors converge on {}{}", l.host, known ? "" : " (an address not mapped to a node)");
  l.detail = fmt::format("{} error line(s) name {}; the next most named peer has {}", top, l.host, second);
  const auto& idx = named[l.host].second;
  l.findings.assign(idx.begin(), idx.begin() + std::min<size_t>(idx.size(), 5));
  return l;
}

// A line that says a process ended: torchrun's failure summary, or any finding with an exit code.
bool process_exit(const Finding& f, const Rule& r) { return r.category == "first_failure" || f.fields.count("exit_code"); }

// The earliest timed process exit; with none timed, the first one the logs print (input order: the
// times such lines borrow from their neighbours tie, and the timeline breaks ties by rule and host).
std::optional<Localisation> first_failure(const Timeline& t, const RuleSet& rules) {
  std::optional<size_t> best, untimed;
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    if (!process_exit(f, rules.rules[f.rule])) continue;
    if (f.time_inferred) {
      if (!untimed || f.input_order < t.findings[*untimed].input_order) untimed = i;
      continue;
    }
    if (!best || f.first_seen < t.findings[*best].first_seen) best = i;
  }
  if (!best) best = untimed;
  if (!best) return std::nullopt;
  const Finding& f = t.findings[*best];
  Localisation l = localisation("first-failure", "first_failure", "unknown", Blame::unknown);
  l.host = f.host;
  l.rank = f.rank;
  auto ec = f.fields.find("exit_code");
  int code = ec == f.fields.end() ? 0 : std::atoi(ec->second.c_str());
  // Exit code 1 is a Python exception's; a signal says nothing about whose fault it was.
  l.blame = code == 1 ? Blame::application : Blame::unknown;
  if (code == 1) l.family = "application";
  l.title = ec == f.fields.end()
                ? fmt::format("First process failure on {}", f.host.empty() ? "an unknown host" : f.host)
                : fmt::format("First process failure on {}{} with exit code {}", f.host.empty() ? "an unknown host" : f.host,
                              f.rank >= 0 ? fmt::format(" (rank {})", f.rank) : "", code);
  l.detail = "the earliest process exit seen (or, with no times, the first printed); no fault signature explains it";
  l.findings.push_back(*best);
  return l;
}

// A Python traceback and nothing else the rules read: no fault, no symptom, no process exit (a launcher's
// report that a child ended is one: its traceback is the launcher's). The program raised: pasted excerpts
// often stop before the exception line, or it is of a class no rule names. As exit code 1 does for
// first_failure, that makes it the application's, at low confidence.
std::optional<Localisation> program_raised(const Timeline& t, const RuleSet& rules) {
  std::optional<size_t> first;
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    const Rule& r = rules.rules[f.rule];
    if (r.role == Role::symptom || r.role == Role::cause) return std::nullopt;
    if (process_exit(f, r) || r.category == "child_ended") return std::nullopt;
    if (r.category == "python_traceback" && (!first || f.first_seen < t.findings[*first].first_seen)) first = i;
  }
  if (!first) return std::nullopt;
  const Finding& f = t.findings[*first];
  Localisation l = localisation("program-raised", "python_exception", "application", Blame::application);
  l.host = f.host;
  l.rank = f.rank;
  l.title = fmt::format("The program raised a Python exception{} and no fault was found",
                        f.host.empty() ? std::string() : " on " + f.host);
  l.detail = "the logs hold a Python traceback and nothing any rule reads as a fault or a symptom; the exception at "
             "its end, if the excerpt has it, is not one the rules know";
  l.action = "Read the exception at the end of this traceback in the full log of that process (the excerpt may stop "
             "before it) and fix the program or its input; if it names a file system, device or network error, "
             "check that on the node.";
  l.findings.push_back(*first);
  return l;
}

// The rule's `repeated` reading holds when its findings on the root's GPU come from enough distinct
// processes and no other GPU of the job shows the rule: one bad GPU, not the application everywhere.
std::string repeated_on_one_gpu(const Timeline& t, const RuleSet& rules, size_t root) {
  const auto& F = t.findings;
  const Finding& r = F[root];
  const Rule& rule = rules.rules[r.rule];
  if (!rule.repeated || r.host.empty() || (r.pci.empty() && r.gpu < 0)) return "";
  std::set<int64_t> pids;
  for (const Finding& f : F) {
    if (f.rule != r.rule) continue;
    if (f.host != r.host || !same_gpu(f, r)) return "";
    if (f.pid >= 0) pids.insert(f.pid);
  }
  if (static_cast<int>(pids.size()) < rule.repeated->processes) return "";
  return fmt::format("{} processes (pid {}) hit it on this GPU, and no other GPU of the job shows it: NVIDIA's catalogue "
                     "reads a repeat on one GPU as a hardware suspect",
                     pids.size(), fmt::join(pids, ", "));
}

// A root cause's host: the peer when several machines report a weak cause about their links to it;
// else its own; else the one host that the other reports of the same fault it explains name (the
// step's "Detected oom-kill events" has no host, srun's "node12: task 7: Out Of Memory" has); else
// the one peer that every symptom it explains names, if they all name the same one (a dead node is
// named by the peers that lost it).
std::string host_from_peers(const Timeline& t, const RuleSet& rules, const RootCause& r) {
  const Finding& f = t.findings[r.finding];
  // A weak cause about a link to a peer that several machines report: the peer is the suspect.
  if (rules.rules[f.rule].fallback && !f.peer.empty()) {
    std::set<std::string> reporters;
    for (const Finding& g : t.findings)
      if (g.rule == f.rule && g.peer == f.peer && !g.host.empty()) reporters.insert(g.host);
    if (reporters.size() >= 2) return f.peer;
  }
  if (!f.host.empty()) return f.host;
  std::set<std::string> copies;
  for (size_t i : r.explained) {
    const Finding& g = t.findings[i];
    if (!g.host.empty() && rules.rules[g.rule].role == Role::cause && same_fault(f, g, rules)) copies.insert(g.host);
  }
  if (copies.size() == 1) return *copies.begin();
  // Weak causes joined only because a stronger one outweighs them say nothing of where it happened.
  std::set<std::string> peers;
  for (size_t i : r.explained) {
    const Finding& g = t.findings[i];
    if (!g.peer.empty() && !rules.rules[g.rule].fallback) peers.insert(g.peer);
  }
  return peers.size() == 1 ? *peers.begin() : std::string();
}

// The findings whose symptoms carry `want`, when every error of the job is a symptom with a signal
// (timeouts, teardowns, the library's own errors): nothing points at a device, a link or a host.
// Empty when some error says more.
std::vector<size_t> only_signals(const Timeline& t, const RuleSet& rules, Signal want) {
  std::vector<size_t> out;
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Rule& r = rules.rules[t.findings[i].rule];
    if (r.role == Role::context || r.role == Role::benign) continue;
    if (r.role != Role::symptom || r.signal == Signal::error) return {};
    if (r.signal == want) out.push_back(i);
  }
  return out;
}

// Every error is a rank that gave up waiting for its peers (a collective or barrier timeout) or a
// process ending after it, and no node shows a fault: a rank was busy outside the collective.
std::optional<Localisation> waited_without_fault(const Timeline& t, const RuleSet& rules) {
  std::vector<size_t> waits = only_signals(t, rules, Signal::timeout);
  if (waits.empty()) return std::nullopt;
  std::set<int> waiting, known;
  std::map<int, std::string> host_of;
  for (const Finding& f : t.findings)
    if (f.rank >= 0) {
      known.insert(f.rank);
      if (!f.host.empty()) host_of.emplace(f.rank, f.host);
    }
  std::string op, seq;
  for (size_t i : waits) {
    const Finding& f = t.findings[i];
    if (f.rank >= 0) waiting.insert(f.rank);
    if (auto it = f.fields.find("op"); it != f.fields.end() && op.empty()) op = it->second;
    if (auto it = f.fields.find("seq"); it != f.fields.end() && seq.empty()) seq = it->second;
  }
  std::vector<int> absent;
  for (int r : known)
    if (!waiting.count(r)) absent.push_back(r);
  Localisation l = localisation("waited-without-fault", "rank_stuck_outside_collective", "application", Blame::application);
  std::string what = op.empty() ? "a collective" : fmt::format("a collective ({}{})", op, seq.empty() ? "" : ", seq " + seq);
  if (absent.size() == 1 && !waiting.empty()) {
    l.rank = absent.front();
    if (auto it = host_of.find(l.rank); it != host_of.end()) l.host = it->second;
    l.title = fmt::format("Rank {} never joined {} that ranks {} waited in until the timeout", l.rank, what,
                          fmt::join(waiting, ","));
  } else {
    l.title = fmt::format("{} rank(s) waited in {} until the timeout, and no node shows a fault",
                          waiting.empty() ? std::string("The") : std::to_string(waiting.size()), what);
  }
  l.detail = "no hardware, network or host fault was found: the usual cause is a rank busy outside the collective "
             "(data loading or preprocessing, evaluation or checkpointing on one rank, another code path), or work "
             "that takes longer than the process group's timeout";
  l.action = "Look at what the rank that did not time out was doing then (its own log, a py-spy dump of it): move "
             "long single-rank work (evaluation, preprocessing, checkpoint saving) out of the collective path or make "
             "every rank take the same path; raise the process group timeout only if the work is legitimately that slow.";
  for (size_t i = 0; i < waits.size() && l.findings.size() < 5; ++i) l.findings.push_back(waits[i]);
  return l;
}

// Every error is the communication library's own (a system, internal or CUDA error in NCCL) with no
// device or link fault anywhere and no peer named: most often the environment the library runs in
// (interfaces, container devices and /dev/shm, library versions across ranks), not the hardware.
std::optional<Localisation> library_error_without_fault(const Timeline& t, const RuleSet& rules) {
  std::vector<size_t> errors = only_signals(t, rules, Signal::library);
  if (errors.empty()) return std::nullopt;
  std::set<std::string> hosts;
  for (size_t i : errors) hosts.insert(t.findings[i].host);
  Localisation l = localisation("library-error-without-fault", "communication_library_error", "configuration",
                                Blame::unknown);
  if (hosts.size() == 1) l.host = *hosts.begin();
  const Finding& first = t.findings[errors.front()];
  l.rank = first.rank;
  l.title = fmt::format("NCCL reported errors of its own ({}) and no node shows a device or link fault",
                        rules.rules[first.rule].title);
  l.detail = "the usual causes are the environment NCCL runs in: the network interface it picks (NCCL_SOCKET_IFNAME), "
             "devices or /dev/shm missing in a container, different NCCL or CUDA versions across ranks";
  l.action = "Rerun with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET) and read the first WARN line: check the interface and "
             "address NCCL chose on each node, the container's devices and /dev/shm size, and that every rank runs the same "
             "NCCL, CUDA and driver.";
  for (size_t i = 0; i < errors.size() && l.findings.size() < 5; ++i) l.findings.push_back(errors[i]);
  return l;
}

// Which cause demotes which: D demotes C when D explains C, unless C explains D and ranks better;
// and a repeat of the same fault is demoted to its best-ranked occurrence. Chains are followed to
// a root; a cycle resolves to its best-ranked member.
struct Demotions {
  const Timeline& t;
  const RuleSet& rules;
  const std::vector<size_t>& causes;
  std::map<size_t, size_t> demoted_by;
  std::map<size_t, std::string> why;
  std::set<size_t> repeats;  // demoted as the same fault, not as a consequence

  bool better(size_t a, size_t b) const { return cause_rank(t, rules, a) < cause_rank(t, rules, b); }

  void find() {
    const auto& F = t.findings;
    for (size_t c : causes) {
      std::optional<size_t> best;
      std::string best_why;
      for (size_t dd : causes) {
        if (dd == c) continue;
        std::string reason;
        if (same_fault(F[dd], F[c], rules)) {
          if (better(c, dd)) continue;
          reason = fmt::format("the same fault as {} on {}, reported again", rules.rules[F[dd].rule].id,
                               F[dd].host.empty() ? "an unidentified host" : F[dd].host);
        } else if (!explains(F[dd], F[c], rules, &reason)) {
          continue;
        }
        if (explains(F[c], F[dd], rules, nullptr) && better(c, dd)) continue;
        if (!best || better(dd, *best)) best = dd, best_why = reason;
      }
      if (best) {
        demoted_by[c] = *best;
        why[c] = best_why;
        if (same_fault(F[*best], F[c], rules)) repeats.insert(c);
      }
    }
  }

  size_t root_of(size_t c) const {
    std::vector<size_t> path{c};
    std::set<size_t> seen{c};
    while (demoted_by.count(path.back())) {
      size_t n = demoted_by.at(path.back());
      if (!seen.insert(n).second) {
        auto first = std::find(path.begin(), path.end(), n);
        return *std::min_element(first, path.end(), [&](size_t a, size_t b) { return better(a, b); });
      }
      path.push_back(n);
    }
    return path.back();
  }
};

// The root a symptom (or a cause that is not one) joins: a consequence that names its cause ("Xid
// 45 ... caused by previous Xid 149") joins a cause with that Xid first; otherwise the earliest
// root that explains it.
Link link_symptom(size_t i, const Timeline& t, const RuleSet& rules, const std::vector<size_t>& causes,
                  const Demotions& dem, const std::vector<size_t>& roots, std::map<size_t, size_t>& root_index) {
  const auto& F = t.findings;
  // A cause that is not counted as one is a weak cause stronger ones outweigh: it reads as a symptom.
  const bool outweighed_weak_cause = rules.rules[F[i].rule].role == Role::cause;
  Link link{i, std::nullopt, ""};
  auto named = [&](size_t c) {
    auto want = F[i].fields.find("cause_xid");
    auto have = F[c].fields.find("xid");
    return want != F[i].fields.end() && have != F[c].fields.end() && want->second == have->second;
  };
  bool best_named = false;
  for (size_t c : causes) {
    std::string why;
    if (!explains(F[c], F[i], rules, &why, outweighed_weak_cause)) continue;
    size_t r = dem.root_of(c);
    const Finding& rf = F[r];
    bool is_named = named(c);
    if (!link.root || (is_named && !best_named) ||
        (is_named == best_named &&
         std::tie(rf.time_inferred, rf.first_seen, root_index[r]) <
             std::tie(F[roots[*link.root]].time_inferred, F[roots[*link.root]].first_seen, *link.root))) {
      best_named = is_named;
      link.root = root_index[r];
      link.why = c == r ? why : fmt::format("{}, which {} accounts for", why, rules.rules[F[r].rule].id);
    }
  }
  return link;
}

// A weak (fallback) cause that stronger causes outweigh, and that no root's `explains` accounts for even
// as a symptom (by selector, scope or window): it joins the root of its own category, else of its
// family. Of another kind it stays unexplained: a root that says nothing of it must not claim it.
std::optional<Link> outweighed(size_t i, const Timeline& t, const RuleSet& rules, const std::vector<size_t>& roots) {
  const Rule& weak = rules.rules[t.findings[i].rule];
  auto first_root = [&](auto akin) -> std::optional<size_t> {
    for (size_t k = 0; k < roots.size(); ++k)
      if (akin(rules.rules[t.findings[roots[k]].rule])) return k;
    return std::nullopt;
  };
  std::optional<size_t> pick = first_root([&](const Rule& r) { return r.category == weak.category; });
  if (!pick) pick = first_root([&](const Rule& r) { return r.family == weak.family; });
  if (!pick) return std::nullopt;
  const Rule& root = rules.rules[t.findings[roots[*pick]].rule];
  return Link{i, *pick, fmt::format("{} is a weak cause, outweighed by {}", weak.id, root.id), false};
}

// With no root cause: the suspect the residual evidence points at, strongest localisation first.
std::optional<Localisation> localise(const Timeline& t, const RuleSet& rules, const Workload& w) {
  std::vector<GroupProgress> progress = rank_progress(t, rules);
  if (auto l = collective_mismatch(progress)) return l;
  if (auto l = host_mismatch(t, rules)) return l;
  if (auto l = stack_outlier(t, rules)) return l;
  if (auto l = progress_behind(progress, !only_signals(t, rules, Signal::timeout).empty())) return l;
  if (auto l = straggler(t)) return l;
  if (auto l = converging_peer(t, w)) return l;
  if (auto l = waited_without_fault(t, rules)) return l;
  if (auto l = library_error_without_fault(t, rules)) return l;
  if (auto l = init_incomplete(t, rules)) return l;
  if (auto l = first_failure(t, rules)) return l;
  if (auto l = throughput_drop(t)) return l;  // nothing failed that a line says: a job that only got slower
  return program_raised(t, rules);
}

}  // namespace

Diagnosis resolve_precedence(const Timeline& t, const RuleSet& rules, const Workload& w) {
  Diagnosis d;
  const auto& F = t.findings;
  // Fallback causes count only when no other cause is there; otherwise they read as symptoms.
  std::vector<size_t> causes, fallbacks;
  for (size_t i = 0; i < F.size(); ++i)
    if (rules.rules[F[i].rule].role == Role::cause) (rules.rules[F[i].rule].fallback ? fallbacks : causes).push_back(i);
  if (causes.empty()) {
    causes.swap(fallbacks);
  } else {
    // A weak cause whose line came before a stronger one it explains (an entry with first = true) is that
    // one's cause: it competes, and demotes it. Other entries of weak causes were written for when they
    // stand alone ("slurm.*", "nccl.*"), so they promote nothing.
    const size_t strong = causes.size();  // the weak ones promoted are appended after these
    for (size_t w : fallbacks)
      if (std::any_of(causes.begin(), causes.begin() + strong,
                      [&](size_t c) { return explains(F[w], F[c], rules, nullptr, false, true); }))
        causes.push_back(w);
    std::sort(causes.begin(), causes.end());
  }
  auto is_cause = [&](size_t i) { return std::binary_search(causes.begin(), causes.end(), i); };

  Demotions dem{t, rules, causes, {}, {}, {}};
  dem.find();
  std::set<size_t> root_set;
  for (size_t c : causes) root_set.insert(dem.root_of(c));
  std::vector<size_t> roots(root_set.begin(), root_set.end());
  std::sort(roots.begin(), roots.end(), [&](size_t a, size_t b) { return dem.better(a, b); });
  std::map<size_t, size_t> root_index;
  for (size_t i = 0; i < roots.size(); ++i) {
    d.roots.push_back(RootCause{roots[i], {}, repeated_on_one_gpu(t, rules, roots[i]), {}});
    root_index[roots[i]] = i;
  }

  // Symptoms and secondary causes join the earliest root that accounts for them.
  for (size_t i = 0; i < F.size(); ++i) {
    Role role = rules.rules[F[i].rule].role;
    if (role == Role::context || root_set.count(i)) continue;
    if (role != Role::symptom && role != Role::cause) continue;
    Link link{i, std::nullopt, ""};
    if (role == Role::cause && is_cause(i)) {
      size_t r = dem.root_of(i);
      link.root = root_index[r];
      link.why = dem.why[i];
      link.same_fault = dem.repeats.count(i) > 0 && dem.demoted_by[i] == r;
    } else {
      link = link_symptom(i, t, rules, causes, dem, roots, root_index);
      if (!link.root && role == Role::cause)
        if (auto weak = outweighed(i, t, rules, roots)) link = *weak;
    }
    if (link.root) d.roots[*link.root].explained.push_back(i);
    d.links.push_back(std::move(link));
  }

  for (RootCause& r : d.roots) r.host = host_from_peers(t, rules, r);
  if (d.roots.empty()) d.localisation = localise(t, rules, w);
  return d;
}

}  // namespace attribution

#include "core/analysis/slowdown.hpp"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <map>

namespace attribution {
namespace {

// The latest line's captures: a report folded into one finding keeps its first and last lines.
const std::map<std::string, std::string>* latest(const Finding& f) {
  return f.evidence.empty() ? nullptr : &f.evidence.back().captures;
}

double number(const std::map<std::string, std::string>& c, const char* key, double otherwise = -1) {
  auto it = c.find(key);
  return it == c.end() ? otherwise : std::strtod(it->second.c_str(), nullptr);
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::map<int, std::string> rank_hosts(const Timeline& t) {
  std::map<int, std::string> out;
  for (const Finding& f : t.findings)
    if (f.rank >= 0 && !f.host.empty()) out.emplace(f.rank, f.host);
  return out;
}

Localisation straggler_at(int rank, const std::string& host, std::string title, std::vector<size_t> findings) {
  Localisation l = localisation("straggler", "straggler", "unknown", Blame::unknown);
  l.rank = rank;
  l.host = host;
  l.title = std::move(title);
  l.detail = "one rank is slower than the others in the latest report, and every synchronous step waits for it: a "
             "throttled or failing GPU, a slow link, or uneven work on that rank";
  l.action = fmt::format("Check rank {}'s GPU on {} (nvidia-smi -q -d PERFORMANCE,CLOCK,TEMPERATURE,POWER for "
                         "throttling, dcgmi diag -r 2) and its links; if it stays slow, exclude the node and rerun.",
                         rank, host_or_its_node(host));
  l.findings = std::move(findings);
  return l;
}

}  // namespace

std::optional<Localisation> straggler(const Timeline& t) {
  // NVRx: the lowest latest score under the threshold.
  std::optional<size_t> worst;
  double worst_score = kStragglerScore;
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const auto* c = latest(t.findings[i]);
    if (!c || t.findings[i].rank < 0) continue;
    double score = number(*c, "score");
    if (score >= 0 && score < worst_score) worst_score = score, worst = i;
  }
  if (worst) {
    const Finding& f = t.findings[*worst];
    return straggler_at(f.rank, f.host,
                        fmt::format("Rank {} is a straggler: its GPU performance score is {:.2f}, under {:.1f} "
                                    "(NVIDIA Resiliency Extension)",
                                    f.rank, worst_score, kStragglerScore),
                        {*worst});
  }
  // Megatron: the slowest rank of the latest report, when it is clearly slower than the fastest.
  for (size_t i = t.findings.size(); i-- > 0;) {
    const auto* c = latest(t.findings[i]);
    if (!c) continue;
    double lo = number(*c, "min_ms"), hi = number(*c, "max_ms"), slow = number(*c, "slow_rank");
    if (lo <= 0 || hi < lo * kStragglerSpread || slow < 0) continue;
    int rank = static_cast<int>(slow);
    auto hosts = rank_hosts(t);
    auto it = hosts.find(rank);
    return straggler_at(rank, it == hosts.end() ? std::string() : it->second,
                        fmt::format("Rank {} is the slowest: {:.0f} ms per step where the fastest rank takes {:.0f} ms "
                                    "(Megatron's straggler detector)",
                                    rank, hi, lo),
                        {i});
  }
  return std::nullopt;
}

std::optional<Localisation> throughput_drop(const Timeline& t) {
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    if (f.series_head.size() < kSustained || f.series_tail.size() < kSustained) continue;
    float start = median(f.series_head);
    std::vector<float> recent(f.series_tail.end() - kSustained, f.series_tail.end());
    // Sustained: even the fastest of the latest reports is slower by the factor, not one slow step.
    float fastest_recent = *std::min_element(recent.begin(), recent.end());
    if (start <= 0 || fastest_recent < start * kDegradation) continue;
    Localisation l = localisation("throughput-drop", "throughput_degradation", "unknown", Blame::unknown);
    // Said in the log's own unit: a step time, or a rate (samples per second) that fell.
    bool rate = !f.evidence.empty() && f.evidence.front().captures.count("samples_per_sec");
    l.title = rate ? fmt::format("Steps got {:.1f}x slower: {:.1f} samples/s at the start, {:.1f} or fewer in the last "
                                 "{} reports",
                                 median(recent) / start, 1000.0 / start, 1000.0 / fastest_recent, kSustained)
                   : fmt::format("Steps got {:.1f}x slower: {:.0f} ms each at the start, {:.0f} ms or more in the last "
                                 "{} reports",
                                 median(recent) / start, start, fastest_recent, kSustained);
    l.detail = "a sustained throughput drop, not a failure (the job may still be running); the step time is the "
               "job's, printed by one rank, so it names no rank and no node";
    l.action = "Find what slowed every step: a straggler report (NVIDIA Resiliency Extension, Megatron's "
               "--log-straggler) or per-rank timings name the slow rank; also check GPU clocks and throttling "
               "(DCGM), the network's error counters and the data pipeline.";
    l.findings = {i};
    return l;
  }
  return std::nullopt;
}

}  // namespace attribution

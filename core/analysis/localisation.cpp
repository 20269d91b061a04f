#include "core/analysis/localisation.hpp"

#include <fmt/format.h>

namespace attribution {

Localisation localisation(std::string kind, std::string category, std::string family, Blame blame,
                          Confidence confidence) {
  Localisation l;
  l.kind = std::move(kind);
  l.category = std::move(category);
  l.family = std::move(family);
  l.blame = blame;
  l.confidence = confidence;
  return l;
}

std::string process_name(int rank, int64_t pid, const std::string& host) {
  std::string on = host.empty() ? std::string() : " on " + host;
  if (rank >= 0) return fmt::format("rank {}", rank);
  if (pid >= 0) return fmt::format("process {}{}", pid, on);
  return "a process" + on;
}

std::string host_or_its_node(const std::string& host) { return host.empty() ? std::string("its node") : host; }

}  // namespace attribution

#pragma once
// A suspect named when no fault signature was found: the analyses over the timeline's per-rank
// and per-host facts (core/analysis/ranks.hpp) and the residual ones in precedence.
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/enums.hpp"

namespace attribution {

struct Localisation {
  // collective-mismatch | host-mismatch | never-enqueued | stuck-in-collective | hang-minority |
  // converging-peer | waited-without-fault | library-error-without-fault | first-failure | program-raised
  std::string kind;
  std::string category;  // outcome category
  std::string family;
  Blame blame = Blame::unknown;
  Confidence confidence = Confidence::low;  // a suspect, not a verdict, unless the evidence is direct
  std::string title, detail;
  std::string action;  // empty: inspect the suspect's logs
  std::string host;
  int rank = -1;
  std::vector<size_t> findings;  // supporting evidence
};

// A localisation of `kind` with its outcome labels; the analysis fills in the rest.
Localisation localisation(std::string kind, std::string category, std::string family, Blame blame,
                          Confidence confidence = Confidence::low);

// How a title names a process: "rank 3", else "process 45012 on node03" (host and pid, as an NCCL
// prefix or a stack dump gives them), else "a process on node03".
std::string process_name(int rank, int64_t pid, const std::string& host);

// The host for an action's words: itself, or "its node" when no line says which.
std::string host_or_its_node(const std::string& host);

}  // namespace attribution

#pragma once
// Pass 5: one normalised timeline. Learns rank -> host/GPU and IP -> host from context lines,
// fills what each finding lacks, folds bursts (count, first/last seen), sorts deterministically.
#include <map>
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "core/rules/rules.hpp"

namespace attribution {

struct Timeline {
  std::vector<Finding> findings;  // sorted by (first_seen, rule id, host, rank, gpu, pci, location)
  int64_t benign = 0;             // lines of known noise dropped
  int64_t other_hosts = 0;        // lines about nodes outside the workload, dropped (causes are kept)
  // The job's node list names none of the hosts the lines name (a domain suffix, a typo, another
  // cluster's names): the list is not used to filter, and these are the hosts the lines name.
  std::vector<std::string> unmatched_hosts;
  // Lines two inputs both carry (kern.log and syslog, a file and Loki): counted once, at the
  // first input. Key: (source that repeated them, source kept), value: lines.
  std::map<std::pair<std::string, std::string>, int64_t> duplicates;
};

Timeline build_timeline(std::vector<Finding> raw, const RuleSet& rules, const Workload& workload);

}  // namespace attribution

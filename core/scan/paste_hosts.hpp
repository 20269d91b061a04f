#pragma once
// Pasted excerpts often print the fault's line without any machine on it (a libibverbs warning, a
// traceback, a kernel line copied alone). When the paste itself leaves no doubt which machine it is,
// those findings take it; when two machines are named, nothing is guessed.
#include <set>
#include <string>
#include <vector>

#include "core/base/model.hpp"

namespace attribution {

// One file's findings: when those that name a machine all name the same one, the others take it.
void share_only_host(std::vector<Finding>& findings);

// A flat paste whose findings name no machine at all, while its files name exactly one (a shell
// prompt above `df` output, a CI runner's header in a separate file): that machine is where they ran.
// `named` holds the machines the files name; a machine outside a known node list is not taken.
void adopt_only_named_host(const std::vector<std::vector<Finding>*>& files, const std::set<std::string>& named,
                           const std::vector<std::string>& nodes);

}  // namespace attribution

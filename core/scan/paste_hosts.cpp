#include "core/scan/paste_hosts.hpp"

#include <algorithm>
#include <string_view>

namespace attribution {
namespace {
void give_host(Finding& f, const std::string& host) {
  f.host = host;
  for (Evidence& e : f.evidence) e.host = host;
}
}  // namespace

void share_only_host(std::vector<Finding>& findings) {
  std::string_view only;
  bool hostless = false;
  for (const Finding& f : findings) {
    if (f.host.empty()) {
      hostless = true;
    } else if (only.empty()) {
      only = f.host;
    } else if (f.host != only) {
      return;
    }
  }
  if (!hostless || only.empty()) return;
  const std::string host(only);
  for (Finding& f : findings)
    if (f.host.empty()) give_host(f, host);
}

void adopt_only_named_host(const std::vector<std::vector<Finding>*>& files, const std::set<std::string>& named,
                           const std::vector<std::string>& nodes) {
  bool any = false;
  for (const auto* file : files)
    for (const Finding& f : *file) {
      if (!f.host.empty()) return;
      any = true;
    }
  if (!any || named.size() != 1) return;
  const std::string& host = *named.begin();
  if (!nodes.empty() && std::find(nodes.begin(), nodes.end(), host) == nodes.end()) return;
  for (auto* file : files)
    for (Finding& f : *file) give_host(f, host);
}

}  // namespace attribution

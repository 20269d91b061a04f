#include "core/store/store.hpp"

#include <algorithm>
#include <set>

#include "core/store/postgres_store.hpp"
#include "core/store/sqlite_store.hpp"

namespace attribution {

std::vector<std::string> root_hosts(const Report& report) {
  std::vector<std::string> out;
  auto add = [&](const std::string& h) {
    if (!h.empty() && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  };
  for (const auto& rc : report.root_causes) add(rc.host);
  for (const auto& n : report.affected_nodes)
    if (n.role == "root_cause") add(n.host);
  return out;
}

std::vector<std::string> named_hosts(const Report& report) {
  std::set<std::string> hosts;
  for (const auto& h : root_hosts(report)) hosts.insert(h);
  for (const auto& n : report.affected_nodes)
    if (!n.host.empty()) hosts.insert(n.host);
  return {hosts.begin(), hosts.end()};
}

Result<std::unique_ptr<Store>> open_store(const std::string& where, bool create) {
  if (where.rfind("postgresql://", 0) == 0 || where.rfind("postgres://", 0) == 0)
    return open_postgres_store(where, create);
  return open_sqlite_store(where, create);
}

}  // namespace attribution

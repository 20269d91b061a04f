#pragma once
// The report store (docs/serve.md): every diagnosis kept, verbatim, with the columns the history,
// the repeat-offender query and the dashboard filter on. One interface; SQLite is its first
// backend (a file shared by the diagnoses of one machine, written by many at once), PostgreSQL
// the second (one database for many clusters).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"
#include "core/report/report.hpp"

namespace attribution {

constexpr int kStoreSchemaVersion = 1;

// One stored report as lists show it; the full document is report_json().
struct StoredReport {
  int64_t id = 0;
  std::string workload_id, scheduler;
  Micros diagnosed_at = 0;
  std::string family, category, blame, confidence;
  std::vector<std::string> root_hosts;
  std::string summary;
};

struct ReportQuery {
  std::string family;  // empty: any
  std::string host;    // empty: any; else reports naming this host as a root cause or affected node
  std::optional<Micros> since;  // diagnosed at or after
  int64_t limit = 50;
  bool root_hosts = true;  // false: leave StoredReport::root_hosts empty (a chart needs no hosts)
};

// A node at the root of diagnoses: the repeat offenders.
struct NodeRecord {
  std::string host;
  int64_t root_cause_count = 0;
  std::map<std::string, int64_t> families;
  Micros last_seen = 0;  // the newest diagnosis naming it
  std::vector<int64_t> report_ids;  // newest first
};

struct StoreStats {
  int64_t reports = 0;
  int64_t bytes = 0;  // the database's size
  std::map<std::string, int64_t> by_family;
};

// A report as each view renders it: the JSON document is the record; the HTML and Markdown are
// kept beside it so the dashboard serves them without a second model.
struct RenderedReport {
  std::string json, html, markdown;
};
enum class DocumentFormat { json, html, markdown };

class Store {
 public:
  virtual ~Store() = default;
  // Keeps the renders (the JSON exactly as diagnose printed it) with the index columns of
  // `report`. Returns the new id.
  virtual Result<int64_t> add(const Report& report, const RenderedReport& rendered, Micros diagnosed_at) = 0;
  virtual Result<std::vector<StoredReport>> reports(const ReportQuery& query) = 0;
  // One stored render; nullopt when no report has this id.
  virtual Result<std::optional<std::string>> document(int64_t id, DocumentFormat format) = 0;
  virtual Result<std::vector<NodeRecord>> nodes(std::optional<Micros> since, int64_t min_count) = 0;
  virtual Result<StoreStats> stats() = 0;
  virtual std::string location() const = 0;  // the file or URL, without credentials
};

// What the store indexes of a report: the hosts at the root of it (root causes, then nodes whose
// role is root_cause), and every host it names.
std::vector<std::string> root_hosts(const Report& report);
std::vector<std::string> named_hosts(const Report& report);

// "reports.db" (SQLite, created if missing) or "postgresql://..." (the schema created if missing).
// Read-only users (history, nodes) pass create=false: a missing store is an error naming the file,
// not a new empty database.
Result<std::unique_ptr<Store>> open_store(const std::string& where, bool create);

}  // namespace attribution

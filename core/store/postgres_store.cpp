#include "core/store/postgres_store.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <libpq-fe.h>
#include <mutex>
#include <regex>

#include "core/base/enums.hpp"

namespace attribution {
namespace {

// The SQLite schema in PostgreSQL's types (docs/serve.md): BIGSERIAL ids, BIGINT microseconds.
constexpr const char* kPostgresSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reports (
  id BIGSERIAL PRIMARY KEY,
  workload_id TEXT NOT NULL, scheduler TEXT NOT NULL, diagnosed_at BIGINT NOT NULL,
  family TEXT NOT NULL, category TEXT NOT NULL, blame TEXT NOT NULL, confidence TEXT NOT NULL,
  summary TEXT NOT NULL, inputs_digest TEXT NOT NULL,
  report_json TEXT NOT NULL, report_html TEXT NOT NULL, report_md TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS report_hosts (
  report_id BIGINT NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
  host TEXT NOT NULL, root INTEGER NOT NULL, position INTEGER NOT NULL,
  family TEXT NOT NULL, diagnosed_at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS reports_by_time ON reports (diagnosed_at);
CREATE INDEX IF NOT EXISTS reports_by_family ON reports (family, diagnosed_at);
CREATE INDEX IF NOT EXISTS hosts_by_host ON report_hosts (host, root, diagnosed_at);
CREATE INDEX IF NOT EXISTS hosts_by_report ON report_hosts (report_id);
)sql";

constexpr int64_t kSchemaLock = 0x61747472;  // "attr": serialises first-time schema creation

// A query result, cleared on every path.
class PgResult {
 public:
  explicit PgResult(PGresult* r) : r_(r) {}
  ~PgResult() { PQclear(r_); }
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  bool ok() const {
    auto s = PQresultStatus(r_);
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
  }
  int rows() const { return PQntuples(r_); }
  std::string text(int row, int col) const { return std::string(PQgetvalue(r_, row, col), PQgetlength(r_, row, col)); }
  int64_t integer(int row, int col) const { return std::stoll(PQgetvalue(r_, row, col)); }
  std::string error() const { return PQresultErrorMessage(r_); }

 private:
  PGresult* r_;
};

class PostgresStore : public Store {
 public:
  PostgresStore(PGconn* conn, std::string where) : conn_(conn), where_(std::move(where)) {}
  ~PostgresStore() override { PQfinish(conn_); }

  // An existing store is only read (a role that may only SELECT and INSERT can use it); a missing
  // schema is created once, under an advisory lock, so that many first writers create it once.
  Status init(bool create) {
    if (!has_meta()) {
      if (!create)
        return make_error(ErrorKind::input, "not a report store (no schema version)", where_, 0, {},
                          "name a database that attribution diagnose --store created");
      if (auto st = run("BEGIN"); !st) return st;
      if (auto st = run(fmt::format("SELECT pg_advisory_xact_lock({})", kSchemaLock)); !st) return rollback(st);
      if (!has_meta()) {
        if (auto st = run(kPostgresSchema); !st) return rollback(st);
        // IF NOT EXISTS and ON CONFLICT as well: the catalog a waiter sees may predate the lock.
        if (auto st = run(fmt::format("INSERT INTO meta VALUES ('schema_version', '{}') ON CONFLICT DO NOTHING",
                                      kStoreSchemaVersion));
            !st)
          return rollback(st);
      }
      if (auto st = run("COMMIT"); !st) return rollback(st);
    }
    PgResult r(PQexec(conn_, "SELECT value FROM meta WHERE key = 'schema_version'"));
    if (!r.ok() || r.rows() != 1)
      return make_error(ErrorKind::input, "not a report store (no schema version)", where_, 0, {},
                        "name a database that attribution diagnose --store created");
    int version = std::atoi(r.text(0, 0).c_str());
    if (version > kStoreSchemaVersion)
      return make_error(ErrorKind::input,
                        fmt::format("the store's schema is version {}, newer than this tool's {}", version,
                                    kStoreSchemaVersion),
                        where_, 0, {}, "use the attribution version that wrote it, or a newer one");
    return Ok{};
  }

  Result<int64_t> add(const Report& r, const RenderedReport& rendered, Micros at) override {
    std::lock_guard lock(mu_);
    if (auto st = run("BEGIN"); !st) return st.error();
    std::string at_text = std::to_string(at);
    PgResult ins(exec(
        "INSERT INTO reports (workload_id, scheduler, diagnosed_at, family, category, blame, confidence, summary, "
        "inputs_digest, report_json, report_html, report_md) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12) "
        "RETURNING id",
        {r.workload.id, r.workload.scheduler, at_text, r.outcome.family, r.outcome.category,
         std::string(to_string(r.outcome.blame)), std::string(to_string(r.outcome.confidence)), r.outcome.summary,
         r.inputs_digest, rendered.json, rendered.html, rendered.markdown}));
    if (!ins.ok() || ins.rows() != 1) return rollback(failure("insert", ins)).error();
    int64_t id = ins.integer(0, 0);
    auto roots = root_hosts(r);
    int64_t extra = static_cast<int64_t>(roots.size());
    for (const auto& host : named_hosts(r)) {
      auto it = std::find(roots.begin(), roots.end(), host);
      bool root = it != roots.end();
      int64_t pos = root ? it - roots.begin() : extra++;
      PgResult h(exec("INSERT INTO report_hosts VALUES ($1,$2,$3,$4,$5,$6)",
                      {std::to_string(id), host, root ? "1" : "0", std::to_string(pos), r.outcome.family, at_text}));
      if (!h.ok()) return rollback(failure("insert host", h)).error();
    }
    if (auto st = run("COMMIT"); !st) return rollback(st).error();
    return id;
  }

  Result<std::vector<StoredReport>> reports(const ReportQuery& q) override {
    std::lock_guard lock(mu_);
    PgResult s(exec("SELECT id, workload_id, scheduler, diagnosed_at, family, category, blame, confidence, summary "
                    "FROM reports WHERE ($1 = '' OR family = $1) AND diagnosed_at >= $2::bigint AND "
                    "($3 = '' OR id IN (SELECT report_id FROM report_hosts WHERE host = $3)) "
                    "ORDER BY diagnosed_at DESC, id DESC LIMIT $4::bigint",
                    {q.family, std::to_string(q.since.value_or(INT64_MIN)), q.host, std::to_string(q.limit)}));
    if (!s.ok()) return failure("query", s).error();
    std::vector<StoredReport> out;
    for (int i = 0; i < s.rows(); ++i)
      out.push_back(StoredReport{s.integer(i, 0), s.text(i, 1), s.text(i, 2), s.integer(i, 3), s.text(i, 4),
                                 s.text(i, 5), s.text(i, 6), s.text(i, 7), {}, s.text(i, 8)});
    for (auto& r : out) {
      if (!q.root_hosts) break;
      PgResult h(exec("SELECT host FROM report_hosts WHERE report_id = $1::bigint AND root = 1 ORDER BY position",
                      {std::to_string(r.id)}));
      if (!h.ok()) return failure("query", h).error();
      for (int i = 0; i < h.rows(); ++i) r.root_hosts.push_back(h.text(i, 0));
    }
    return out;
  }

  Result<std::optional<std::string>> document(int64_t id, DocumentFormat format) override {
    std::lock_guard lock(mu_);
    const char* column = format == DocumentFormat::json ? "report_json" : format == DocumentFormat::html ? "report_html"
                                                                                                          : "report_md";
    PgResult s(exec(fmt::format("SELECT {} FROM reports WHERE id = $1::bigint", column), {std::to_string(id)}));
    if (!s.ok()) return failure("query", s).error();
    if (s.rows() == 0) return std::optional<std::string>();
    return std::optional<std::string>(s.text(0, 0));
  }

  Result<std::vector<NodeRecord>> nodes(std::optional<Micros> since, int64_t min_count) override {
    std::lock_guard lock(mu_);
    std::string from = std::to_string(since.value_or(INT64_MIN));
    PgResult s(exec("SELECT host, COUNT(*), MAX(diagnosed_at) FROM report_hosts WHERE root = 1 AND "
                    "diagnosed_at >= $1::bigint GROUP BY host HAVING COUNT(*) >= $2::bigint "
                    "ORDER BY COUNT(*) DESC, MAX(diagnosed_at) DESC, host",
                    {from, std::to_string(min_count)}));
    if (!s.ok()) return failure("query", s).error();
    std::vector<NodeRecord> out;
    for (int i = 0; i < s.rows(); ++i) out.push_back(NodeRecord{s.text(i, 0), s.integer(i, 1), {}, s.integer(i, 2), {}});
    for (auto& n : out) {
      PgResult d(exec("SELECT report_id, family FROM report_hosts WHERE host = $1 AND root = 1 AND "
                      "diagnosed_at >= $2::bigint ORDER BY diagnosed_at DESC, report_id DESC",
                      {n.host, from}));
      if (!d.ok()) return failure("query", d).error();
      for (int i = 0; i < d.rows(); ++i) {
        n.report_ids.push_back(d.integer(i, 0));
        ++n.families[d.text(i, 1)];
      }
    }
    return out;
  }

  Result<StoreStats> stats() override {
    std::lock_guard lock(mu_);
    StoreStats st;
    PgResult s(exec("SELECT family, COUNT(*) FROM reports GROUP BY family ORDER BY family", {}));
    if (!s.ok()) return failure("query", s).error();
    for (int i = 0; i < s.rows(); ++i) {
      st.by_family[s.text(i, 0)] = s.integer(i, 1);
      st.reports += s.integer(i, 1);
    }
    PgResult size(exec("SELECT pg_total_relation_size('reports') + pg_total_relation_size('report_hosts')", {}));
    if (size.ok() && size.rows() == 1) st.bytes = size.integer(0, 0);
    return st;
  }

  std::string location() const override { return where_; }

 private:
  bool has_meta() {
    PgResult r(exec("SELECT to_regclass('meta') IS NOT NULL", {}));
    return r.ok() && r.rows() == 1 && r.text(0, 0) == "t";
  }

  // One statement; when the server went away between statements (a restart), the connection is
  // made again and the statement retried once. Never inside a transaction: that is lost.
  PGresult* exec(const std::string& sql, const std::vector<std::string>& params) {
    std::vector<const char*> values;
    std::vector<int> lengths;
    for (const auto& p : params) {
      values.push_back(p.data());
      lengths.push_back(static_cast<int>(p.size()));
    }
    auto once = [&] {  // without parameters, PQexec: it takes several statements (the schema)
      return params.empty() ? PQexec(conn_, sql.c_str())
                            : PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                                           values.data(), lengths.data(), nullptr, 0);
    };
    bool idle = PQtransactionStatus(conn_) == PQTRANS_IDLE || PQstatus(conn_) == CONNECTION_BAD;
    PGresult* r = once();
    auto status = PQresultStatus(r);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && idle && PQstatus(conn_) == CONNECTION_BAD) {
      PQreset(conn_);
      if (PQstatus(conn_) == CONNECTION_OK) {
        PQclear(r);
        r = once();
      }
    }
    return r;
  }

  Status run(const std::string& sql) {
    PgResult r(exec(sql, {}));
    if (r.ok()) return Ok{};
    return failure("statement", r);
  }

  Status failure(const char* what, const PgResult& r) {
    std::string why = r.error().empty() ? PQerrorMessage(conn_) : r.error();
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (PQstatus(conn_) == CONNECTION_BAD) why = "the connection to the database was lost: " + why;
    return make_error(ErrorKind::output, fmt::format("report store: {} failed: {}", what, why), where_, 0, {},
                      "check that the database is up and reachable, and the role may write to it");
  }

  Status rollback(Status st) {
    PQclear(PQexec(conn_, "ROLLBACK"));
    return st;
  }

  PGconn* conn_;
  std::string where_;
  std::mutex mu_;  // one connection, shared by a server's threads
};

}  // namespace

std::string redact_url(const std::string& input) {
  static const std::regex password_param(R"((password=)[^&]*)");
  const std::string url = std::regex_replace(input, password_param, "$1***");
  auto scheme = url.find("://");
  auto at = url.find('@', scheme == std::string::npos ? 0 : scheme + 3);
  if (scheme == std::string::npos || at == std::string::npos) return url;
  auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon) + ":***" + url.substr(at);
}

Result<std::unique_ptr<Store>> open_postgres_store(const std::string& url, bool create) {
  // A database that does not answer is an error in seconds, not a hang: connect_timeout comes
  // first so that one in the URL still wins.
  const char* keys[] = {"connect_timeout", "dbname", nullptr};
  const char* values[] = {"10", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, 1);
  std::string where = redact_url(url);
  if (!conn || PQstatus(conn) != CONNECTION_OK) {
    std::string why = conn ? PQerrorMessage(conn) : "out of memory";
    PQfinish(conn);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return make_error(create ? ErrorKind::output : ErrorKind::input, "cannot connect to the report store: " + why,
                      where, 0, {}, "check the URL, that the server is up, and the role's password");
  }
  PQclear(PQexec(conn, "SET client_min_messages = warning"));  // no NOTICE for IF NOT EXISTS
  auto store = std::make_unique<PostgresStore>(conn, where);
  if (auto st = store->init(create); !st) return st.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace attribution

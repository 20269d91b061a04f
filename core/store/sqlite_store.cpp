#include "core/store/sqlite_store.hpp"

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <sqlite3.h>
#include <thread>

#include "core/base/enums.hpp"

namespace attribution {
namespace {

// The schema, version 1. The report is kept verbatim (report_json); the other columns are copies
// of its fields for the queries, indexed for the history, the host filter and the repeat offenders.
constexpr const char* kSqliteSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workload_id TEXT NOT NULL, scheduler TEXT NOT NULL, diagnosed_at INTEGER NOT NULL,
  family TEXT NOT NULL, category TEXT NOT NULL, blame TEXT NOT NULL, confidence TEXT NOT NULL,
  summary TEXT NOT NULL, inputs_digest TEXT NOT NULL,
  report_json TEXT NOT NULL, report_html TEXT NOT NULL, report_md TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS report_hosts (
  report_id INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
  host TEXT NOT NULL, root INTEGER NOT NULL, position INTEGER NOT NULL,
  family TEXT NOT NULL, diagnosed_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS reports_by_time ON reports (diagnosed_at);
CREATE INDEX IF NOT EXISTS reports_by_family ON reports (family, diagnosed_at);
CREATE INDEX IF NOT EXISTS hosts_by_host ON report_hosts (host, root, diagnosed_at);
CREATE INDEX IF NOT EXISTS hosts_by_report ON report_hosts (report_id);
)sql";

// A prepared statement, finalised on every path.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  Stmt& bind(int i, std::string_view v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  int step() { return sqlite3_step(s_); }
  std::string text(int c) const {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_, c))) : std::string();
  }
  int64_t integer(int c) const { return sqlite3_column_int64(s_, c); }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

class SqliteStore : public Store {
 public:
  SqliteStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteStore() override { sqlite3_close_v2(db_); }

  // An existing store is only read here (a reader needs no write lock); a new one is created once,
  // in WAL mode. A database that holds other tables is not a store: refused, never altered.
  Status init(bool create) {
    sqlite3_busy_timeout(db_, 60000);
    if (auto st = exec("PRAGMA foreign_keys = ON"); !st) return st;
    if (has_table("meta")) return check_version();
    if (!create) return not_a_store();
    // Another diagnosis may have created the store since the look above (its schema commits at
    // once, meta with the rest): tables now are a store only if meta is among them.
    if (has_any_table()) return has_table("meta") ? check_version() : not_a_store();
    // WAL: readers never block the writer, and writers queue on the busy timeout. Switching needs
    // a moment alone with the file, so a store created by many diagnoses at once retries.
    if (while_busy([&] { return sqlite3_exec(db_, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr); }) != SQLITE_OK)
      return failure("switching to WAL");
    if (auto st = begin_write(); !st) return st;
    if (has_table("meta")) {  // another writer created it meanwhile
      (void)exec("COMMIT");
      return check_version();
    }
    if (has_any_table()) {  // or made the file something else meanwhile
      (void)exec("ROLLBACK");
      return not_a_store();
    }
    if (auto st = exec(kSqliteSchema); !st) return rollback(st);
    if (auto st = exec(fmt::format("INSERT INTO meta VALUES ('schema_version', '{}')", kStoreSchemaVersion)); !st)
      return rollback(st);
    if (auto st = exec("COMMIT"); !st) return rollback(st);
    return check_version();
  }

  Result<int64_t> add(const Report& r, const RenderedReport& rendered, Micros at) override {
    std::lock_guard lock(mu_);
    if (auto st = begin_write(); !st) return st.error();
    Stmt ins(db_,
             "INSERT INTO reports (workload_id, scheduler, diagnosed_at, family, category, blame, confidence, "
             "summary, inputs_digest, report_json, report_html, report_md) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!ins.ok()) return rollback(failure("prepare")).error();
    ins.bind(1, r.workload.id).bind(2, r.workload.scheduler).bind(3, at).bind(4, r.outcome.family);
    ins.bind(5, r.outcome.category).bind(6, to_string(r.outcome.blame)).bind(7, to_string(r.outcome.confidence));
    ins.bind(8, r.outcome.summary).bind(9, r.inputs_digest).bind(10, rendered.json).bind(11, rendered.html);
    ins.bind(12, rendered.markdown);
    if (ins.step() != SQLITE_DONE) return rollback(failure("insert")).error();
    int64_t id = sqlite3_last_insert_rowid(db_);
    if (auto st = add_hosts(r, id, at); !st) return rollback(st).error();
    if (auto st = exec("COMMIT"); !st) return rollback(st).error();
    return id;
  }

  Result<std::vector<StoredReport>> reports(const ReportQuery& q) override {
    std::lock_guard lock(mu_);
    Stmt s(db_,
           "SELECT id, workload_id, scheduler, diagnosed_at, family, category, blame, confidence, summary "
           "FROM reports WHERE (?1 = '' OR family = ?1) AND diagnosed_at >= ?2 AND "
           "(?3 = '' OR id IN (SELECT report_id FROM report_hosts WHERE host = ?3)) "
           "ORDER BY diagnosed_at DESC, id DESC LIMIT ?4");
    if (!s.ok()) return failure("prepare").error();
    s.bind(1, q.family).bind(2, q.since.value_or(INT64_MIN)).bind(3, q.host).bind(4, q.limit);
    std::vector<StoredReport> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
      StoredReport r{s.integer(0), s.text(1), s.text(2), s.integer(3), s.text(4), s.text(5), s.text(6), s.text(7),
                     {}, s.text(8)};
      out.push_back(std::move(r));
    }
    if (rc != SQLITE_DONE) return failure("query").error();
    for (auto& r : out) {
      if (!q.root_hosts) break;
      Stmt h(db_, "SELECT host FROM report_hosts WHERE report_id = ? AND root = 1 ORDER BY position");
      h.bind(1, r.id);
      while ((rc = h.step()) == SQLITE_ROW) r.root_hosts.push_back(h.text(0));
      if (rc != SQLITE_DONE) return failure("query").error();
    }
    return out;
  }

  Result<std::optional<std::string>> document(int64_t id, DocumentFormat format) override {
    std::lock_guard lock(mu_);
    Stmt s(db_, format == DocumentFormat::json   ? "SELECT report_json FROM reports WHERE id = ?"
                : format == DocumentFormat::html ? "SELECT report_html FROM reports WHERE id = ?"
                                                 : "SELECT report_md FROM reports WHERE id = ?");
    if (!s.ok()) return failure("prepare").error();
    s.bind(1, id);
    int rc = s.step();
    if (rc == SQLITE_ROW) return std::optional<std::string>(s.text(0));
    if (rc == SQLITE_DONE) return std::optional<std::string>();
    return failure("query").error();
  }

  Result<std::vector<NodeRecord>> nodes(std::optional<Micros> since, int64_t min_count) override {
    std::lock_guard lock(mu_);
    Stmt s(db_,
           "SELECT host, COUNT(*), MAX(diagnosed_at) FROM report_hosts WHERE root = 1 AND diagnosed_at >= ?1 "
           "GROUP BY host HAVING COUNT(*) >= ?2 ORDER BY COUNT(*) DESC, MAX(diagnosed_at) DESC, host");
    if (!s.ok()) return failure("prepare").error();
    s.bind(1, since.value_or(INT64_MIN)).bind(2, min_count);
    std::vector<NodeRecord> out;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) out.push_back(NodeRecord{s.text(0), s.integer(1), {}, s.integer(2), {}});
    if (rc != SQLITE_DONE) return failure("query").error();
    for (auto& n : out) {
      Stmt d(db_,
             "SELECT report_id, family FROM report_hosts WHERE host = ? AND root = 1 AND diagnosed_at >= ? "
             "ORDER BY diagnosed_at DESC, report_id DESC");
      d.bind(1, n.host).bind(2, since.value_or(INT64_MIN));
      while ((rc = d.step()) == SQLITE_ROW) {
        n.report_ids.push_back(d.integer(0));
        ++n.families[d.text(1)];
      }
      if (rc != SQLITE_DONE) return failure("query").error();
    }
    return out;
  }

  Result<StoreStats> stats() override {
    std::lock_guard lock(mu_);
    StoreStats st;
    Stmt s(db_, "SELECT family, COUNT(*) FROM reports GROUP BY family ORDER BY family");
    if (!s.ok()) return failure("prepare").error();
    while (s.step() == SQLITE_ROW) {
      st.by_family[s.text(0)] = s.integer(1);
      st.reports += s.integer(1);
    }
    std::error_code ec;
    for (const char* suffix : {"", "-wal"}) {
      auto size = std::filesystem::file_size(path_ + suffix, ec);
      if (!ec) st.bytes += static_cast<int64_t>(size);
    }
    return st;
  }

  std::string location() const override { return path_; }

 private:
  Status add_hosts(const Report& r, int64_t id, Micros at) {
    auto roots = root_hosts(r);
    int64_t position = 0;
    for (const auto& host : named_hosts(r)) {
      auto it = std::find(roots.begin(), roots.end(), host);
      bool root = it != roots.end();
      Stmt h(db_, "INSERT INTO report_hosts VALUES (?,?,?,?,?,?)");
      int64_t pos = root ? it - roots.begin() : static_cast<int64_t>(roots.size()) + position++;
      h.bind(1, id).bind(2, host).bind(3, int64_t{root}).bind(4, pos).bind(5, r.outcome.family).bind(6, at);
      if (h.step() != SQLITE_DONE) return failure("insert host");
    }
    return Ok{};
  }

  // Runs `attempt` (it returns a SQLite result code) again while another connection holds the file
  // alone, creating the store, switching it to WAL or recovering it: SQLite answers BUSY at once then,
  // without waiting on the busy timeout. Up to 10 s of such answers. A BUSY that came after the busy
  // timeout is final: another writer holds the store, and waiting again would wait for hours.
  template <class Attempt>
  static int while_busy(Attempt attempt) {
    for (int tries = 0;; ++tries) {
      const auto t0 = std::chrono::steady_clock::now();
      int rc = attempt();
      bool busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
      bool waited = std::chrono::steady_clock::now() - t0 > std::chrono::seconds(1);
      if (!busy || waited || tries >= 500) return rc;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // The first row of a read: its step's result code, and its first column in `value`.
  int first_row(const char* sql, std::string_view arg, std::string* value) {
    return while_busy([&] {
      Stmt s(db_, sql);
      if (s.ok() && !arg.empty()) s.bind(1, arg);
      int rc = s.ok() ? s.step() : sqlite3_errcode(db_);
      if (rc == SQLITE_ROW && value) *value = s.text(0);
      return rc;
    });
  }

  bool has_table(const char* name) {
    return first_row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name, nullptr) == SQLITE_ROW;
  }
  bool has_any_table() { return first_row("SELECT 1 FROM sqlite_master WHERE type = 'table'", {}, nullptr) == SQLITE_ROW; }
  Status not_a_store() {
    return make_error(ErrorKind::input, "not a report store (no schema version)", path_, 0, {},
                      "name a file that attribution diagnose --store created, or a new file");
  }

  Status check_version() {
    std::string value;
    int rc = first_row("SELECT value FROM meta WHERE key = 'schema_version'", {}, &value);
    if (rc == SQLITE_DONE || (rc & 0xff) == SQLITE_ERROR) return not_a_store();  // no row, or no meta table
    if (rc != SQLITE_ROW) return failure("reading the schema version");
    int version = std::atoi(value.c_str());
    if (version > kStoreSchemaVersion)
      return make_error(ErrorKind::input,
                        fmt::format("the store's schema is version {}, newer than this tool's {}", version,
                                    kStoreSchemaVersion),
                        path_, 0, {}, "use the attribution version that wrote it, or a newer one");
    return Ok{};
  }

  Status begin_write() {
    if (while_busy([&] { return sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr); }) == SQLITE_OK) return Ok{};
    return failure("starting a write");
  }

  Status exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) == SQLITE_OK) return Ok{};
    std::string text = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return make_error(ErrorKind::output, "report store: " + text, path_, 0, {}, store_hint());
  }

  Status failure(const char* what) {
    return make_error(ErrorKind::output, fmt::format("report store: {} failed: {}", what, sqlite3_errmsg(db_)), path_,
                      0, {}, store_hint());
  }

  Status rollback(Status st) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return st;
  }

  static std::string store_hint() { return "check that the file and its directory are writable and the disk has space"; }

  sqlite3* db_;
  std::string path_;
  std::mutex mu_;  // one connection, shared by a server's threads
};

}  // namespace

Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path, bool create) {
  std::error_code ec;
  if (!create && !std::filesystem::exists(path, ec))
    return make_error(ErrorKind::input, "no report store here", path, 0, {},
                      "diagnose with --store FILE first, or check the path");
  if (std::filesystem::is_directory(path, ec))
    return make_error(ErrorKind::input, "is a directory, not a report store", path, 0, {}, "name a file, e.g. reports.db");
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return make_error(create ? ErrorKind::output : ErrorKind::input, "cannot open the report store: " + msg, path, 0,
                      {}, "check the path and its permissions");
  }
  auto store = std::make_unique<SqliteStore>(db, path);
  if (auto st = store->init(create); !st) return st.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace attribution

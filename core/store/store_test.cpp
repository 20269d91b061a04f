#include "core/store/store.hpp"

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "core/store/postgres_store.hpp"
#include "core/store/store_cases.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

TEST_CASE("store: a report is kept verbatim and found by family, host and time", "[store]") {
  test::TempDir d;
  auto store = open_store(d.path() + "/reports.db", true);
  REQUIRE(store);
  test::check_queries(**store);
}

TEST_CASE("store: repeat offenders count the diagnoses a node is at the root of", "[store]") {
  test::TempDir d;
  auto store = open_store(d.path() + "/reports.db", true);
  REQUIRE(store);
  test::check_offenders(**store);
}

TEST_CASE("store: many writers at once lose nothing", "[store]") {
  test::TempDir d;
  test::check_concurrent_writers(d.path() + "/reports.db");
}

TEST_CASE("store: many diagnoses creating one new store at once all open it", "[store]") {
  // Released together, the openers race through "no store yet" to "create it": each must end with
  // the store another created, never "not a report store".
  constexpr int kRounds = 20, kOpeners = 8;
  test::TempDir d;
  for (int round = 0; round < kRounds; ++round) {
    std::string path = d.path() + "/r" + std::to_string(round) + ".db";
    std::atomic<int> ready{0};
    std::atomic<int> failures{0};
    std::mutex mu;
    std::string first_error;
    std::vector<std::thread> openers;
    for (int k = 0; k < kOpeners; ++k)
      openers.emplace_back([&] {
        ++ready;
        while (ready < kOpeners) std::this_thread::yield();
        auto store = open_store(path, true);
        if (!store) {
          std::lock_guard lock(mu);
          if (failures++ == 0) first_error = store.error().message;
        }
      });
    for (auto& t : openers) t.join();
    INFO("round " << round << ": " << first_error);
    REQUIRE(failures == 0);
  }
}

TEST_CASE("store: WAL mode and a schema version, and a newer schema is refused", "[store]") {
  test::TempDir d;
  std::string path = d.path() + "/reports.db";
  REQUIRE(open_store(path, true));
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  std::string mode;
  sqlite3_exec(
      db, "PRAGMA journal_mode",
      [](void* out, int, char** v, char**) {
        *static_cast<std::string*>(out) = v[0];
        return 0;
      },
      &mode, nullptr);
  CHECK(mode == "wal");
  REQUIRE(sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  sqlite3_close(db);
  auto again = open_store(path, false);
  REQUIRE(!again);
  CHECK(again.error().message.find("version 99") != std::string::npos);
}

TEST_CASE("store: reading a store that is not there, or not a store, says so", "[store]") {
  test::TempDir d;
  auto missing = open_store(d.path() + "/none.db", false);
  REQUIRE(!missing);
  CHECK(missing.error().message == "no report store here");
  CHECK(missing.error().file == d.path() + "/none.db");
  std::string junk = d.file("junk.db", std::string(4096, 'x'));
  auto bad = open_store(junk, false);
  REQUIRE(!bad);
  CHECK(bad.error().message.find("not a report store") != std::string::npos);
  auto dir = open_store(d.path(), true);
  REQUIRE(!dir);
  CHECK(dir.error().message.find("directory") != std::string::npos);
}

TEST_CASE("store: a PostgreSQL URL is shown without its password", "[store]") {
  CHECK(redact_url("postgresql://attr:s3cret@db:5432/reports") == "postgresql://attr:***@db:5432/reports");
  CHECK(redact_url("postgresql://db/reports") == "postgresql://db/reports");
  CHECK(redact_url("postgresql://attr@db/reports?sslmode=require") == "postgresql://attr@db/reports?sslmode=require");
  CHECK(redact_url("postgresql://db/reports?user=a&password=s3cret&sslmode=require") ==
        "postgresql://db/reports?user=a&password=***&sslmode=require");
}

TEST_CASE("store: a SQLite database that is not a store is refused and left as it was", "[store]") {
  test::TempDir d;
  std::string path = d.path() + "/other.db";
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "CREATE TABLE t (x INTEGER)", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  auto store = open_store(path, true);
  REQUIRE(!store);
  CHECK(store.error().message.find("not a report store") != std::string::npos);
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  int tables = 0;
  sqlite3_exec(
      db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
      [](void* out, int, char** v, char**) {
        *static_cast<int*>(out) = std::atoi(v[0]);
        return 0;
      },
      &tables, nullptr);
  sqlite3_close(db);
  CHECK(tables == 1);  // nothing added
}

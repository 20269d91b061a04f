// The PostgreSQL backend against a real server: tests/store/postgres.sh starts one (initdb and
// pg_ctl on a private directory and port, no systemd) and runs these with ATTRIBUTION_TEST_PG_URL
// set. Hidden ([.]) from the plain test run, which has no server; without the URL they fail.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <libpq-fe.h>

#include "core/store/postgres_store.hpp"
#include "core/store/store_cases.hpp"

using namespace attribution;

namespace {

// The database emptied, so that each case starts on a store with no report.
std::string fresh_database() {
  const char* url = std::getenv("ATTRIBUTION_TEST_PG_URL");
  REQUIRE(url != nullptr);  // run through tests/store/postgres.sh
  PGconn* c = PQconnectdb(url);
  REQUIRE(PQstatus(c) == CONNECTION_OK);
  PQclear(PQexec(c, "SET client_min_messages = warning"));
  PGresult* r = PQexec(c, "DROP TABLE IF EXISTS report_hosts, reports, meta");
  CHECK(PQresultStatus(r) == PGRES_COMMAND_OK);
  PQclear(r);
  PQfinish(c);
  return url;
}

}  // namespace

TEST_CASE("postgres store: the same queries as the SQLite store", "[.][postgres]") {
  auto store = open_store(fresh_database(), true);
  REQUIRE(store);
  test::check_queries(**store);
}

TEST_CASE("postgres store: repeat offenders", "[.][postgres]") {
  auto store = open_store(fresh_database(), true);
  REQUIRE(store);
  test::check_offenders(**store);
}

TEST_CASE("postgres store: 8 writers at once, each its own connection, from an empty database", "[.][postgres]") {
  test::check_concurrent_writers(fresh_database());  // the first writers race to create the schema
}

TEST_CASE("postgres store: a password never appears in what the store says of itself", "[.][postgres]") {
  auto store = open_store(fresh_database(), true);
  REQUIRE(store);
  CHECK((*store)->location().find("***") != std::string::npos);
  auto bad = open_store("postgresql://nobody:wrong@127.0.0.1:1/none", true);
  REQUIRE(!bad);
  CHECK(bad.error().message.find("cannot connect") != std::string::npos);
  CHECK(bad.error().file.find("wrong") == std::string::npos);
}

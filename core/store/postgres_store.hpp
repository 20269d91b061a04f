#pragma once
// The PostgreSQL backend of the report store (libpq): one database shared by many clusters, the
// same schema and queries as the SQLite file (docs/fleet.md).
#include <memory>
#include <string>

#include "core/store/store.hpp"

namespace attribution {

// url: postgresql://user:password@host:port/db?... (libpq's URI syntax). The schema is created
// when missing, under an advisory lock so that many first writers at once create it once.
Result<std::unique_ptr<Store>> open_postgres_store(const std::string& url, bool create);

// The URL without its password, for messages and the dashboard.
std::string redact_url(const std::string& url);

}  // namespace attribution

#pragma once
// The SQLite backend of the report store: one file, WAL mode, many writers at once.
#include <memory>
#include <string>

#include "core/store/store.hpp"

namespace attribution {

Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path, bool create);

}  // namespace attribution

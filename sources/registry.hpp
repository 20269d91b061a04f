#pragma once
// Every source kind and scheduler this build knows: adding one is its folder and one line of
// registry.cpp.
#include <string_view>
#include <vector>

#include "sources/source.hpp"

namespace attribution {

const std::vector<const SourceKind*>& source_kinds();
const std::vector<const Scheduler*>& schedulers();
const SourceKind* find_source_kind(std::string_view name);  // null: unknown
// This machine's file system as a file lister (the files kind's own).
FileLister& local_files();
const Scheduler* find_scheduler(std::string_view name);     // null: unknown

}  // namespace attribution

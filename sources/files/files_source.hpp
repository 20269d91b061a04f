#pragma once
// The `files` source: globs with {job} {host} {rank} templates, and the ad-hoc --logs walk.
// It decides which files belong to which host/rank; reading and matching happen in the scan.
#include <memory>
#include <string>
#include <vector>

#include "core/pipeline/config.hpp"
#include "core/scan/input.hpp"
#include "core/base/model.hpp"

namespace attribution {

// Expands one files source's templates for this workload. Problems go to `coverage`.
std::vector<InputFile> list_source_files(const SourceConfig& source, size_t source_index, const std::string& base_dir,
                                         const Workload& workload, SourceCoverage& coverage);

// --logs PATH...: walks files and directories; hosts from node-named path parts or subdirectories.
std::vector<InputFile> list_adhoc_files(const std::vector<std::string>& paths, size_t source_index,
                                        const Workload& workload, SourceCoverage& coverage);


}  // namespace attribution

#pragma once
// The `files` source: globs with {job} {host} {rank} templates, and the ad-hoc --logs walk.
// It decides which files belong to which host/rank; reading and matching happen in the scan.
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/line_extract.hpp"
#include "core/model.hpp"

namespace attribution {

struct InputFile {
  std::string path;  // a file, or for inline text the name shown in evidence locations
  size_t source = 0;      // index into the collection's sources
  std::string host_hint;  // from the path: {host}, a node-named directory, or a --logs subdirectory
  int rank_hint = -1;     // from {rank} or a "rank-N" file name
  std::shared_ptr<const std::string> text;  // inline content (scheduler facts) instead of a file
  std::shared_ptr<const FileExtract> extract = nullptr;  // replay: the file's recorded in-window lines
};

// Expands one files source's templates for this workload. Problems go to `coverage`.
std::vector<InputFile> list_source_files(const SourceConfig& source, size_t source_index, const std::string& base_dir,
                                         const Workload& workload, SourceCoverage& coverage);

// --logs PATH...: walks files and directories; hosts from node-named path parts or subdirectories.
std::vector<InputFile> list_adhoc_files(const std::vector<std::string>& paths, size_t source_index,
                                        const Workload& workload, SourceCoverage& coverage);

// "kern.log", "dmesg", "messages", "syslog", "journal" name kernel/system logs.
bool is_system_log_name(const std::string& path);

}  // namespace attribution

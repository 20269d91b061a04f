#pragma once
// The `files` source: globs with {job} {host} {rank} templates, and the ad-hoc --logs walk.
// It decides which files belong to which host/rank; reading and matching happen in the scan.
#include <string>
#include <vector>

#include "core/base/text.hpp"
#include "sources/source.hpp"

namespace attribution {

struct FilesSettings : SourceSettings {
  FileGlobs globs;
};

class FilesKind : public SourceKind {
 public:
  std::string_view name() const override { return "files"; }
  Result<std::shared_ptr<const SourceSettings>> parse(const TomlReader& table, const ParseContext& context) const override;
  std::vector<InputFile> collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                 SourceCoverage& coverage) const override;
  bool replaced_by_adhoc_logs() const override { return true; }
};

// Expands one files source's templates for this workload. Problems go to `coverage`.
std::vector<InputFile> list_source_files(const FileGlobs& globs, size_t source_index, const Workload& workload,
                                         SourceCoverage& coverage);

// --logs PATH...: walks files and directories; hosts from node-named path parts or subdirectories.
std::vector<InputFile> list_adhoc_files(const std::vector<std::string>& paths, size_t source_index,
                                        const Workload& workload, SourceCoverage& coverage);

// The file system.
class DiskFileLister : public FileLister {
 public:
  std::vector<InputFile> list(const FileGlobs& globs, size_t index, const Workload& workload,
                              SourceCoverage& coverage) override {
    return list_source_files(globs, index, workload, coverage);
  }
  std::vector<InputFile> list_adhoc(const std::vector<std::string>& paths, size_t index, const Workload& workload,
                                    SourceCoverage& coverage) override {
    return list_adhoc_files(paths, index, workload, coverage);
  }
  Result<std::string> read_text(const std::string& path) override { return read_text_file(path); }
};

}  // namespace attribution

#pragma once
// Pass 3: every configured source lists what it will read for this workload and window, and
// starts its coverage record. Sources this version cannot read are recorded as skipped.
#include <string>
#include <vector>

#include "core/pipeline/config.hpp"
#include "core/base/model.hpp"
#include "core/rules/rules.hpp"
#include "core/scan/input.hpp"
#include "sources/files/files_source.hpp"

namespace attribution {

class HttpClient;

// Where the files of file sources come from: the file system, or a bundle's record of what was
// listed (a replay touches no file of the original machine).
class FileLister {
 public:
  virtual ~FileLister() = default;
  virtual std::vector<InputFile> list(const SourceConfig& source, size_t index, const std::string& base_dir,
                                      const Workload& workload, SourceCoverage& coverage) = 0;
  virtual std::vector<InputFile> list_adhoc(const std::vector<std::string>& paths, size_t index,
                                            const Workload& workload, SourceCoverage& coverage) = 0;
};

class DiskFileLister : public FileLister {
 public:
  std::vector<InputFile> list(const SourceConfig& source, size_t index, const std::string& base_dir,
                              const Workload& workload, SourceCoverage& coverage) override {
    return list_source_files(source, index, base_dir, workload, coverage);
  }
  std::vector<InputFile> list_adhoc(const std::vector<std::string>& paths, size_t index, const Workload& workload,
                                    SourceCoverage& coverage) override {
    return list_adhoc_files(paths, index, workload, coverage);
  }
};

struct Transports;

// Files are listed here and read by the scan; network sources (Prometheus, Loki, Kubernetes) are
// queried here and their lines handed on as inline text. Commands are not run here.
Collection collect(const Config& config, const Workload& workload, const std::vector<std::string>& adhoc_logs,
                   const std::vector<MetricSpec>& metrics, const Transports& transports);

}  // namespace attribution

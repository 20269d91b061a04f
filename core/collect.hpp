#pragma once
// Pass 3: every configured source lists what it will read for this workload and window, and
// starts its coverage record. Sources this version cannot read are recorded as skipped.
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/model.hpp"
#include "core/rules.hpp"
#include "sources/files_source.hpp"

namespace attribution {

struct SourceRuntime {
  std::string name, kind, stream;
  TimeZone zone;
  std::optional<Micros> boot_time;
  bool syslog_by_file_name = false;  // --logs: kern.log, dmesg, messages... are read as syslog
};

struct Collection {
  std::vector<SourceRuntime> sources;
  std::vector<SourceCoverage> coverage;  // parallel to sources
  std::vector<InputFile> files;          // in source order, then path order
};

class HttpClient;

// Files are listed here and read by the scan; network sources (Prometheus) are queried here and
// their findings handed on as lines.
Collection collect(const Config& config, const Workload& workload, const std::vector<std::string>& adhoc_logs,
                   const std::vector<MetricSpec>& metrics, HttpClient& http);

}  // namespace attribution

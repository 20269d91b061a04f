#pragma once
// The `loki` source: /loki/api/v1/query_range for the job's window with a LogQL template, paged
// forward, lines kept only for the job's hosts. Each host's lines become one inline input that
// the scan reads like a file, every line prefixed with Loki's time and the host (docs/loki.md).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/model.hpp"
#include "sources/host_labels.hpp"
#include "sources/source.hpp"
#include "sources/transport/http.hpp"
#include "sources/transport/http_auth.hpp"

namespace attribution {

struct LokiSettings : SourceSettings, HttpEndpoint, HostLabels {
  std::string query;   // LogQL with {job} {hosts_regex} {namespace}; empty: the hosts through the first host label
  std::string org_id;  // the tenant (X-Scope-OrgID)
  int64_t limit = 5000;  // entries per request
};

class LokiKind : public SourceKind {
 public:
  std::string_view name() const override { return "loki"; }
  Result<std::shared_ptr<const SourceSettings>> parse(const TomlReader& table, const ParseContext& context) const override;
  // Lines of a failed later page are kept: the source is then partial.
  std::vector<InputFile> collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                 SourceCoverage& coverage) const override;
};

struct LokiStream {
  std::map<std::string, std::string> labels;
  std::string key;  // the labels as text: with time and line, what identifies an entry
};

struct LokiEntry {
  int64_t ns = 0;  // Loki's timestamp, nanoseconds since the epoch
  std::string line;
  size_t stream = 0;                            // index into LokiPage::streams
  std::map<std::string, std::string> metadata;  // Loki 3 structured metadata (third element), if any
};

struct LokiPage {
  std::vector<LokiStream> streams;
  std::vector<LokiEntry> entries;  // in answer order (per stream, then per value)
};

// Parses a query_range answer. An Error names the fault: not JSON (truncated or malformed),
// Loki's error status, or a result that is not log streams.
Result<LokiPage> parse_loki_streams(std::string_view body);

// The source's LogQL with {job} {hosts_regex} {namespace} filled in; without a `query`, the
// job's hosts through the first host label. {hosts_regex} selects `hosts` (label values), by
// default the job's nodes and the host_map values naming them.
std::string loki_query(const LokiSettings& source, const Workload& workload, const std::vector<std::string>& hosts);
std::string loki_query(const LokiSettings& source, const Workload& workload);

// "2025-03-14T09:41:43.123456Z node03 loki: <line>": an RFC 3339 stamp and a syslog-style host
// and tag that core/line_prefix.cpp reads, before the line's own prefixes.
std::string loki_line(int64_t ns, const std::string& host, std::string_view line);

// Queries the source for the workload's window and hosts; one inline input per host (sorted),
// lines in time order. Faults go to `coverage` (status, reason); lines of the pages that
// arrived before a failure are kept.
std::vector<InputFile> collect_loki(const LokiSettings& source, size_t source_index, const Workload& workload,
                                    HttpClient& http, SourceCoverage& coverage);

}  // namespace attribution

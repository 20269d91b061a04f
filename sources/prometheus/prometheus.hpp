#pragma once
// The `prometheus` source: /api/v1/query_range for each metric spec, scoped to the job's hosts
// and window, evaluated per series; each series whose condition holds becomes one line in the
// "metrics" stream for the rules to read (docs/metrics.md).
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "core/rules/rules.hpp"
#include "sources/host_labels.hpp"
#include "sources/source.hpp"
#include "sources/transport/http.hpp"
#include "sources/transport/http_auth.hpp"

namespace attribution {

struct PrometheusSettings : SourceSettings, HttpEndpoint, HostLabels {
  Micros step = 15 * kMicrosPerSecond;
};

class PrometheusKind : public SourceKind {
 public:
  std::string_view name() const override { return "prometheus"; }
  Result<std::shared_ptr<const SourceSettings>> parse(const TomlReader& table, const ParseContext& context) const override;
  std::vector<InputFile> collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                 SourceCoverage& coverage) const override;
};

struct MetricSample {
  Micros time = 0;
  double value = 0;
};

struct MetricSeries {
  std::map<std::string, std::string> labels;
  std::vector<MetricSample> samples;  // time order; sentinel (blank) values already dropped
};

// Parses a query_range response; an Error carries Prometheus's errorType and error.
Result<std::vector<MetricSeries>> parse_query_range(std::string_view body);

// The line stating that `series` meets `spec`, or nothing when it does not.
std::optional<std::string> evaluate_metric(const MetricSpec& spec, const MetricSeries& series,
                                           const std::vector<std::string>& host_labels,
                                           const std::map<std::string, std::string>& host_map = {});

// The PromQL selector for `metric` on these hosts through any of the host labels.
std::string scoped_query(const std::string& metric, const std::vector<std::string>& hosts,
                         const std::vector<std::string>& host_labels);

// Runs every spec against the source; returns the metrics-stream text and fills `coverage`.
std::string collect_prometheus(const PrometheusSettings& source, const std::vector<MetricSpec>& specs, const Workload& workload,
                               HttpClient& http, SourceCoverage& coverage);

}  // namespace attribution

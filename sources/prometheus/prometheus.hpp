#pragma once
// The `prometheus` source: /api/v1/query_range for each metric spec, scoped to the job's hosts
// and window, evaluated per series; each series whose condition holds becomes one line in the
// "metrics" stream for the rules to read (docs/metrics.md).
#include <string>
#include <vector>

#include "core/pipeline/config.hpp"
#include "core/base/model.hpp"
#include "core/rules/rules.hpp"
#include "sources/transport/http.hpp"

namespace attribution {

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
// The node a series is about: the first host label present (instance without its port, a domain
// cut off), through `host_map` when the label names something else (an exporter pod).
std::string series_host(const std::map<std::string, std::string>& labels, const std::vector<std::string>& host_labels,
                        const std::map<std::string, std::string>& host_map);

std::optional<std::string> evaluate_metric(const MetricSpec& spec, const MetricSeries& series,
                                           const std::vector<std::string>& host_labels,
                                           const std::map<std::string, std::string>& host_map = {});

// The PromQL selector for `metric` on these hosts through any of the host labels.
std::string scoped_query(const std::string& metric, const std::vector<std::string>& hosts,
                         const std::vector<std::string>& host_labels);

// Runs every spec against the source; returns the metrics-stream text and fills `coverage`.
std::string collect_prometheus(const SourceConfig& source, const std::vector<MetricSpec>& specs, const Workload& workload,
                               HttpClient& http, SourceCoverage& coverage);

}  // namespace attribution

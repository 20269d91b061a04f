#include "sources/prometheus/prometheus.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <re2/re2.h>
#include <set>
#include <simdjson.h>

#include "core/base/identity.hpp"
#include "core/base/toml_util.hpp"
#include "sources/transport/http_auth.hpp"

namespace attribution {
namespace {

constexpr int64_t kMaxPointsPerSeries = 11000;  // Prometheus refuses longer query_range results

// DCGM "blank" sentinels (>= 0x7ffffffffffffff0 as int64, and the fp64 blank) are not data.
bool is_blank(double v) { return v >= 9.2233720368547758e18 || v == 140737488355328.0 || std::isnan(v); }

std::string number(double v) {
  if (std::fabs(v) < 1e15 && v == std::floor(v)) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:g}", v);
}

std::string label_text(const std::map<std::string, std::string>& labels) {
  std::string s = "{";
  for (const auto& [k, v] : labels) {
    if (s.size() > 1) s += ',';
    s += fmt::format("{}=\"{}\"", k, v);
  }
  return s + "}";
}

}  // namespace

Result<std::vector<MetricSeries>> parse_query_range(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(body);
  simdjson::dom::element doc;
  if (auto err = parser.parse(padded).get(doc); err)
    return make_error(ErrorKind::input, fmt::format("not JSON: {}", simdjson::error_message(err)));
  std::string_view status, type, error;
  if (doc["status"].get(status) != simdjson::SUCCESS) return make_error(ErrorKind::input, "no status in the response");
  if (status != "success") {
    if (doc["errorType"].get(type) != simdjson::SUCCESS) type = "unknown";
    if (doc["error"].get(error) != simdjson::SUCCESS) error = "(no message)";
    return make_error(ErrorKind::input, fmt::format("Prometheus error {}: {}", type, error));
  }
  // query_range answers a range matrix; anything else (a proxy rewriting to /query, a newer API)
  // would silently read as "no series".
  std::string_view result_type;
  if (doc["data"]["resultType"].get(result_type) == simdjson::SUCCESS && result_type != "matrix")
    return make_error(ErrorKind::input, fmt::format("resultType \"{}\", expected \"matrix\"", result_type));
  simdjson::dom::array result;
  if (doc["data"]["result"].get(result) != simdjson::SUCCESS) return make_error(ErrorKind::input, "no data.result array");
  std::vector<MetricSeries> out;
  for (simdjson::dom::element r : result) {
    MetricSeries s;
    simdjson::dom::object metric;
    if (r["metric"].get(metric) == simdjson::SUCCESS)
      for (auto [k, v] : metric) {
        std::string_view sv;
        if (v.get(sv) == simdjson::SUCCESS) s.labels[std::string(k)] = std::string(sv);
      }
    simdjson::dom::array values;
    if (r["values"].get(values) != simdjson::SUCCESS) continue;
    for (simdjson::dom::element pair : values) {
      double t;
      std::string_view v;
      if (pair.at(0).get(t) != simdjson::SUCCESS || pair.at(1).get(v) != simdjson::SUCCESS) continue;
      char* end = nullptr;
      std::string vs(v);
      double value = std::strtod(vs.c_str(), &end);
      if (end == vs.c_str() || is_blank(value)) continue;
      s.samples.push_back(MetricSample{static_cast<Micros>(std::llround(t * 1e6)), value});
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string scoped_query(const std::string& metric, const std::vector<std::string>& hosts,
                         const std::vector<std::string>& host_labels) {
  const std::string alt = regex_alternation(hosts);
  std::string q;
  for (const auto& label : host_labels) {
    if (!q.empty()) q += " or ";
    // instance is host:port; a domain may follow the short name in any label.
    std::string re = label == "instance" ? fmt::format("({})(\\\\..*)?(:[0-9]+)?", alt) : fmt::format("({})(\\\\..*)?", alt);
    q += fmt::format("{}{{{}=~\"{}\"}}", metric, label, re);
  }
  return q;
}

std::optional<std::string> evaluate_metric(const MetricSpec& spec, const MetricSeries& s,
                                           const std::vector<std::string>& host_labels,
                                           const std::map<std::string, std::string>& host_map) {
  if (s.samples.empty()) return std::nullopt;
  std::optional<size_t> fired;
  double amount = 0, acc = 0;
  const double first = s.samples.front().value;
  for (size_t i = 0; i < s.samples.size(); ++i) {
    double v = s.samples[i].value;
    if (spec.condition == "increase") {
      if (i > 0) {
        double prev = s.samples[i - 1].value;
        acc += v >= prev ? v - prev : v;  // a counter reset starts again from zero
      }
      if (!fired && acc > spec.threshold) fired = i;
      amount = acc;
    } else if (spec.condition == "changed") {
      if (!fired && v != first && v != 0) fired = i, amount = v;
    } else if (!fired && v > spec.threshold) {
      fired = i, amount = v;
    }
  }
  if (!fired) return std::nullopt;
  std::string host = series_host(s.labels, host_labels, host_map), gpu = "-", pci = "-";
  if (host.empty()) host.push_back('-');  // not = "-": GCC 12 -Wrestrict false positive
  if (auto it = s.labels.find("gpu"); it != s.labels.end() && !it->second.empty()) gpu = it->second;
  if (auto it = s.labels.find("pci_bus_id"); it != s.labels.end() && !it->second.empty()) pci = it->second;
  const MetricSample& at = s.samples[*fired];
  return fmt::format("{} metric {} {} {} host {} gpu {} pci {} from {} to {} series {}", format_rfc3339(at.time),
                     s.labels.count("__name__") ? s.labels.at("__name__") : spec.selector, spec.condition, number(amount),
                     host, gpu, pci, number(first), number(s.samples.back().value), label_text(s.labels));
}

std::string collect_prometheus(const PrometheusSettings& src, const std::vector<MetricSpec>& specs, const Workload& w,
                               HttpClient& http, SourceCoverage& cov) {
  cov.hosts_expected = static_cast<int64_t>(w.nodes.size());
  if (!w.window_known || !w.start) {
    cov.status = SourceStatus::skipped;
    cov.reason = "the workload has no time window to query";
    return {};
  }
  if (w.nodes.empty()) {
    cov.status = SourceStatus::skipped;
    cov.reason = "the workload names no nodes: queries are scoped to the job's hosts only";
    return {};
  }
  auto http_src = source_http(src);
  if (!http_src) {
    cov.status = SourceStatus::error;
    cov.reason = http_src.error().message;
    return {};
  }
  // Every request up front: per metric, per group of hosts (a short query), per time chunk (a
  // series is at most kMaxPointsPerSeries long); then fetched `parallel` at a time.
  std::vector<HttpRequest> requests;
  std::vector<size_t> spec_of;  // per request, its metric
  const double step_s = static_cast<double>(src.step) / kMicrosPerSecond;
  const Micros span = src.step * (kMaxPointsPerSeries - 1);
  const std::vector<std::vector<std::string>> groups = host_groups(host_label_values(w.nodes, src.host_map));
  for (size_t k = 0; k < specs.size(); ++k)
    for (const auto& group : groups) {
      std::string query = scoped_query(specs[k].selector, group, src.host_labels);
      for (Micros from = w.window.start; from <= w.window.end; from += span + src.step) {
        Micros to = std::min(w.window.end, from + span);
        std::string url = fmt::format("{}/api/v1/query_range?query={}&start={:.3f}&end={:.3f}&step={}", http_src->base,
                                      url_encode(query), from / 1e6, to / 1e6, number(step_s));
        requests.push_back(HttpRequest{url, http_src->headers, http_src->options});
        spec_of.push_back(k);
      }
    }
  std::vector<Result<HttpResponse>> answers = http.get_all(requests, src.parallel);

  // Read in request order: a metric's first failed request fails it, and what came after is unread.
  std::vector<std::string> lines;
  std::set<std::string> hosts_seen;
  int failed = 0;
  for (size_t t = 0, k = 0; k < specs.size(); ++k) {
    const MetricSpec& spec = specs[k];
    std::map<std::string, MetricSeries> merged;
    bool ok = true;
    for (; t < requests.size() && spec_of[t] == k; ++t) {
      if (!ok) continue;
      const Result<HttpResponse>& r = answers[t];
      std::string problem;
      if (!r) problem = r.error().message;
      else {
        cov.bytes += static_cast<int64_t>(r->body.size());
        auto series = parse_query_range(r->body);
        if (!series) problem = fmt::format("HTTP {}: {}", r->status, series.error().message);
        else if (r->status != 200) problem = fmt::format("HTTP {}", r->status);
        else
          for (auto& s : *series) {
            MetricSeries& m = merged[label_text(s.labels)];
            m.labels = s.labels;
            for (const auto& p : s.samples)
              if (m.samples.empty() || p.time > m.samples.back().time) m.samples.push_back(p);
          }
      }
      if (!problem.empty()) {
        cov.problems.push_back(fmt::format("{}: {}", spec.id, problem));
        ok = false;
      }
    }
    if (!ok) {
      ++failed;
      continue;
    }
    for (const auto& [key, s] : merged) {
      std::string h = series_host(s.labels, src.host_labels, src.host_map);
      if (std::find(w.nodes.begin(), w.nodes.end(), h) != w.nodes.end()) hosts_seen.insert(h);
      if (auto line = evaluate_metric(spec, s, src.host_labels, src.host_map)) lines.push_back(*line);
    }
  }
  std::sort(lines.begin(), lines.end());
  cov.hosts_covered.assign(hosts_seen.begin(), hosts_seen.end());
  if (failed == static_cast<int>(specs.size()) && failed > 0) {
    cov.status = SourceStatus::error;
    cov.reason = cov.problems.front();
  } else if (failed > 0) {
    cov.status = SourceStatus::partial;
    cov.reason = fmt::format("{} of {} metric queries failed; first: {}", failed, specs.size(), cov.problems.front());
  } else if (hosts_seen.empty()) {
    cov.status = SourceStatus::empty;
    cov.reason = "no series for the job's hosts";
  }
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

Result<std::shared_ptr<const SourceSettings>> PrometheusKind::parse(const TomlReader& r, const ParseContext&) const {
  if (auto st = r.only_keys({"name", "kind", "url", "host_label", "host_map", "timeout", "token_env", "token_file",
                             "username", "password_env", "ca_file", "step", "parallel"});
      !st)
    return st.error();
  auto s = std::make_shared<PrometheusSettings>();
  s->stream = Stream::metrics;
  s->timezone = TimeZone::utc();
  if (auto st = parse_http_endpoint(r, *s, "prometheus", "http://prometheus:9090"); !st) return st.error();
  if (auto st = parse_host_labels(r, *s, {"Hostname", "hostname", "instance"}); !st) return st.error();  // instance: :port dropped
  if (auto st = r.positive_duration("step", s->step); !st) return st.error();
  return std::shared_ptr<const SourceSettings>(std::move(s));
}

std::vector<InputFile> PrometheusKind::collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                               SourceCoverage& coverage) const {
  const auto& settings = static_cast<const PrometheusSettings&>(*entry.settings);
  std::string text = collect_prometheus(settings, context.metrics, context.workload, context.transports.http, coverage);
  if (coverage.status != SourceStatus::ok) return {};
  return {InputFile{url_without_userinfo(settings.url) + " (query_range)", index, "", -1,
                    std::make_shared<const std::string>(std::move(text))}};
}

}  // namespace attribution

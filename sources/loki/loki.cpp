#include "sources/loki/loki.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <set>
#include <simdjson.h>
#include <tuple>

#include "core/base/text.hpp"
#include "sources/transport/http_auth.hpp"

namespace attribution {
namespace {

// Loki refuses more entries per request than max_entries_limit_per_query (default 5000).
constexpr int64_t kMaxLimit = 5000;
// A window that needs more pages than this is cut (and says so) rather than looping for hours.
constexpr int kMaxPages = 2000;

// A body that ends inside a string or an open object/array was cut off in transit; anything
// else that does not parse is malformed.
bool json_truncated(std::string_view s) {
  int depth = 0;
  bool in_string = false, escape = false;
  for (char c : s) {
    if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return in_string || depth > 0;
}

std::string label_key(const std::map<std::string, std::string>& labels) {
  std::string s = "{";
  for (const auto& [k, v] : labels) {
    if (s.size() > 1) s += ',';
    s += fmt::format("{}=\"{}\"", k, v);
  }
  return s + "}";
}

void string_fields(simdjson::dom::object o, std::map<std::string, std::string>& out) {
  for (auto [k, v] : o) {
    std::string_view sv;
    if (v.get(sv) == simdjson::SUCCESS) out[std::string(k)] = std::string(sv);
  }
}

bool parse_ns(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    // 19 digits may pass int64's maximum: such a time is not a time.
    if (v > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// The first line of a body, whitespace folded, at most 200 bytes, credentials masked: Loki's
// error bodies are short plain text that names the problem.
std::string body_snippet(std::string_view body, const std::vector<std::string>& secrets) {
  std::string s;
  for (char c : body) {
    if (c == '\n' || c == '\r') {
      if (!s.empty()) break;
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (!s.empty() && s.back() != ' ') s += ' ';
    } else {
      s += c;
    }
    if (s.size() >= 200) break;
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  for (const auto& secret : secrets)
    for (size_t at; !secret.empty() && (at = s.find(secret)) != std::string::npos;) s.replace(at, secret.size(), "***");
  return s;
}

std::string http_fault(const HttpResponse& r, const std::vector<std::string>& secrets) {
  const char* what = "";
  switch (r.status) {
    case 400: what = " Bad Request"; break;
    case 401: what = " Unauthorized (check token_env, token_file or username/password_env)"; break;
    case 403: what = " Forbidden (the credential or org_id has no access)"; break;
    case 404: what = " Not Found (is url the Loki base URL?)"; break;
    case 429: what = " Too Many Requests (Loki's rate limit)"; break;
    case 500: what = " Internal Server Error"; break;
    case 502: what = " Bad Gateway"; break;
    case 503: what = " Service Unavailable"; break;
    case 504: what = " Gateway Timeout"; break;
    default: break;
  }
  std::string snippet = body_snippet(r.body, secrets);
  if (snippet.empty()) return fmt::format("HTTP {}{}", r.status, what);
  return fmt::format("HTTP {}{}: {}", r.status, what, snippet);
}

std::string transport_fault(const std::string& message, Micros timeout) {
  if (is_tls_failure(message)) return message;
  auto has = [&](const char* s) { return message.find(s) != std::string::npos; };
  if (has("Couldn't connect")) return "connection refused: " + message;
  if (has("Timeout") || has("timed out"))
    return fmt::format("timed out after {:g}s: {}", static_cast<double>(timeout) / kMicrosPerSecond, message);
  if (has("partial file")) return "truncated response (the connection closed before the whole body arrived): " + message;
  if (has("SSL") || has("certificate")) return "TLS failure: " + message;
  return message;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

struct Kept {
  int64_t ns;
  std::string stream, line;
};

}  // namespace

Result<LokiPage> parse_loki_streams(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(body);
  simdjson::dom::element doc;
  if (auto err = parser.parse(padded).get(doc); err) {
    if (json_truncated(body))
      return make_error(ErrorKind::input, fmt::format("truncated JSON ({} bytes): {}", body.size(), simdjson::error_message(err)));
    return make_error(ErrorKind::input, fmt::format("malformed JSON: {}", simdjson::error_message(err)));
  }
  std::string_view status, type, error;
  if (doc["status"].get(status) != simdjson::SUCCESS) return make_error(ErrorKind::input, "malformed JSON: no status");
  if (status != "success") {
    if (doc["errorType"].get(type) != simdjson::SUCCESS) type = "unknown";
    if (doc["error"].get(error) != simdjson::SUCCESS) error = "(no message)";
    return make_error(ErrorKind::input, fmt::format("Loki error {}: {}", type, error));
  }
  if (doc["data"]["resultType"].get(type) == simdjson::SUCCESS && type != "streams")
    return make_error(ErrorKind::input, fmt::format("resultType {}: the query is a metric query, not a log query", type));
  simdjson::dom::array result;
  if (doc["data"]["result"].get(result) != simdjson::SUCCESS)
    return make_error(ErrorKind::input, "malformed JSON: no data.result array");
  LokiPage page;
  for (simdjson::dom::element r : result) {
    LokiStream s;
    simdjson::dom::object labels;
    if (r["stream"].get(labels) == simdjson::SUCCESS) string_fields(labels, s.labels);
    s.key = label_key(s.labels);
    simdjson::dom::array values;
    if (r["values"].get(values) != simdjson::SUCCESS) continue;
    page.streams.push_back(std::move(s));
    for (simdjson::dom::element v : values) {
      std::string_view ts, line;
      LokiEntry e;
      if (v.at(0).get(ts) != simdjson::SUCCESS || !parse_ns(ts, &e.ns) || v.at(1).get(line) != simdjson::SUCCESS)
        return make_error(ErrorKind::input, "malformed JSON: a value is not [\"<ns>\", \"<line>\"(, {metadata})]");
      e.line = std::string(line);
      e.stream = page.streams.size() - 1;
      // Loki 3: a third element holds structured metadata, flat or (categorize-labels) grouped.
      simdjson::dom::object meta;
      if (v.at(2).get(meta) == simdjson::SUCCESS) {
        simdjson::dom::object group;
        bool grouped = false;
        for (const char* g : {"structuredMetadata", "parsed"})
          if (meta[g].get(group) == simdjson::SUCCESS) string_fields(group, e.metadata), grouped = true;
        if (!grouped) string_fields(meta, e.metadata);
      }
      page.entries.push_back(std::move(e));
    }
  }
  return page;
}

std::string loki_hosts_regex(const LokiSettings& src, const Workload& w) {
  std::string alt;
  for (const auto& h : host_label_values(w.nodes, src.host_map)) {
    if (!alt.empty()) alt += '|';
    // A regex escape inside a double-quoted LogQL string is written with two backslashes.
    for (char c : h) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') alt += "\\\\";
      alt += c;
    }
  }
  return alt;
}

std::string loki_query(const LokiSettings& src, const Workload& w) {
  std::string q = src.query;
  if (q.empty()) q = fmt::format("{{{}=~\"{{hosts_regex}}\"}}", src.host_labels.empty() ? "host" : src.host_labels.front());
  replace_all(q, "{hosts_regex}", loki_hosts_regex(src, w));
  replace_all(q, "{job}", w.id);
  replace_all(q, "{namespace}", w.pods.empty() ? std::string() : w.pods.front().ns);  // Kueue only
  return q;
}

std::string loki_line(int64_t ns, const std::string& host, std::string_view line) {
  // Microseconds are what the tool stores; an empty host keeps the stamp and the tag only.
  std::string stamp = format_rfc3339(ns / 1000);
  if (host.empty()) return fmt::format("{} loki: {}", stamp, line);
  return fmt::format("{} {} loki: {}", stamp, host, line);
}

std::vector<InputFile> collect_loki(const LokiSettings& src, size_t source_index, const Workload& w, HttpClient& http,
                                    SourceCoverage& cov) {
  cov.hosts_expected = static_cast<int64_t>(w.nodes.size());
  if (!w.window_known) {
    cov.status = SourceStatus::skipped;
    cov.reason = "the workload has no time window to query";
    return {};
  }
  const std::string query = loki_query(src, w);
  if (w.nodes.empty() && (src.query.empty() || src.query.find("{hosts_regex}") != std::string::npos)) {
    cov.status = SourceStatus::skipped;
    cov.reason = "the workload names no nodes for {hosts_regex}";
    return {};
  }
  auto http_src = source_http(src);
  if (!http_src) {
    cov.status = SourceStatus::error;
    cov.reason = http_src.error().message;
    return {};
  }
  const std::string& auth = http_src->auth;
  std::vector<std::string> secrets;  // masked in any server text quoted back
  if (!auth.empty()) secrets.push_back(auth.substr(auth.rfind(' ') + 1));
  if (auto p = secret_from_env(src.password_env)) secrets.push_back(*p);
  std::vector<std::string> headers = http_src->headers;
  if (!src.org_id.empty()) headers.push_back("X-Scope-OrgID: " + src.org_id);
  const HttpOptions& options = http_src->options;
  const std::string& base = http_src->base;
  const int64_t limit = std::clamp<int64_t>(src.limit, 1, kMaxLimit);
  // Loki's end is exclusive: one microsecond past the window keeps its last instant.
  int64_t from = w.window.start * 1000;
  const int64_t to = (w.window.end + 1) * 1000;

  std::map<std::string, std::vector<Kept>> by_host;
  std::set<std::tuple<std::string, int64_t, std::string>> boundary;  // entries at boundary_ns already taken
  int64_t boundary_ns = -1, no_host = 0;
  int pages_ok = 0;
  std::string failure;
  for (int page_no = 1;; ++page_no) {
    if (page_no > kMaxPages) {
      failure = fmt::format("stopped after {} pages of {} entries", kMaxPages, limit);
      break;
    }
    std::string url = fmt::format("{}/loki/api/v1/query_range?query={}&start={}&end={}&limit={}&direction=forward", base,
                                  url_encode(query), from, to, limit);
    auto r = http.get(HttpRequest{url, headers, options});
    if (!r) {
      failure = transport_fault(r.error().message, src.timeout);
      break;
    }
    if (r->status != 200) {
      failure = http_fault(*r, secrets);
      break;
    }
    auto page = parse_loki_streams(r->body);
    if (!page) {
      failure = page.error().message;
      break;
    }
    // Only answers count as bytes read: an error page is no data (the report's usable_data).
    cov.bytes += static_cast<int64_t>(r->body.size());
    ++pages_ok;
    int64_t last = from;
    for (const LokiEntry& e : page->entries) last = std::max(last, e.ns);
    for (const LokiEntry& e : page->entries) {
      const LokiStream& s = page->streams[e.stream];
      // The page starts at the previous page's last time, inclusive: what was taken there repeats.
      if (e.ns == boundary_ns && boundary.count({s.key, e.ns, e.line})) continue;
      std::string host;
      if (e.metadata.empty()) {
        host = series_host(s.labels, src.host_labels, src.host_map);
      } else {
        std::map<std::string, std::string> all = s.labels;
        all.insert(e.metadata.begin(), e.metadata.end());
        host = series_host(all, src.host_labels, src.host_map);
      }
      if (!w.nodes.empty() && std::find(w.nodes.begin(), w.nodes.end(), host) == w.nodes.end()) {
        no_host += host.empty();
        continue;  // another host's line: the query was broader than the job
      }
      by_host[host].push_back(Kept{e.ns, s.key, e.line});
    }
    if (last != boundary_ns) boundary.clear();
    for (const LokiEntry& e : page->entries)
      if (e.ns == last) boundary.insert({page->streams[e.stream].key, e.ns, e.line});
    boundary_ns = last;
    if (static_cast<int64_t>(page->entries.size()) < limit || last >= to) break;
    if (last <= from) {  // a whole page at one instant: paging cannot move past it
      failure = fmt::format("more than {} entries at {}: raise limit or narrow the query", limit, format_rfc3339(last / 1000));
      break;
    }
    from = last;
  }

  std::vector<InputFile> out;
  int64_t kept = 0;
  for (auto& [host, lines] : by_host) {  // std::map: hosts sorted
    std::stable_sort(lines.begin(), lines.end(),
                     [](const Kept& a, const Kept& b) { return std::tie(a.ns, a.stream) < std::tie(b.ns, b.stream); });
    std::string text;
    for (const Kept& k : lines) {
      // A multi-line entry becomes several lines, each with the entry's time and host.
      for (size_t a = 0; a < k.line.size();) {
        size_t b = k.line.find('\n', a);
        if (b == std::string::npos) b = k.line.size();
        std::string_view piece(k.line.data() + a, b - a);
        if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
        if (!piece.empty()) text += loki_line(k.ns, host, piece) + "\n";
        a = b + 1;
      }
    }
    kept += static_cast<int64_t>(lines.size());
    if (!host.empty()) cov.hosts_covered.push_back(host);
    std::string path = fmt::format("{}/loki/api/v1/query_range?query={}#{}", url_without_userinfo(base), url_encode(query),
                                   host.empty() ? "-" : host);
    InputFile f;
    f.path = std::move(path);
    f.source = source_index;
    f.host_hint = host;
    f.text = std::make_shared<const std::string>(std::move(text));
    out.push_back(std::move(f));
  }
  if (no_host > 0)
    cov.problems.push_back(fmt::format("{} line(s) dropped: their streams have none of the host labels ({})", no_host,
                                       fmt::join(src.host_labels, ", ")));
  if (!failure.empty()) {
    if (pages_ok == 0) {
      cov.status = SourceStatus::error;
      cov.reason = failure;
    } else {
      cov.status = SourceStatus::partial;
      cov.reason = fmt::format("page {} failed: {}; kept {} line(s) from {} earlier page(s)", pages_ok + 1, failure, kept,
                               pages_ok);
    }
    cov.problems.push_back(failure);
  } else if (kept == 0) {
    cov.status = SourceStatus::empty;
    cov.reason = no_host > 0 ? cov.problems.front() : "Loki returned no lines for the job's hosts in the window";
  }
  return out;
}

Result<std::shared_ptr<const SourceSettings>> LokiKind::parse(const TomlReader& r, const ParseContext&) const {
  if (auto st = r.only_keys({"name", "kind", "url", "host_label", "host_map", "timeout", "token_env", "token_file",
                             "username", "password_env", "ca_file", "query", "org_id", "limit", "stream"});
      !st)
    return st.error();
  auto s = std::make_shared<LokiSettings>();
  if (auto st = parse_http_endpoint(r, *s, "loki", "http://loki:3100"); !st) return st.error();
  // The labels log shippers commonly put the machine in.
  if (auto st = parse_host_labels(r, *s, {"host", "hostname", "node", "nodename", "instance"}); !st) return st.error();
  std::optional<std::string> v;
  ATTRIBUTION_TRY(v, r.str("query"));
  if (v) s->query = *v;
  ATTRIBUTION_TRY(v, r.str("org_id"));
  if (v) s->org_id = *v;
  std::optional<int64_t> limit;
  ATTRIBUTION_TRY(limit, r.integer("limit"));
  if (limit) {
    if (*limit < 1 || *limit > 5000)
      return r.error("limit", fmt::format("limit {} is not between 1 and 5000", *limit),
                     "5000 is Loki's default max_entries_limit_per_query; larger requests are refused");
    s->limit = *limit;
  }
  if (auto st = parse_stream(r, s->stream, true); !st) return st.error();
  return std::shared_ptr<const SourceSettings>(std::move(s));
}

std::vector<InputFile> LokiKind::collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                         SourceCoverage& coverage) const {
  return collect_loki(static_cast<const LokiSettings&>(*entry.settings), index, context.workload,
                      context.transports.http, coverage);
}

}  // namespace attribution

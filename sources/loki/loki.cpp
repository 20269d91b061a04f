#include "sources/loki/loki.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <simdjson.h>
#include <tuple>

#include "core/base/text.hpp"
#include "sources/host_labels.hpp"
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

// What the pages gave: lines kept by host, lines whose stream names no host, how many pages
// answered, and the fault that stopped paging (empty: none) with the pages before it.
struct LokiRead {
  std::map<std::string, std::vector<Kept>> by_host;
  int64_t no_host = 0;
  int pages_ok = 0;
  std::string failure;
  int pages_before_failure = 0;
  size_t groups = 1;  // host groups paged
};

// Pages forward through the window, a request at a time (the caller fetches them, several
// pagers' at once). Each page starts at the previous page's last time, inclusive, so the entries
// taken at that instant (`boundary`) are skipped when they come again.
class LokiPager {
 public:
  LokiPager(const LokiSettings& src, const Workload& w, std::string query, const SourceHttp& hs)
      : src_(src), w_(w), query_(std::move(query)), hs_(hs), limit_(std::clamp<int64_t>(src.limit, 1, kMaxLimit)) {
    if (const std::string& auth = hs.auth; !auth.empty()) secrets_.push_back(auth.substr(auth.rfind(' ') + 1));
    if (auto p = secret_from_env(src.password_env)) secrets_.push_back(*p);
    headers_ = hs.headers;
    if (!src.org_id.empty()) headers_.push_back("X-Scope-OrgID: " + src.org_id);
    // Loki's end is exclusive: one microsecond past the window keeps its last instant.
    from_ = w_.window.start * 1000;
    to_ = (w_.window.end + 1) * 1000;
  }

  // The next page's request, or nothing when paging is over.
  std::optional<HttpRequest> next() {
    if (done_) return std::nullopt;
    if (page_no_ > kMaxPages) {
      stop(fmt::format("stopped after {} pages of {} entries", kMaxPages, limit_));
      return std::nullopt;
    }
    std::string url = fmt::format("{}/loki/api/v1/query_range?query={}&start={}&end={}&limit={}&direction=forward",
                                  hs_.base, url_encode(query_), from_, to_, limit_);
    return HttpRequest{url, headers_, hs_.options};
  }

  // The answer to next()'s request.
  void answer(const Result<HttpResponse>& r, SourceCoverage& cov) {
    ++page_no_;
    auto page = read_page(r);
    if (!page) return stop(page.error().message);
    cov.bytes += page->second;  // only answers count as bytes read: an error page is no data
    ++out_.pages_ok;
    int64_t last = take(page->first, from_);
    if (static_cast<int64_t>(page->first.entries.size()) < limit_ || last >= to_) {
      done_ = true;
      return;
    }
    if (last <= from_)  // a whole page at one instant: paging cannot move past it
      return stop(fmt::format("more than {} entries at {}: raise limit or narrow the query", limit_,
                              format_rfc3339(last / 1000)));
    from_ = last;
  }

  LokiRead take_read() { return std::move(out_); }

 private:
  void stop(std::string failure) {
    out_.failure = std::move(failure);
    out_.pages_before_failure = out_.pages_ok;
    done_ = true;
  }

  // One page and its size in bytes; an Error's message says what went wrong, secrets masked.
  Result<std::pair<LokiPage, int64_t>> read_page(const Result<HttpResponse>& r) const {
    if (!r) return make_error(ErrorKind::input, transport_fault(r.error().message, src_.timeout));
    if (r->status != 200) return make_error(ErrorKind::input, http_fault(*r, secrets_));
    auto page = parse_loki_streams(r->body);
    if (!page) return page.error();
    return std::pair{std::move(page.value()), static_cast<int64_t>(r->body.size())};
  }

  // Keeps the page's entries of the job's hosts; returns the page's last time.
  int64_t take(const LokiPage& page, int64_t from) {
    int64_t last = from;
    for (const LokiEntry& e : page.entries) last = std::max(last, e.ns);
    for (const LokiEntry& e : page.entries) {
      const LokiStream& s = page.streams[e.stream];
      if (e.ns == boundary_ns_ && boundary_.count({s.key, e.ns, e.line})) continue;
      std::string host;
      if (e.metadata.empty()) {
        host = series_host(s.labels, src_.host_labels, src_.host_map);
      } else {
        std::map<std::string, std::string> all = s.labels;
        all.insert(e.metadata.begin(), e.metadata.end());
        host = series_host(all, src_.host_labels, src_.host_map);
      }
      if (!w_.nodes.empty() && std::find(w_.nodes.begin(), w_.nodes.end(), host) == w_.nodes.end()) {
        out_.no_host += host.empty();
        continue;  // another host's line: the query was broader than the job
      }
      out_.by_host[host].push_back(Kept{e.ns, s.key, e.line});
    }
    if (last != boundary_ns_) boundary_.clear();
    for (const LokiEntry& e : page.entries)
      if (e.ns == last) boundary_.insert({page.streams[e.stream].key, e.ns, e.line});
    boundary_ns_ = last;
    return last;
  }

  const LokiSettings& src_;
  const Workload& w_;
  std::string query_;
  const SourceHttp& hs_;
  int64_t limit_;
  int64_t from_ = 0, to_ = 0;
  int page_no_ = 1;
  bool done_ = false;
  std::vector<std::string> secrets_;  // masked in any server text quoted back
  std::vector<std::string> headers_;
  std::set<std::tuple<std::string, int64_t, std::string>> boundary_;  // entries at boundary_ns_ already taken
  int64_t boundary_ns_ = -1;
  LokiRead out_;
};

// One inline input per host (sorted), lines in time order; a multi-line entry becomes several
// lines, each with the entry's time and host.
std::vector<InputFile> host_inputs(LokiRead& read, const std::string& base, const std::string& query, size_t index,
                                   SourceCoverage& cov, int64_t* kept) {
  std::vector<InputFile> out;
  for (auto& [host, lines] : read.by_host) {  // std::map: hosts sorted
    std::stable_sort(lines.begin(), lines.end(),
                     [](const Kept& a, const Kept& b) { return std::tie(a.ns, a.stream) < std::tie(b.ns, b.stream); });
    std::string text;
    for (const Kept& k : lines)
      for (size_t a = 0; a < k.line.size();) {
        size_t b = k.line.find('\n', a);
        if (b == std::string::npos) b = k.line.size();
        std::string_view piece(k.line.data() + a, b - a);
        if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
        if (!piece.empty()) text += loki_line(k.ns, host, piece) + "\n";
        a = b + 1;
      }
    *kept += static_cast<int64_t>(lines.size());
    if (!host.empty()) cov.hosts_covered.push_back(host);
    InputFile f;
    f.path = fmt::format("{}/loki/api/v1/query_range?query={}#{}", url_without_userinfo(base), url_encode(query),
                         host.empty() ? "-" : host);
    f.source = index;
    f.host_hint = host;
    f.text = std::make_shared<const std::string>(std::move(text));
    out.push_back(std::move(f));
  }
  return out;
}

// The source's status: an error when no page answered, partial when a later one failed, empty
// when nothing was kept.
void settle_loki(const LokiRead& read, int64_t kept, const LokiSettings& src, SourceCoverage& cov) {
  if (read.no_host > 0)
    cov.problems.push_back(fmt::format("{} line(s) dropped: their streams have none of the host labels ({})", read.no_host,
                                       fmt::join(src.host_labels, ", ")));
  if (!read.failure.empty()) {
    if (read.pages_ok == 0) {
      cov.status = SourceStatus::error;
      cov.reason = read.failure;
    } else {
      cov.status = SourceStatus::partial;
      cov.reason = read.groups == 1 ? fmt::format("page {} failed: {}; kept {} line(s) from {} earlier page(s)",
                                                  read.pages_ok + 1, read.failure, kept, read.pages_ok)
                                    : fmt::format("{}; kept {} line(s) from {} page(s) of {} host groups", read.failure,
                                                  kept, read.pages_ok, read.groups);
    }
    cov.problems.push_back(read.failure);
  } else if (kept == 0) {
    cov.status = SourceStatus::empty;
    cov.reason = read.no_host > 0 ? cov.problems.front() : "Loki returned no lines for the job's hosts in the window";
  }
}

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

std::string loki_query(const LokiSettings& src, const Workload& w, const std::vector<std::string>& hosts) {
  std::string q = src.query;
  if (q.empty()) q = fmt::format("{{{}=~\"{{hosts_regex}}\"}}", src.host_labels.empty() ? "host" : src.host_labels.front());
  replace_all(q, "{hosts_regex}", regex_alternation(hosts));
  replace_all(q, "{job}", w.id);
  replace_all(q, "{namespace}", w.pods.empty() ? std::string() : w.pods.front().ns);  // Kueue only
  return q;
}

std::string loki_query(const LokiSettings& src, const Workload& w) {
  return loki_query(src, w, host_label_values(w.nodes, src.host_map));
}

std::string loki_line(int64_t ns, const std::string& host, std::string_view line) {
  // Microseconds are what the tool stores; an empty host keeps the stamp and the tag only.
  std::string stamp = format_rfc3339(ns / 1000);
  if (host.empty()) return fmt::format("{} loki: {}", stamp, line);
  return fmt::format("{} {} loki: {}", stamp, host, line);
}

namespace {

// One query per group of hosts when the query selects them ({hosts_regex}), else the one query.
std::vector<std::string> loki_queries(const LokiSettings& src, const Workload& w) {
  if (!src.query.empty() && src.query.find("{hosts_regex}") == std::string::npos) return {loki_query(src, w)};
  std::vector<std::string> out;
  for (const auto& group : host_groups(host_label_values(w.nodes, src.host_map))) out.push_back(loki_query(src, w, group));
  return out;
}

// Every group's pages: a round fetches each unfinished group's next page, `parallel` at a time,
// so paging stays in order within a group while groups overlap. Reads merge in group order.
LokiRead read_pages(const LokiSettings& src, const Workload& w, const SourceHttp& hs, HttpClient& http,
                    SourceCoverage& cov) {
  std::vector<LokiPager> pagers;
  for (auto& q : loki_queries(src, w)) pagers.emplace_back(src, w, std::move(q), hs);
  for (;;) {
    std::vector<size_t> who;
    std::vector<HttpRequest> requests;
    for (size_t g = 0; g < pagers.size(); ++g)
      if (auto r = pagers[g].next()) who.push_back(g), requests.push_back(std::move(*r));
    if (requests.empty()) break;
    std::vector<Result<HttpResponse>> answers = http.get_all(requests, src.parallel);
    for (size_t i = 0; i < who.size(); ++i) pagers[who[i]].answer(answers[i], cov);
  }
  LokiRead all;
  all.groups = pagers.size();
  for (size_t g = 0; g < pagers.size(); ++g) {
    LokiRead r = pagers[g].take_read();
    for (auto& [host, lines] : r.by_host) {
      auto& to = all.by_host[host];
      to.insert(to.end(), std::make_move_iterator(lines.begin()), std::make_move_iterator(lines.end()));
    }
    all.no_host += r.no_host;
    if (all.failure.empty() && !r.failure.empty()) {
      all.failure = pagers.size() == 1 ? r.failure
                                       : fmt::format("host group {} of {}: page {} failed: {}", g + 1, pagers.size(),
                                                     r.pages_before_failure + 1, r.failure);
      all.pages_before_failure = r.pages_before_failure;
    }
    all.pages_ok += r.pages_ok;
  }
  return all;
}

}  // namespace

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
  auto hs = source_http(src);
  if (!hs) {
    cov.status = SourceStatus::error;
    cov.reason = hs.error().message;
    return {};
  }
  LokiRead read = read_pages(src, w, *hs, http, cov);
  int64_t kept = 0;
  auto out = host_inputs(read, hs->base, query, source_index, cov, &kept);
  settle_loki(read, kept, src, cov);
  return out;
}

Result<std::shared_ptr<const SourceSettings>> LokiKind::parse(const TomlReader& r, const ParseContext&) const {
  if (auto st = r.only_keys({"name", "kind", "url", "host_label", "host_map", "timeout", "token_env", "token_file",
                             "username", "password_env", "ca_file", "query", "org_id", "limit", "stream", "parallel"});
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

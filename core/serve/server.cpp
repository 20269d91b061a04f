#include "core/serve/server.hpp"

#include <charconv>
#include <chrono>
#include <fmt/format.h>
#include <httplib.h>
#include <semaphore>
#include <atomic>
#include <thread>

#include "core/base/duration.hpp"
#include "core/base/json_writer.hpp"
#include "core/base/text.hpp"
#include "core/report/render.hpp"
#include "core/serve/dashboard.hpp"
#include "core/serve/metrics.hpp"
#include "core/store/store_render.hpp"

namespace attribution {
namespace {

// Pages load nothing and run nothing, whatever a stored report holds.
void html_headers(httplib::Response& res) {
  res.set_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
  res.set_header("X-Content-Type-Options", "nosniff");
}

void json_error(httplib::Response& res, int status, const std::string& message) {
  JsonWriter j;
  j.begin_object().field("error", message).key("status").value(status).end_object();
  res.status = status;
  res.set_content(j.take() + "\n", "application/json");
}

// A whole number above zero, digits only and within int64: report ids from the path (so no id
// reaches outside the store), limits from the query, a Content-Length.
std::optional<int64_t> positive_integer(const std::string& text) {
  int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

// The list filters every list route shares; a bad value is a 400 naming it.
struct Filters {
  ReportQuery query;
  std::string since_text;
  int64_t min = 2;
};

bool read_filters(const httplib::Request& req, httplib::Response& res, Filters& f, Micros now) {
  f.query.family = req.get_param_value("family");
  f.query.host = req.get_param_value("host");
  f.since_text = req.get_param_value("since");
  if (!f.since_text.empty()) {
    auto d = parse_duration(f.since_text);
    if (!d || *d < 0) {
      json_error(res, 400, fmt::format("since '{}' is not a duration like 7d, 12h or 30m", f.since_text));
      return false;
    }
    f.query.since = now - *d;
  }
  for (auto [key, out, lo, hi] : {std::tuple{"limit", &f.query.limit, int64_t{1}, int64_t{10000}},
                                   std::tuple{"min", &f.min, int64_t{1}, int64_t{1000000}}}) {
    std::string v = req.get_param_value(key);
    if (v.empty()) continue;
    auto n = positive_integer(v);
    if (!n || *n < lo || *n > hi) {
      json_error(res, 400, fmt::format("{} '{}' is not a whole number from {} to {}", key, v, lo, hi));
      return false;
    }
    *out = *n;
  }
  return true;
}

// The request being answered on this thread started then (httplib answers a request on one thread,
// from the routing to the log line).
thread_local std::optional<std::chrono::steady_clock::time_point> request_started;

// Metrics label a request by its route, never by its raw path: ids and typos would grow the labels
// without bound.
std::string route_label(const std::string& path) {
  for (const char* fixed : {"/", "/healthz", "/metrics", "/api/v1/reports", "/api/v1/nodes", "/api/v1/diagnose"})
    if (path == fixed) return path;
  if (path.rfind("/api/v1/reports/", 0) == 0) return "/api/v1/reports/{id}";
  if (path.rfind("/reports/", 0) == 0) return "/reports/{id}";
  return "other";
}

// Token comparison in time independent of where the strings differ.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;  // the length is not the secret
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool loopback_host(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

// The Host a browser sends: a page elsewhere that rebinds its name to 127.0.0.1 names itself.
bool host_header_is_local(const std::string& header) {
  std::string h = header;
  if (!h.empty() && h.front() == '[') h = h.substr(1, h.find(']') - 1);  // [::1]:8080
  else if (auto colon = h.rfind(':'); colon != std::string::npos && h.find(':') == colon) h = h.substr(0, colon);
  return loopback_host(h);
}

// What is refused before a body is read or a route runs, and with which status; 0: go on.
struct Refusal {
  int status = 0;
  std::string message;
};
Refusal gate(const httplib::Request& req, const ServeOptions& o) {
  if (req.get_header_value("Range").find(',') != std::string::npos) return {416, "one range at most"};
  if (req.path == "/healthz") return {};
  if (!o.token.empty() && !same_secret(req.get_header_value("Authorization"), "Bearer " + o.token))
    return {401, "a bearer token is required (Authorization: Bearer ...)"};
  if (loopback_host(o.host) && !host_header_is_local(req.get_header_value("Host")))
    return {421, "this server answers only to 127.0.0.1 and localhost (Host header)"};
  if (req.method != "POST") return {};
  if (req.get_header_value("Content-Type").rfind("application/json", 0) != 0)
    return {415, "send the body as Content-Type: application/json"};
  if (req.has_header("Transfer-Encoding") || !req.has_header("Content-Length"))
    return {411, "send a Content-Length (chunked bodies are not accepted)"};
  std::string encoding = req.get_header_value("Content-Encoding");
  if (!encoding.empty() && encoding != "identity") return {415, "send the body uncompressed (no Content-Encoding)"};
  if (req.get_header_value_count("Content-Length") != 1) return {400, "one Content-Length"};
  auto length = positive_integer(req.get_header_value("Content-Length"));
  if (length && static_cast<size_t>(*length) > o.limits.body_bytes)
    return {413, fmt::format("the body is {} bytes, over the limit of {}", *length, o.limits.body_bytes)};
  return {};
}

// Releases a diagnosis slot on every path out, exceptions included.
class SlotGuard {
 public:
  explicit SlotGuard(std::counting_semaphore<1024>& s) : s_(s) {}
  ~SlotGuard() { s_.release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

 private:
  std::counting_semaphore<1024>& s_;
};

}  // namespace

Status check_listen(const ServeOptions& o) {
  bool local = o.host == "127.0.0.1" || o.host == "localhost" || o.host == "::1";
  if (!local && o.token.empty())
    return make_error(ErrorKind::usage, fmt::format("listening on {} needs a token", o.host), {}, 0, {},
                      "pass --token-file FILE (a line of random text; clients send it as 'Authorization: Bearer "
                      "...'), or listen on 127.0.0.1");
  return Ok{};
}

Result<std::string> read_token_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  std::string token = text->substr(0, text->find('\n'));
  if (!token.empty() && token.back() == '\r') token.pop_back();
  if (token.size() < 16)
    return make_error(ErrorKind::config, "the token is shorter than 16 characters", path, 1, {},
                      "write a long random line, e.g. openssl rand -hex 32 > FILE");
  return token;
}

struct Server::Impl {
  Store& store;
  std::shared_ptr<const PreparedRules> rules;
  ServeOptions options;
  httplib::Server http;
  ServeMetrics metrics;
  std::counting_semaphore<1024> diagnose_slots;
  std::atomic<bool> stop_requested{false};
  int port = 0;

  Impl(Store& s, std::shared_ptr<const PreparedRules> r, ServeOptions o)
      : store(s), rules(std::move(r)), options(std::move(o)), diagnose_slots(std::max(1, options.diagnoses)) {}

  void routes();
  void store_failed(httplib::Response& res, const Error& e) { json_error(res, 500, e.message); }

  void list_reports(const httplib::Request& req, httplib::Response& res) {
    Filters f;
    if (!read_filters(req, res, f, wall_clock_now())) return;
    auto list = store.reports(f.query);
    if (!list) return store_failed(res, list.error());
    res.set_content(render_reports_json(*list), "application/json");
  }

  void list_nodes(const httplib::Request& req, httplib::Response& res) {
    Filters f;
    if (!read_filters(req, res, f, wall_clock_now())) return;
    auto nodes = store.nodes(f.query.since, f.min);
    if (!nodes) return store_failed(res, nodes.error());
    res.set_content(render_nodes_json(*nodes), "application/json");
  }

  void document(const std::string& id_text, DocumentFormat format, httplib::Response& res) {
    auto id = positive_integer(id_text);
    if (!id) return json_error(res, 404, "no report has this id");
    auto doc = store.document(*id, format);
    if (!doc) return store_failed(res, doc.error());
    if (!*doc) return json_error(res, 404, fmt::format("no report {} in the store", *id));
    const char* type = format == DocumentFormat::json   ? "application/json"
                       : format == DocumentFormat::html ? "text/html; charset=utf-8"
                                                        : "text/markdown; charset=utf-8";
    if (format == DocumentFormat::html) html_headers(res);
    res.set_content(std::move(**doc), type);
  }

  void dashboard(const httplib::Request& req, httplib::Response& res) {
    Micros now = wall_clock_now();
    Filters f;
    if (!read_filters(req, res, f, now)) return;
    DashboardView v;
    v.store = store.location();
    v.family = f.query.family;
    v.host = f.query.host;
    v.since = f.since_text;
    v.now = now;
    auto stats = store.stats();
    auto list = store.reports(f.query);
    auto mix = store.reports(ReportQuery{f.query.family, f.query.host, now - v.chart_days * 86400LL * 1000000, 100000,
                                         false});
    auto offenders = store.nodes(f.query.since, 2);
    if (!stats || !list || !mix || !offenders)
      return store_failed(res, !stats ? stats.error() : !list ? list.error() : !mix ? mix.error() : offenders.error());
    for (const auto& [family, n] : stats->by_family) v.families.push_back(family);
    v.reports = std::move(*list);
    v.mix = std::move(*mix);
    v.offenders = std::move(*offenders);
    html_headers(res);
    res.set_content(render_dashboard(v), "text/html; charset=utf-8");
  }

  void diagnose_pushed(const httplib::Request& req, httplib::Response& res) {
    // The slot is taken before parsing: a parsed body holds several times its size, so memory is
    // bounded by the slots, not by the clients.
    if (!diagnose_slots.try_acquire_for(std::chrono::seconds(options.queue_seconds))) {
      res.set_header("Retry-After", "30");
      return json_error(res, 503, fmt::format("{} diagnoses are running and others wait; try again later",
                                              options.diagnoses));
    }
    SlotGuard slot(diagnose_slots);
    PushError error;
    PushedWorkload pushed = parse_push(req.body, options.limits, &error);
    if (!error.message.empty()) return json_error(res, error.status, error.message);
    PushedFiles files(pushed.logs);
    DiagnoseRequest d;
    d.config_path = options.config_path;
    d.workload = pushed.workload;
    d.workload.now = wall_clock_now();
    d.rules = rules;
    d.files = &files;
    d.threads = 1;  // the pool runs diagnoses side by side; each one scans on its own thread
    auto started = std::chrono::steady_clock::now();
    auto report = diagnose(d);
    if (!report) {
      const Error& e = report.error();
      return json_error(res, e.kind == ErrorKind::output ? 500 : 400,
                        e.hint.empty() ? e.message : e.message + " (" + e.hint + ")");
    }
    metrics.diagnosis(report->outcome.family,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    RenderedReport rendered{render_json(*report), render_html(*report), render_markdown(*report)};
    auto id = store.add(*report, rendered, d.workload.now);
    if (!id) return store_failed(res, id.error());
    res.set_header("Location", fmt::format("/api/v1/reports/{}", *id));
    res.set_header("X-Attribution-Report-Id", std::to_string(*id));
    res.set_content(std::move(rendered.json), "application/json");
  }
};

void Server::Impl::routes() {
  using Req = const httplib::Request&;
  using Res = httplib::Response&;
  http.Get("/healthz", [](Req, Res res) { res.set_content("ok\n", "text/plain"); });
  http.Get("/metrics", [this](Req, Res res) {
    auto stats = store.stats();
    if (!stats) return store_failed(res, stats.error());
    res.set_content(metrics.render(*stats), "text/plain; version=0.0.4");
  });
  http.Get("/", [this](Req req, Res res) { dashboard(req, res); });
  http.Get(R"(/reports/([^/]+))", [this](Req req, Res res) { document(req.matches[1], DocumentFormat::html, res); });
  http.Get("/api/v1/reports", [this](Req req, Res res) { list_reports(req, res); });
  http.Get(R"(/api/v1/reports/([^/.]+)(\.json|\.html|\.md)?)", [this](Req req, Res res) {
    std::string ext = req.matches[2];
    document(req.matches[1], ext == ".html" ? DocumentFormat::html : ext == ".md" ? DocumentFormat::markdown
                                                                                   : DocumentFormat::json,
             res);
  });
  http.Get("/api/v1/nodes", [this](Req req, Res res) { list_nodes(req, res); });
  http.Post("/api/v1/diagnose", [this](Req req, Res res) { diagnose_pushed(req, res); });
}

Server::Server(Store& store, std::shared_ptr<const PreparedRules> rules, ServeOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(rules), std::move(options))) {
  Impl& s = *impl_;
  const int connections = std::max(1, s.options.connections);
  s.http.new_task_queue = [connections] { return new httplib::ThreadPool(static_cast<size_t>(connections)); };
  s.http.set_payload_max_length(s.options.limits.body_bytes);
  s.http.set_read_timeout(5, 0);  // a client that stalls mid-request loses its connection
  s.http.set_write_timeout(10, 0);
  s.http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    request_started = std::chrono::steady_clock::now();
    Refusal r = gate(req, impl_->options);
    if (r.status == 0) return httplib::Server::HandlerResponse::Unhandled;
    if (r.status == 401) res.set_header("WWW-Authenticate", "Bearer");
    json_error(res, r.status, r.message);
    return httplib::Server::HandlerResponse::Handled;
  });
  // curl sends "Expect: 100-continue" before a large body: the same gate answers first, so a
  // refused upload is never sent.
  s.http.set_expect_100_continue_handler([this](const httplib::Request& req, httplib::Response& res) {
    Refusal r = gate(req, impl_->options);
    if (r.status == 0) return 100;
    json_error(res, r.status, r.message);
    return r.status;
  });
  // httplib's own refusals (no route, body too large, bad request line) answer in JSON too.
  s.http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* what = res.status == 404   ? "no such route; see docs/serve.md"
                       : res.status == 413 ? "the body is over the size limit"
                       : res.status == 405 ? "method not allowed on this route"
                                           : "bad request";
    json_error(res, res.status, what);
  });
  s.http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    json_error(res, 500, "internal error");
  });
  s.http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    double seconds = request_started ? std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                     *request_started).count()
                                     : 0.0;
    request_started.reset();
    bool known = req.method == "GET" || req.method == "POST" || req.method == "HEAD";  // junk stays out of labels
    impl_->metrics.request(known ? req.method + " " + route_label(req.path) : "other", res.status, seconds);
  });
  s.routes();
}

Server::~Server() = default;

Status Server::bind() {
  if (auto st = check_listen(impl_->options); !st) return st;
  Impl& s = *impl_;
  if (s.options.port == 0) {
    s.port = s.http.bind_to_any_port(s.options.host);
    if (s.port > 0) return Ok{};
  } else if (s.http.bind_to_port(s.options.host, s.options.port)) {
    s.port = s.options.port;
    return Ok{};
  }
  return make_error(ErrorKind::usage, fmt::format("cannot listen on {}:{}", s.options.host, s.options.port), {}, 0, {},
                    "the port is in use or the address is not this machine's; pick another with --listen");
}

int Server::port() const { return impl_->port; }

void Server::run() {
  if (!impl_->stop_requested) impl_->http.listen_after_bind();
}

// httplib stops only a server that is running: a stop asked for just before run() waits for it.
void Server::stop() {
  impl_->stop_requested = true;
  for (int i = 0; i < 500 && !impl_->http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  impl_->http.stop();
}

}  // namespace attribution

#pragma once
// HTTP GET through one narrow interface: libcurl in production, recorded responses in tests and
// bundles. Request headers may carry credentials: they are never part of an error message and
// never recorded.
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"

namespace attribution {

struct HttpResponse {
  long status = 0;
  std::string body;
};

// Per-source transport settings: each source has its own server, CA and deadline.
struct HttpOptions {
  Micros connect_timeout = 10 * kMicrosPerSecond;
  Micros timeout = 60 * kMicrosPerSecond;  // the whole request; nothing waits longer
  std::string ca_file;                     // empty: the system's CA store
  std::string client_cert, client_key;     // PEM files for TLS client authentication
  bool insecure_skip_verify = false;       // only when a kubeconfig says so explicitly
};

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  HttpOptions options;
};

// The URL without "user:password@" in its authority: what reports and recordings may show.
std::string url_without_userinfo(const std::string& url);

// A transport error that is about TLS (CA bundle, untrusted certificate, handshake): a server that
// answered, so callers must not call it "no answer".
inline bool is_tls_failure(const std::string& message) { return message.rfind("TLS: ", 0) == 0; }

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // An Error when no response arrived (refused, timed out, TLS); any status is a response.
  virtual Result<HttpResponse> get(const HttpRequest& request) = 0;
  Result<HttpResponse> get(const std::string& url, const std::vector<std::string>& headers) {
    return get(HttpRequest{url, headers, HttpOptions{}});
  }
  // Every request, at most `parallel` at a time (a source's `parallel`); the answers in request
  // order, so what a caller makes of them never depends on which came back first.
  virtual std::vector<Result<HttpResponse>> get_all(const std::vector<HttpRequest>& requests, int parallel);
};

class CurlHttpClient : public HttpClient {
 public:
  using HttpClient::get;
  Result<HttpResponse> get(const HttpRequest& request) override;
};

// Serves recorded answers by URL. A URL recorded several times answers in recorded order, then
// repeats its last answer; an answer may be a transport error (refused, timed out).
class ReplayHttpClient : public HttpClient {
 public:
  using HttpClient::get;
  void add(const std::string& url, HttpResponse r) { answers_[url].push_back(std::move(r)); }
  void add_error(const std::string& url, std::string message) { answers_[url].push_back(std::move(message)); }
  void set_default(HttpResponse r) { default_ = std::move(r); }  // for any URL not added
  Result<HttpResponse> get(const HttpRequest& request) override;
  // One at a time, in request order: a URL recorded several times answers in the same order at
  // any `parallel`.
  std::vector<Result<HttpResponse>> get_all(const std::vector<HttpRequest>& requests, int parallel) override;
  std::vector<std::vector<std::string>> seen_headers;  // for tests of what was sent
  std::vector<std::string> seen_urls;
  std::vector<HttpOptions> seen_options;

 private:
  struct Answer {
    std::variant<HttpResponse, std::string> value;
    Answer(HttpResponse r) : value(std::move(r)) {}
    Answer(std::string error) : value(std::move(error)) {}
  };
  std::map<std::string, std::deque<Answer>> answers_;
  std::optional<HttpResponse> default_;
};

}  // namespace attribution

#pragma once
// HTTP GET through one narrow interface: libcurl in production, recorded responses in tests.
// Request headers may carry credentials: they are never part of an error message.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/time.hpp"

namespace attribution {

struct HttpResponse {
  long status = 0;
  std::string body;
};

struct HttpOptions {
  Micros connect_timeout = 10 * kMicrosPerSecond;
  Micros timeout = 60 * kMicrosPerSecond;
  std::string ca_file;  // empty: the system's CA store
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // An Error when no response arrived (refused, timed out, TLS); any status is a response.
  virtual Result<HttpResponse> get(const std::string& url, const std::vector<std::string>& headers) = 0;
};

class CurlHttpClient : public HttpClient {
 public:
  explicit CurlHttpClient(HttpOptions options = {}) : options_(std::move(options)) {}
  Result<HttpResponse> get(const std::string& url, const std::vector<std::string>& headers) override;

 private:
  HttpOptions options_;
};

class ReplayHttpClient : public HttpClient {
 public:
  void add(const std::string& url, HttpResponse r) { responses_[url] = std::move(r); }
  void set_default(HttpResponse r) { default_ = std::move(r); }  // for any URL not added
  Result<HttpResponse> get(const std::string& url, const std::vector<std::string>& headers) override;
  std::vector<std::vector<std::string>> seen_headers;  // for tests of what was sent
  std::vector<std::string> seen_urls;

 private:
  std::map<std::string, HttpResponse> responses_;
  std::optional<HttpResponse> default_;
};

}  // namespace attribution

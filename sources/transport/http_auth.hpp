#pragma once
// What the HTTP sources (prometheus, loki) share: the Authorization header from the variable or
// file the config names, and URL query encoding. Credentials never enter an error message.
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"
#include "core/base/toml_util.hpp"
#include "sources/transport/http.hpp"

namespace attribution {

// Where an HTTP source is and how it proves who it is: credentials come from the variable or file
// named here, never from the config text.
struct HttpEndpoint {
  std::string url, token_env, token_file, username, password_env, ca_file;
  Micros timeout = 30 * kMicrosPerSecond;
  int parallel = 4;  // requests in flight at once: a big job's fetch waits on latency, not bytes
};
constexpr int kMaxParallel = 64;
// Reads url, token_env, token_file, username, password_env, ca_file, timeout and parallel;
// `example` is the url the error shows when it is missing.
Status parse_http_endpoint(const TomlReader& r, HttpEndpoint& out, std::string_view what, std::string_view example);

// What every request of an HTTP source (prometheus, loki) carries: JSON accepted, its
// credentials, its own CA and deadline; and its base URL without a trailing '/'.
struct SourceHttp {
  std::string base;
  // "Authorization: Bearer ..." (token_file, else token_env) or "Authorization: Basic ..."
  // (username with password_env); empty when the source names no credential.
  std::string auth;
  std::vector<std::string> headers;
  HttpOptions options;
};
Result<SourceHttp> source_http(const HttpEndpoint& endpoint);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string url_encode(std::string_view s);

std::string base64(std::string_view in);

}  // namespace attribution

#pragma once
// What the HTTP sources (prometheus, loki) share: the Authorization header from the variable or
// file the config names, and URL query encoding. Credentials never enter an error message.
#include <string>
#include <string_view>
#include <vector>

#include "core/pipeline/config.hpp"
#include "core/base/result.hpp"
#include "sources/transport/http.hpp"

namespace attribution {

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
Result<SourceHttp> source_http(const SourceConfig& source);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string url_encode(std::string_view s);

std::string base64(std::string_view in);

}  // namespace attribution

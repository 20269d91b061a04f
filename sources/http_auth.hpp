#pragma once
// What the HTTP sources (prometheus, loki) share: the Authorization header from the variable or
// file the config names, and URL query encoding. Credentials never enter an error message.
#include <string>
#include <string_view>

#include "core/config.hpp"
#include "core/result.hpp"

namespace attribution {

// "Authorization: Bearer ..." (token_file, else token_env) or "Authorization: Basic ..." (username
// with password_env); empty when the source names no credential.
Result<std::string> auth_header(const SourceConfig& source);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string url_encode(std::string_view s);

std::string base64(std::string_view in);

}  // namespace attribution

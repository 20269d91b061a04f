#include "sources/transport/http_auth.hpp"

#include <cctype>
#include <cstdlib>
#include <fmt/format.h>

#include "core/base/text.hpp"
#include "core/base/duration.hpp"
#include "core/base/toml_util.hpp"

namespace attribution {
namespace {

Result<std::string> auth_header(const HttpEndpoint& s) {
  if (!s.token_file.empty()) {
    auto t = read_secret_file(s.token_file);
    if (!t) return make_error(ErrorKind::config, "cannot read the token file", s.token_file, 0, "source.token_file");
    return "Authorization: Bearer " + *t;
  }
  if (!s.token_env.empty()) {
    auto v = secret_from_env(s.token_env);
    if (!v) return make_error(ErrorKind::config, fmt::format("the token variable {} is not set", s.token_env));
    return "Authorization: Bearer " + *v;
  }
  if (!s.username.empty()) {
    auto p = secret_from_env(s.password_env);
    if (!p) return make_error(ErrorKind::config, fmt::format("the password variable {} is not set", s.password_env));
    return "Authorization: Basic " + base64(s.username + ":" + *p);
  }
  return std::string();
}

}  // namespace

std::string url_encode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string base64(std::string_view in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], t[v & 63]};
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    out += {t[v >> 18], t[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8;
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], '='};
  }
  return out;
}

Result<SourceHttp> source_http(const HttpEndpoint& s) {
  SourceHttp h;
  ATTRIBUTION_TRY(h.auth, auth_header(s));
  h.headers = {"Accept: application/json"};
  if (!h.auth.empty()) h.headers.push_back(h.auth);
  h.options.ca_file = s.ca_file;
  h.options.timeout = s.timeout;
  h.base = s.url;
  while (!h.base.empty() && h.base.back() == '/') h.base.pop_back();
  return h;
}

Status parse_http_endpoint(const TomlReader& r, HttpEndpoint& out, std::string_view what, std::string_view example) {
  for (auto [key, field] : {std::pair{"url", &out.url}, std::pair{"token_env", &out.token_env},
                            std::pair{"token_file", &out.token_file}, std::pair{"username", &out.username},
                            std::pair{"password_env", &out.password_env}, std::pair{"ca_file", &out.ca_file}}) {
    std::optional<std::string> v;
    ATTRIBUTION_TRY(v, r.str(key));
    if (v) *field = *v;
  }
  if (out.url.empty()) return r.error("url", fmt::format("a {} source needs url = \"{}\"", what, example));
  std::optional<int64_t> parallel;
  ATTRIBUTION_TRY(parallel, r.integer("parallel"));
  if (parallel) {
    if (*parallel < 1 || *parallel > kMaxParallel)
      return r.error("parallel", fmt::format("parallel = {} is not between 1 and {}", *parallel, kMaxParallel),
                     "the requests a source keeps in flight at once; 4 by default");
    out.parallel = static_cast<int>(*parallel);
  }
  return r.positive_duration("timeout", out.timeout);
}

}  // namespace attribution

#include "sources/transport/http.hpp"

#include <algorithm>

#include "core/base/parallel.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <mutex>

namespace attribution {
namespace {

size_t append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// What a failed transfer means to the user: a TLS problem is named as one (which CA bundle, which
// server), never left to read like a network outage.
std::string describe_failure(CURLcode rc, const char* detail, const HttpOptions& options, const std::string& url) {
  std::string why = detail && *detail ? detail : curl_easy_strerror(rc);
  std::string server = url_without_userinfo(url);
  if (size_t p = server.find('/', server.find("://") == std::string::npos ? 0 : server.find("://") + 3);
      p != std::string::npos)
    server.resize(p);
  switch (rc) {
    case CURLE_SSL_CACERT_BADFILE: {
      const char* system = curl_version_info(CURLVERSION_NOW)->cainfo;
      std::string bundle = !options.ca_file.empty() ? options.ca_file : (system ? system : "(the system CA store)");
      return fmt::format("TLS: cannot read the CA bundle {} (missing or unreadable; install the ca-certificates "
                         "package, or set ca_file to the server's CA): {}", bundle, why);
    }
    case CURLE_PEER_FAILED_VERIFICATION:
      return fmt::format("TLS: the certificate of {} is not trusted ({}); set ca_file to the CA that signed it{}",
                         server, why, options.ca_file.empty() ? "" : " (now " + options.ca_file + ")");
    case CURLE_SSL_CONNECT_ERROR:
      return fmt::format("TLS: the handshake with {} failed: {}", server, why);
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
      return fmt::format("TLS: {} ({})", why, server);
    default:
      if (detail && *detail) return fmt::format("HTTP GET failed: {} ({})", curl_easy_strerror(rc), detail);
      return fmt::format("HTTP GET failed: {}", curl_easy_strerror(rc));
  }
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

std::string url_without_userinfo(const std::string& url) {
  size_t scheme = url.find("://");
  size_t from = scheme == std::string::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", from);
  size_t at = url.rfind('@', end == std::string::npos ? url.size() : end);
  if (at == std::string::npos || at < from) return url;
  return url.substr(0, from) + url.substr(at + 1);
}

Result<HttpResponse> CurlHttpClient::get(const HttpRequest& request) {
  const std::string& url = request.url;
  const HttpOptions& options = request.options;
  global_init();
  CURL* c = curl_easy_init();
  if (!c) return make_error(ErrorKind::input, "cannot start an HTTP client", url);
  HttpResponse r;
  char detail[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
  curl_slist* list = nullptr;
  for (const auto& h : request.headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout / 1000));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout / 1000));
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (!options.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, options.ca_file.c_str());
  if (!options.client_cert.empty()) curl_easy_setopt(c, CURLOPT_SSLCERT, options.client_cert.c_str());
  if (!options.client_key.empty()) curl_easy_setopt(c, CURLOPT_SSLKEY, options.client_key.c_str());
  if (options.insecure_skip_verify) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(list);
  curl_easy_cleanup(c);
  if (rc != CURLE_OK) return make_error(ErrorKind::input, describe_failure(rc, detail, options, url), url);
  return r;
}

std::vector<Result<HttpResponse>> HttpClient::get_all(const std::vector<HttpRequest>& requests, int parallel) {
  std::vector<Result<HttpResponse>> out(requests.size(), Result<HttpResponse>(HttpResponse{}));
  parallel_for(requests.size(), static_cast<size_t>(std::max(1, parallel)),
               [&](size_t i, size_t) { out[i] = get(requests[i]); });
  return out;
}

std::vector<Result<HttpResponse>> ReplayHttpClient::get_all(const std::vector<HttpRequest>& requests, int) {
  std::vector<Result<HttpResponse>> out;
  for (const auto& r : requests) out.push_back(get(r));
  return out;
}

Result<HttpResponse> ReplayHttpClient::get(const HttpRequest& request) {
  seen_headers.push_back(request.headers);
  seen_urls.push_back(request.url);
  seen_options.push_back(request.options);
  auto it = answers_.find(request.url);
  if (it == answers_.end() || it->second.empty()) {
    if (default_) return *default_;
    return make_error(ErrorKind::input, "HTTP GET failed: Couldn't connect to server", request.url);
  }
  Answer a = it->second.front();
  if (it->second.size() > 1) it->second.pop_front();
  if (auto* r = std::get_if<HttpResponse>(&a.value)) return *r;
  return make_error(ErrorKind::input, std::get<std::string>(a.value), request.url);
}

}  // namespace attribution

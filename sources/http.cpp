#include "sources/http.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <mutex>

namespace attribution {
namespace {

size_t append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

Result<HttpResponse> CurlHttpClient::get(const std::string& url, const std::vector<std::string>& headers) {
  global_init();
  CURL* c = curl_easy_init();
  if (!c) return make_error(ErrorKind::input, "cannot start an HTTP client", url);
  HttpResponse r;
  curl_slist* list = nullptr;
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout / 1000));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout / 1000));
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (!options_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, options_.ca_file.c_str());
  CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(list);
  curl_easy_cleanup(c);
  if (rc != CURLE_OK) return make_error(ErrorKind::input, fmt::format("HTTP GET failed: {}", curl_easy_strerror(rc)), url);
  return r;
}

Result<HttpResponse> ReplayHttpClient::get(const std::string& url, const std::vector<std::string>& headers) {
  seen_headers.push_back(headers);
  seen_urls.push_back(url);
  auto it = responses_.find(url);
  if (it != responses_.end()) return it->second;
  if (default_) return *default_;
  return make_error(ErrorKind::input, "HTTP GET failed: Couldn't connect to server", url);
}

}  // namespace attribution

#include "sources/transport/http.hpp"

#include <catch2/catch.hpp>

using namespace attribution;

TEST_CASE("replayed HTTP answers a repeated URL in recorded order, then repeats the last") {
  ReplayHttpClient http;
  http.add("http://x/a", HttpResponse{500, "first"});
  http.add("http://x/a", HttpResponse{200, "second"});
  http.add_error("http://x/b", "HTTP GET failed: Timeout was reached");
  CHECK(http.get("http://x/a", {})->body == "first");
  CHECK(http.get("http://x/a", {})->body == "second");
  CHECK(http.get("http://x/a", {})->body == "second");
  auto b = http.get("http://x/b", {});
  REQUIRE_FALSE(b);
  CHECK(b.error().message.find("Timeout") != std::string::npos);
  CHECK_FALSE(http.get("http://x/none", {}));
}

TEST_CASE("a request carries its own source's deadline and CA") {
  ReplayHttpClient http;
  HttpOptions o;
  o.timeout = 3 * kMicrosPerSecond;
  o.ca_file = "/etc/ca.pem";
  (void)http.get(HttpRequest{"http://x/a", {"Accept: application/json"}, o});
  REQUIRE(http.seen_options.size() == 1);
  CHECK(http.seen_options[0].timeout == 3 * kMicrosPerSecond);
  CHECK(http.seen_options[0].ca_file == "/etc/ca.pem");
}

TEST_CASE("the real client gives an error, not a hang, when nothing listens") {
  CurlHttpClient http;
  HttpOptions o;
  o.connect_timeout = 2 * kMicrosPerSecond;
  o.timeout = 2 * kMicrosPerSecond;
  auto r = http.get(HttpRequest{"http://127.0.0.1:9/", {}, o});  // port 9 (discard): refused here
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("HTTP GET failed") != std::string::npos);
}

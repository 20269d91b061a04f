#include "core/pipeline/bundle.hpp"

#include <catch2/catch.hpp>

#include "sources/slurm/slurm_scheduler.hpp"
#include <cstdlib>
#include <filesystem>

#include "core/pipeline/diagnose.hpp"
#include "tests/test_util.hpp"

using namespace attribution;
namespace fs = std::filesystem;

TEST_CASE("the recorded config keeps its meaning and loses its credentials") {
  auto r = redact_config(R"(
[workload]
scheduler = "slurm"
[slurm]
mode = "rest"
url = "https://admin:hunter2@slurm:6820"
token_env = "MY_JWT"
token_file = "/etc/jwt"
[[source]]
name = "prom"
kind = "prometheus"
url = "http://alice:pa55@prom:9090"
username = "alice"
password_env = "PROM_PW"
client_key = "/etc/key.pem"
step = "30s"
)", "site.toml");
  REQUIRE(r);
  CHECK(r->find("hunter2") == std::string::npos);
  CHECK(r->find("pa55") == std::string::npos);
  CHECK(r->find("alice") == std::string::npos);
  CHECK(r->find("MY_JWT") == std::string::npos);
  CHECK(r->find("key.pem") == std::string::npos);
  CHECK(r->find("https://slurm:6820") != std::string::npos);
  CHECK(r->find("http://prom:9090") != std::string::npos);
  CHECK(r->find("step = '30s'") != std::string::npos);
  auto reparsed = parse_config(*r, "site.toml");
  REQUIRE(reparsed);
  CHECK(reparsed->sources.size() == 1);
  CHECK(static_cast<const SlurmSettings&>(*reparsed->scheduler_settings.at("slurm")).mode == "rest");
}

TEST_CASE("a bundle recorded with a token in the environment and a config carries no secret") {
  const std::string secret = "tok-Zq81-very-secret";
  setenv("ATTRIBUTION_TEST_PROM_TOKEN", secret.c_str(), 1);
  test::TempDir tmp;
  std::string config = test::xid79_static_job(tmp, R"([[source]]
name = "prom"
kind = "prometheus"
url = "http://prom.test:9090"
token_env = "ATTRIBUTION_TEST_PROM_TOKEN"
)");
  ReplayHttpClient http;
  http.set_default(HttpResponse{200, R"({"status":"success","data":{"resultType":"matrix","result":[]}})"});
  DiagnoseRequest req;
  req.config_path = config;
  req.http = &http;
  req.record_dir = tmp.path() + "/bundle";
  auto live = diagnose(req);
  REQUIRE(live);
  REQUIRE_FALSE(http.seen_headers.empty());
  CHECK(http.seen_headers[0].back() == "Authorization: Bearer " + secret);  // the secret was in play
  size_t files = 0;
  for (const auto& de : fs::recursive_directory_iterator(tmp.path() + "/bundle")) {
    if (!de.is_regular_file()) continue;
    ++files;
    std::string text = test::read_file(de.path().string());
    INFO(de.path().string());
    CHECK(text.find(secret) == std::string::npos);
    CHECK(text.find("ATTRIBUTION_TEST_PROM_TOKEN") == std::string::npos);
  }
  CHECK(files > 5);
  // The replay reaches nothing: the same report from the bundle alone, no token needed.
  unsetenv("ATTRIBUTION_TEST_PROM_TOKEN");
  fs::remove_all(tmp.path() + "/logs");
  DiagnoseRequest again;
  again.replay_dir = tmp.path() + "/bundle";
  auto replayed = diagnose(again);
  REQUIRE(replayed);
  REQUIRE(live->root_causes.size() == 1);
  REQUIRE(replayed->root_causes.size() == 1);
  CHECK(replayed->root_causes[0].host == "node01");
  CHECK(replayed->inputs_digest == live->inputs_digest);
}

#include <catch2/catch.hpp>

#include "core/pipeline/config.hpp"
#include "sources/files/files_source.hpp"
#include "sources/prometheus/prometheus.hpp"
#include "sources/slurm/slurm_scheduler.hpp"
#include "sources/static/static_workload.hpp"
#include "sources/registry.hpp"
#include "tests/test_util.hpp"

using namespace attribution;

TEST_CASE("a config with workload and sources") {
  auto c = parse_config(R"(
[workload]
scheduler = "static"
static = "job.toml"
before = "20m"
after = "1m"
timezone = "+08:00"

[[source]]
name = "ranks"
kind = "files"
paths = ["logs/{host}/*.log"]

[[source]]
name = "kernel"
kind = "files"
paths = "kern/{host}.log.gz"
stream = "syslog"
timezone = "UTC"
boot_time = "2025-03-10T00:00:00Z"

[[source]]
name = "loki"
kind = "loki"
url = "http://loki:3100"
)", "/etc/x/attribution.toml");
  REQUIRE(c);
  REQUIRE(c->scheduler);
  CHECK(c->scheduler->name() == "static");
  CHECK(static_cast<const StaticSettings&>(*c->scheduler_settings.at("static")).file == "/etc/x/job.toml");
  CHECK(c->before == 20 * 60 * kMicrosPerSecond);
  CHECK(c->timezone.name() == "+08:00");
  REQUIRE(c->sources.size() == 3);
  CHECK(c->sources[1].settings->stream == Stream::syslog);
  const auto& kernel = static_cast<const FilesSettings&>(*c->sources[1].settings);
  CHECK(kernel.globs.paths == std::vector<std::string>{"kern/{host}.log.gz"});
  CHECK(kernel.globs.base_dir == "/etc/x");
  CHECK(kernel.boot_time);
  CHECK(c->sources[2].kind->name() == "loki");
}

TEST_CASE("config errors name file / line and key") {
  auto bad = [](const char* text, long line, const char* key, const char* want) {
    auto c = parse_config(text, "a.toml");
    REQUIRE_FALSE(c);
    INFO(c.error().message);
    CHECK(c.error().file == "a.toml");
    CHECK(c.error().line == line);
    CHECK(c.error().key.find(key) != std::string::npos);
    CHECK(c.error().message.find(want) != std::string::npos);
  };
  bad("[workload]\nscheduler = \"pbs\"\n", 2, "workload.scheduler", "pbs");
  bad("[workload]\nbefore = \"soon\"\n", 2, "workload.before", "not a duration");
  bad("[workload]\ntimezone = \"Nowhere/Land\"\n", 2, "workload.timezone", "unknown time zone");
  bad("[workload]\nscheduler = \"static\"\n", 1, "workload.static", "static");
  bad("[[source]]\nname = \"a\"\nkind = \"files\"\n", 1, "source[0].paths", "paths");
  bad("[[source]]\nname = \"a\"\nkind = \"ftp\"\n", 3, "source[0].kind", "ftp");
  bad("[[source]]\nname = \"a\"\nkind = \"files\"\npaths = [\"x\"]\npath = \"y\"\n", 5, "source[0].path", "unknown key");
  bad("[workload]\nscheduler = \"static\"\nstatic = \n", 3, "", "");  // TOML syntax error: line 3
  bad("[[source]]\nname = \"a\"\nkind = \"files\"\npaths = [\"x\"]\n[[source]]\nname = \"a\"\nkind = \"files\"\npaths = [\"y\"]\n",
      5, "source.name", "two sources");
}

TEST_CASE("load_config: explicit path must exist / no file means defaults") {
  test::TempDir d;
  auto missing = load_config(d.path() + "/none.toml");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().file.find("none.toml") != std::string::npos);
  auto dir = load_config(d.path());
  REQUIRE_FALSE(dir);
  std::string p = d.file("c.toml", "[workload]\nafter = \"2m\"\n");
  auto ok = load_config(p);
  REQUIRE(ok);
  CHECK(ok->after == 2 * 60 * kMicrosPerSecond);
  CHECK(ok->base_dir == d.path());
}

TEST_CASE("slurm section: rest mode needs a url / tokens come from env or file only") {
  auto ok = parse_config("[workload]\nscheduler = \"slurm\"\n[slurm]\nmode = \"rest\"\nurl = \"http://h:6820\"\ntoken_file = \"jwt\"\n",
                         "/etc/a/c.toml");
  REQUIRE(ok);
  const auto& slurm = static_cast<const SlurmSettings&>(*ok->scheduler_settings.at("slurm"));
  CHECK(slurm.mode == "rest");
  CHECK(slurm.token_file == "/etc/a/jwt");
  auto no_url = parse_config("[slurm]\nmode = \"rest\"\n", "c.toml");
  REQUIRE_FALSE(no_url);
  CHECK(no_url.error().key == "slurm.url");
  auto token_text = parse_config("[slurm]\ntoken = \"abc\"\n", "c.toml");
  REQUIRE_FALSE(token_text);  // a secret in the config text is refused
  CHECK(token_text.error().message.find("unknown key 'token'") != std::string::npos);
}

TEST_CASE("prometheus source: url required, durations, host labels and map") {
  auto ok = parse_config("[[source]]\nname = \"dcgm\"\nkind = \"prometheus\"\nurl = \"http://p:9090\"\nstep = \"30s\"\n"
                         "host_label = \"instance\"\nhost_map = { \"10.0.0.13\" = \"node03\" }\ntoken_env = \"PROM_TOKEN\"\n",
                         "c.toml");
  REQUIRE(ok);
  const auto& s = static_cast<const PrometheusSettings&>(*ok->sources[0].settings);
  CHECK(s.stream == Stream::metrics);
  CHECK(s.step == 30 * kMicrosPerSecond);
  CHECK(s.host_labels == std::vector<std::string>{"instance"});
  CHECK(s.host_map.at("10.0.0.13") == "node03");
  CHECK(s.token_env == "PROM_TOKEN");
  CHECK_FALSE(parse_config("[[source]]\nname = \"d\"\nkind = \"prometheus\"\n", "c.toml"));
  CHECK_FALSE(parse_config("[[source]]\nname = \"d\"\nkind = \"prometheus\"\nurl = \"u\"\nstep = \"0s\"\n", "c.toml"));
  CHECK_FALSE(parse_config("[[source]]\nname = \"d\"\nkind = \"prometheus\"\nurl = \"u\"\npassword = \"x\"\n", "c.toml"));
}

TEST_CASE("a source's stream is one the rules read / pod logs are never the scheduler's") {
  auto stream_of = [](const std::string& source) {
    return parse_config("[workload]\nscheduler = \"kueue\"\n[[source]]\nname = \"s\"\n" + source, "c.toml");
  };
  auto files = stream_of("kind = \"files\"\npaths = [\"x\"]\nstream = \"scheduler\"\n");
  REQUIRE(files);
  CHECK(files->sources[0].settings->stream == Stream::scheduler);
  auto loki = stream_of("kind = \"loki\"\nurl = \"http://l\"\nstream = \"syslog\"\n");
  REQUIRE(loki);
  CHECK(loki->sources[0].settings->stream == Stream::syslog);
  auto pods = stream_of("kind = \"kubernetes\"\nstream = \"scheduler\"\n");
  REQUIRE_FALSE(pods);
  CHECK(pods.error().message == "stream 'scheduler' is not one of applog, syslog");
  for (const char* kind : {"kind = \"files\"\npaths = [\"x\"]\n", "kind = \"loki\"\nurl = \"http://l\"\n"}) {
    auto bad = stream_of(std::string(kind) + "stream = \"kernel\"\n");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message == "stream 'kernel' is not one of applog, syslog, scheduler");
    CHECK(bad.error().line == 7);
  }
}

TEST_CASE("config: a source kind this version cannot read is refused with the way to its data") {
  auto journal = parse_config("[[source]]\nname = \"j\"\nkind = \"journal\"\n", "c.toml");
  REQUIRE_FALSE(journal);
  CHECK(journal.error().message.find("not available in this version") != std::string::npos);
  CHECK(journal.error().hint.find("journalctl -o json") != std::string::npos);
  auto stat = parse_config("[[source]]\nname = \"s\"\nkind = \"static\"\n", "c.toml");
  REQUIRE_FALSE(stat);
  CHECK(stat.error().hint.find("scheduler = \"static\"") != std::string::npos);
  auto slurm = parse_config("[[source]]\nname = \"s\"\nkind = \"slurm\"\n", "c.toml");
  REQUIRE_FALSE(slurm);
  CHECK(slurm.error().message == "'slurm' is a scheduler, not a source kind");
}

TEST_CASE("config: kinds and schedulers come from the registry / every scheduler has settings") {
  auto c = parse_config("[workload]\nscheduler = \"none\"\n", "c.toml");
  REQUIRE(c);
  CHECK(c->scheduler == nullptr);
  CHECK(c->scheduler_settings.size() == schedulers().size());
  CHECK(default_config().scheduler_settings.size() == schedulers().size());
  auto unknown = parse_config("[[source]]\nname = \"a\"\nkind = \"ftp\"\n", "c.toml");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message == "source kind 'ftp' is not one of files, loki, prometheus, kubernetes");
  auto sched = parse_config("[workload]\nscheduler = \"pbs\"\n", "c.toml");
  REQUIRE_FALSE(sched);
  CHECK(sched.error().message == "scheduler 'pbs' is not one of static, slurm, kueue, none");
}

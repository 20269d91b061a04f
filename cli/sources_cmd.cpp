#include <cstdio>
#include <fmt/format.h>
#include <memory>

#include "cli/commands.hpp"
#include "cli/messages.hpp"
#include "core/pipeline/collect.hpp"
#include "core/rules/rule_sources.hpp"
#include "core/rules/rules.hpp"
#include "core/pipeline/workload.hpp"
#include "sources/transport/command.hpp"
#include "sources/transport/http.hpp"
#include "core/rules/matcher.hpp"
#include "core/scan/scan.hpp"

namespace attribution::cli {
namespace {

// Reaches every configured source, reads what it gives (files listed and scanned, network sources
// queried) and reports each as the diagnosis would: the status and reason come from the core's own
// collect and scan passes, not from a second opinion here.
int check_sources(const std::string& config_path) {
  auto config = load_config(config_path.empty() ? std::nullopt : std::optional<std::string>(config_path));
  if (!config) return report_error(config.error());
  if (config->sources.empty()) {
    std::printf("no sources configured%s\n", config->file.empty() ? " (no config file found)" : "");
    return kFailed;
  }
  ProcessRunner runner;
  CurlHttpClient http;
  Transports transports{runner, http};
  Workload w;  // without a scheduler, {host} matches any host
  if (config->scheduler && !config->scheduler->needs_job()) {
    auto resolved = resolve_workload(*config, WorkloadRequest{}, transports);
    if (!resolved) return report_error(resolved.error());
    w = *resolved;
  }
  auto rules = load_rules(config->rule_paths);
  if (!rules) return report_error(rules.error());
  auto matcher = Matcher::build(*rules);
  if (!matcher) return report_error(matcher.error());
  Collection c = collect(*config, w, {}, rules->metrics, transports);
  scan(c, **matcher, w, 2);
  int bad = 0;
  for (const SourceCoverage& cov : c.coverage) {
    bad += cov.status != SourceStatus::ok;
    std::printf("%-16s %-10s %-8s %lld file(s), %lld bytes%s\n", cov.name.c_str(), cov.kind.c_str(),
                std::string(to_string(cov.status)).c_str(), static_cast<long long>(cov.files),
                static_cast<long long>(cov.bytes), cov.reason.empty() ? "" : (" - " + cov.reason).c_str());
    for (const auto& p : cov.problems) std::printf("    %s\n", p.c_str());
  }
  return bad ? kFailed : kDiagnosed;
}

}  // namespace

void add_sources_command(CLI::App& app, int* exit_code) {
  CLI::App* sources = app.add_subcommand("sources", "Inspect the configured sources");
  sources->require_subcommand(1);
  auto config = std::make_shared<std::string>();
  auto check = sources->add_subcommand("check", "Reach every configured source and report each (exit 1 if any is not ok)");
  check->add_option("--config", *config, "Config file (default: ./attribution.toml, /etc/attribution/attribution.toml)");
  check->callback([=] { *exit_code = check_sources(*config); });
}

}  // namespace attribution::cli

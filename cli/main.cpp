// attribution: forensic root-cause analysis for failed distributed AI jobs.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/messages.hpp"

int main(int argc, char** argv) {
  using namespace attribution::cli;
  CLI::App app{
      "attribution: find the root cause of a failed distributed training job.\n"
      "Reads the job's logs, matches fault signatures (rules as data), separates the root cause\n"
      "(an NVLink fault on one GPU) from its symptoms (NCCL errors and timeouts on every rank)."};
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 diagnosis produced; 1 rules check failed; 2 usage error; 3 invalid config,\n"
      "workload file or rules; 4 no usable data; 5 report could not be written.\n"
      "Docs: docs/architecture.md, docs/report.md, docs/rules.md");
  int exit_code = kDiagnosed;
  add_diagnose_command(app, &exit_code);
  add_rules_command(app, &exit_code);
  add_sources_command(app, &exit_code);
  app.add_subcommand("version", "Print the version")->callback([] { std::printf("attribution %s\n", ATTRIBUTION_VERSION); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kUsage;
  }
  return exit_code;
}

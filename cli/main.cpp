// attribution: forensic root-cause analysis for failed distributed AI jobs.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "cli/messages.hpp"

int main(int argc, char** argv) {
  using namespace attribution::cli;
  CLI::App app{
      "attribution: find the root cause of a failed distributed training job.\n"
      "Reads the job's logs, matches fault signatures (rules as data), separates the root cause\n"
      "(an NVLink fault on one GPU) from its symptoms (NCCL errors and timeouts on every rank)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("attribution ") + ATTRIBUTION_VERSION);
  // Every error this program prints starts the same way, the command line's own included.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("attribution: error: ") + e.what() + "\n  hint: run with --help for the usage\n";
  });
  app.footer(std::string(kExitStatusHelp) + "Docs: docs/architecture.md, docs/report.md, docs/rules.md");
  int exit_code = kDiagnosed;
  add_diagnose_command(app, &exit_code);
  add_rules_command(app, &exit_code);
  add_sources_command(app, &exit_code);
  add_store_commands(app, &exit_code);
  app.add_subcommand("version", "Print the version")->callback([] { std::printf("attribution %s\n", ATTRIBUTION_VERSION); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kUsage;
  }
  return exit_code;
}

#pragma once
#include <CLI/CLI.hpp>

namespace attribution::cli {

// Each adds its subcommand to `app`; the callback stores the exit code in `*exit_code`.
void add_diagnose_command(CLI::App& app, int* exit_code);
void add_rules_command(CLI::App& app, int* exit_code);
void add_sources_command(CLI::App& app, int* exit_code);

}  // namespace attribution::cli

#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "core/base/result.hpp"

namespace attribution::cli {

// Each adds its subcommand to `app`; the callback stores the exit code in `*exit_code`.
void add_diagnose_command(CLI::App& app, int* exit_code);
void add_rules_command(CLI::App& app, int* exit_code);
void add_sources_command(CLI::App& app, int* exit_code);
void add_store_commands(CLI::App& app, int* exit_code);  // history, nodes, serve

// The report store a command uses: --store, else the config's [store] (empty: none).
Result<std::string> store_location(const std::string& flag, const std::string& config_path);

}  // namespace attribution::cli

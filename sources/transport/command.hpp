#pragma once
// Running scheduler commands (sacct, scontrol, sinfo) through one narrow interface, so the parsers
// are tested on recorded bytes and production runs the real programs.
#include <map>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"

namespace attribution {

struct CommandOutput {
  int exit_code = -1;  // -1: killed by a signal or the timeout
  std::string out, err;
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // An Error only when the program could not be started (not found, not executable).
  virtual Result<CommandOutput> run(const std::vector<std::string>& argv) = 0;
  // Whether `program` can be run at all (on PATH, for the real runner).
  virtual bool available(const std::string& program) = 0;
};

// Runs programs from PATH, with a timeout; never through a shell.
class ProcessRunner : public CommandRunner {
 public:
  explicit ProcessRunner(Micros timeout = 30 * kMicrosPerSecond) : timeout_(timeout) {}
  Result<CommandOutput> run(const std::vector<std::string>& argv) override;
  bool available(const std::string& program) override;

 private:
  Micros timeout_;
};

// Serves recorded outputs: argv joined by spaces -> output. Tests and bundles use it on captured
// bytes. A program is available when recorded as such, else when any recorded command runs it.
class ReplayRunner : public CommandRunner {
 public:
  void add(const std::string& command_line, CommandOutput output) { outputs_[command_line] = std::move(output); }
  void add_error(const std::string& command_line, std::string message) { errors_[command_line] = std::move(message); }
  void set_available(const std::string& program, bool available) { available_[program] = available; }
  Result<CommandOutput> run(const std::vector<std::string>& argv) override;
  bool available(const std::string& program) override;

 private:
  std::map<std::string, CommandOutput> outputs_;
  std::map<std::string, std::string> errors_;  // could not be started
  std::map<std::string, bool> available_;
};

std::string join_argv(const std::vector<std::string>& argv);

}  // namespace attribution

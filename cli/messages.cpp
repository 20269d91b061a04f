#include "cli/messages.hpp"

#include <cstdio>
#include <fmt/format.h>

namespace attribution::cli {

std::string format_error(const Error& e) {
  std::string where;
  if (!e.file.empty()) where = e.line > 0 ? fmt::format("{}:{}: ", e.file, e.line) : e.file + ": ";
  std::string key = e.key.empty() ? "" : fmt::format("[{}] ", e.key);
  std::string out = fmt::format("attribution: error: {}{}{}\n", where, key, e.message);
  if (!e.hint.empty()) out += fmt::format("  hint: {}\n", e.hint);
  return out;
}

int exit_code_for(const Error& e) {
  switch (e.kind) {
    case ErrorKind::usage: return kUsage;
    case ErrorKind::config:
    case ErrorKind::rules: return kConfig;
    case ErrorKind::input:
    case ErrorKind::no_data: return kNoData;
    case ErrorKind::output: return kOutput;
  }
  return kFailed;
}

void report_warning(const std::string& message) {
  std::fputs(fmt::format("attribution: warning: {}\n", message).c_str(), stderr);
}

int report_error(const Error& e) {
  std::fputs(format_error(e).c_str(), stderr);
  return exit_code_for(e);
}

}  // namespace attribution::cli

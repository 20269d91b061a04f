#pragma once
// Runs the built attribution binary the way a user does, from the source directory.
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace attribution::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr, interleaved
};

inline CommandResult run_cli(const std::string& args, bool merge_stderr = true) {
  std::string cmd = std::string("cd '") + ATTRIBUTION_SOURCE_DIR + "' && '" + ATTRIBUTION_BINARY + "' " + args +
                    (merge_stderr ? " 2>&1" : " 2>/dev/null");
  CommandResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 65536> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace attribution::test

#include "sources/transport/command.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace attribution {

std::string join_argv(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

bool ProcessRunner::available(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  for (size_t a = 0; a <= p.size();) {
    size_t b = p.find(':', a);
    if (b == std::string::npos) b = p.size();
    std::string candidate = (b > a ? p.substr(a, b - a) : ".") + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return true;
    a = b + 1;
  }
  return false;
}

Result<CommandOutput> ProcessRunner::run(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return make_error(ErrorKind::input, "pipe failed");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]), close(out_pipe[1]);
    return make_error(ErrorKind::input, "pipe failed");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]), close(err_pipe[0]);
    return make_error(ErrorKind::input, fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  }
  CommandOutput result;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(timeout_);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  bool timed_out = false;
  char buf[65536];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = !timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (timed_out) result.err += fmt::format("\n[killed after {} s]", timeout_ / kMicrosPerSecond);
  return result;
}

bool ReplayRunner::available(const std::string& program) {
  if (auto it = available_.find(program); it != available_.end()) return it->second;
  for (const auto& [cmd, out] : outputs_)
    if (cmd.rfind(program + " ", 0) == 0 || cmd == program) return true;
  return false;
}

Result<CommandOutput> ReplayRunner::run(const std::vector<std::string>& argv) {
  if (auto e = errors_.find(join_argv(argv)); e != errors_.end()) return make_error(ErrorKind::input, e->second);
  auto it = outputs_.find(join_argv(argv));
  if (it == outputs_.end())
    return make_error(ErrorKind::input, fmt::format("no recorded output for '{}'", join_argv(argv)));
  return it->second;
}

}  // namespace attribution

#pragma once
// Pass 2: resolve the workload (id, nodes, fate, window) from the scheduler or the command line.
#include <optional>
#include <string>
#include <vector>

#include "core/pipeline/config.hpp"
#include "core/base/model.hpp"

namespace attribution {

struct WorkloadRequest {
  std::optional<std::string> job;
  Micros now = 0;  // wall clock: the end of a running job's window
  std::vector<std::string> logs;  // --logs mode: no scheduler
  std::optional<std::string> nodes, start, end;
};

class CommandRunner;
class HttpClient;
class KubeAccessResolver;
class FileLister;

// How passes reach the outside world: real programs and HTTP, or recordings in tests and bundles.
struct Transports {
  CommandRunner& commands;
  HttpClient& http;
  KubeAccessResolver* kube = nullptr;  // null: this machine's kubeconfig or service account
  FileLister* files = nullptr;         // null: the file system
};

// With no config file, `--job` on a host with sacct or scontrol means scheduler = "slurm".
Result<Workload> resolve_workload(const Config& config, const WorkloadRequest& request, Transports transports);

}  // namespace attribution

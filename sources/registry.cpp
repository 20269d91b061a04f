#include "sources/registry.hpp"

#include "sources/files/files_source.hpp"
#include "sources/kubernetes/kube_logs.hpp"
#include "sources/kueue/kueue_scheduler.hpp"
#include "sources/loki/loki.hpp"
#include "sources/prometheus/prometheus.hpp"
#include "sources/slurm/slurm_scheduler.hpp"
#include "sources/static/static_workload.hpp"

namespace attribution {

namespace {
// One instance of a kind or scheduler for the life of the process (a static: nothing to free).
template <typename T>
const T* one() {
  static const T instance;
  return &instance;
}
}  // namespace

const std::vector<const SourceKind*>& source_kinds() {
  static const std::vector<const SourceKind*> kinds = {
      one<FilesKind>(),       // sources/files
      one<LokiKind>(),        // sources/loki
      one<PrometheusKind>(),  // sources/prometheus
      one<KubeLogsKind>(),    // sources/kubernetes
  };
  return kinds;
}

const std::vector<const Scheduler*>& schedulers() {
  static const std::vector<const Scheduler*> all = {
      one<StaticScheduler>(),  // sources/static
      one<SlurmScheduler>(),   // sources/slurm
      one<KueueScheduler>(),   // sources/kueue
  };
  return all;
}

FileLister& local_files() {
  static DiskFileLister disk;  // stateless
  return disk;
}

const SourceKind* find_source_kind(std::string_view name) {
  for (const SourceKind* k : source_kinds())
    if (k->name() == name) return k;
  return nullptr;
}

const Scheduler* find_scheduler(std::string_view name) {
  for (const Scheduler* s : schedulers())
    if (s->name() == name) return s;
  return nullptr;
}

}  // namespace attribution

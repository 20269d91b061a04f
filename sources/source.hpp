#pragma once
// What a source kind and a scheduler are to the pipeline. Each lives in its own folder under
// sources/ and is one line of sources/registry.cpp; the pipeline knows them only through these
// interfaces. They reach the outside only through the transports they are given (real, recording
// or replaying), so recorded answers exercise the same parsing as production.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/enums.hpp"
#include "core/base/model.hpp"
#include "core/base/toml_util.hpp"
#include "core/rules/rules.hpp"
#include "core/scan/input.hpp"

namespace attribution {

class CommandRunner;
class HttpClient;
class KubeAccessResolver;

// What files sources read: globs with {job} {host} {rank} {workdir}, relative to base_dir.
struct FileGlobs {
  std::vector<std::string> paths;
  std::string host;  // every file belongs to this host
  std::string base_dir;
};

// Where files come from: the file system, or a bundle's record of what was listed and read (a
// replay touches no file of the original machine).
class FileLister {
 public:
  virtual ~FileLister() = default;
  virtual std::vector<InputFile> list(const FileGlobs& globs, size_t index, const Workload& workload,
                                      SourceCoverage& coverage) = 0;
  // --logs PATH...: files and directories walked, hosts from the names.
  virtual std::vector<InputFile> list_adhoc(const std::vector<std::string>& paths, size_t index,
                                            const Workload& workload, SourceCoverage& coverage) = 0;
  // A whole small file a scheduler reads (a static workload description).
  virtual Result<std::string> read_text(const std::string& path) = 0;
};

// How passes reach the outside world: real programs and HTTP, or recordings in tests and bundles.
struct Transports {
  CommandRunner& commands;
  HttpClient& http;
  KubeAccessResolver* kube = nullptr;  // null: this machine's kubeconfig or service account
  FileLister* files = nullptr;         // null: the file system
};

// What every source's settings say about its lines; a kind fills what applies to it.
struct SourceSettings {
  virtual ~SourceSettings() = default;
  Stream stream = Stream::applog;    // which rules read its lines
  std::optional<TimeZone> timezone;  // for local times without a zone; unset: the workload's
  std::optional<Micros> boot_time;   // for dmesg seconds-since-boot lines
};

class SourceKind;

// One [[source]] table, parsed.
struct SourceEntry {
  std::string name;
  const SourceKind* kind = nullptr;
  long line = 0;  // where it is declared
  std::shared_ptr<const SourceSettings> settings;
};

// What a parse may read besides its own table: where relative paths resolve, and the whole
// document (pod logs take their credentials from [kueue] by default).
struct ParseContext {
  std::string base_dir;
  const toml::table* document = nullptr;  // null: built-in defaults, no file
  std::string file;
};

// What a source's collect reads: the job, the rules' metric specs, the transports.
struct CollectContext {
  const Workload& workload;
  const std::vector<MetricSpec>& metrics;
  const Transports& transports;
};

class SourceKind {
 public:
  virtual ~SourceKind() = default;
  virtual std::string_view name() const = 0;
  // Its settings from its [[source]] table; an unknown key is an error naming it.
  virtual Result<std::shared_ptr<const SourceSettings>> parse(const TomlReader& table,
                                                              const ParseContext& context) const = 0;
  // What it read for this job: files for the scan to read, or inline text (an HTTP answer), with
  // `coverage` (status, reason, bytes, problems, hosts expected) filled whatever happens.
  virtual std::vector<InputFile> collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                         SourceCoverage& coverage) const = 0;
  // `--logs` replaces the configured sources of this kind.
  virtual bool replaced_by_adhoc_logs() const { return false; }
};

constexpr Micros kDefaultCommandTimeout = 30 * kMicrosPerSecond;

struct SchedulerSettings {
  virtual ~SchedulerSettings() = default;
};

struct SchedulerRequest {
  std::string job;  // as given to --job (may be empty for a scheduler that needs none)
  Micros now = 0;   // wall clock: the end of a running job's window
  TimeZone zone = TimeZone::utc();  // [workload] timezone
  bool offline = false;  // a replay: no credential is read, nothing outside the transports touched
  std::string config_file;
};

// Where a workload comes from: its id, nodes, fate and window.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string_view name() const = 0;
  // The config section it owns ("slurm" for [slurm]); empty: none.
  virtual std::string_view section() const { return {}; }
  // Keys it reads in [workload] beside the common ones (static = "job.toml").
  virtual std::vector<std::string> workload_keys() const { return {}; }
  // Its settings from the document (its section, if any); `selected` when [workload] names it.
  virtual Result<std::shared_ptr<const SchedulerSettings>> parse(const ParseContext& context,
                                                                 bool selected) const = 0;
  // Whether `--job` is required (a static file names its own workload).
  virtual bool needs_job() const { return true; }
  // With no config file and --job: does this machine have this scheduler's tools?
  virtual bool detect(CommandRunner&) const { return false; }
  virtual Micros command_timeout(const SchedulerSettings&) const { return kDefaultCommandTimeout; }
  virtual Result<Workload> resolve(const SchedulerRequest& request, const SchedulerSettings& settings,
                                   const Transports& transports) const = 0;
};

// The parts of a table many kinds read the same way.
// `stream`: applog, syslog, or (when allowed) scheduler.
Status parse_stream(const TomlReader& r, Stream& stream, bool scheduler_allowed);

}  // namespace attribution

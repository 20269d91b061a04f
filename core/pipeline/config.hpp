#pragma once
// The configuration file (docs/architecture.md, configuration): the workload section, window margins, time zone,
// rules, and the sources and scheduler sections, each parsed by its kind (sources/registry.hpp).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"
#include "sources/source.hpp"

namespace attribution {

struct Config {
  std::string file;      // the file read, empty for built-in defaults
  std::string text;      // its text as parsed (an evidence bundle keeps it, credentials removed)
  std::string base_dir;  // relative paths resolve here
  const Scheduler* scheduler = nullptr;  // [workload] scheduler; null: none
  // Every scheduler's settings (its section, or defaults), by name: with no scheduler named, one
  // may still be detected (`--job` on a Slurm login node).
  std::map<std::string, std::shared_ptr<const SchedulerSettings>, std::less<>> scheduler_settings;
  Micros before = 15 * 60 * kMicrosPerSecond;
  Micros after = 5 * 60 * kMicrosPerSecond;
  TimeZone timezone = TimeZone::utc();
  std::vector<SourceEntry> sources;
  std::vector<std::string> rule_paths;
  std::string store;  // [store] path (resolved) or url; empty: none
};

// `path` given: it must exist. Otherwise ./attribution.toml, then /etc/attribution/attribution.toml,
// then built-in defaults.
Result<Config> load_config(const std::optional<std::string>& path);
Result<Config> parse_config(std::string_view text, const std::string& file);
// How long a scheduler command may run: the configured scheduler's setting. A scheduler detected
// without a config file has its defaults.
Micros command_timeout(const Config& config);
// Built-in defaults: no file, no sources, every scheduler's default settings.
Config default_config();

}  // namespace attribution

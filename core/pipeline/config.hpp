#pragma once
// The configuration file (docs/architecture.md, configuration): workload, window margins, time zone and sources.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"

namespace attribution {

struct SourceConfig {
  std::string name, kind;
  std::vector<std::string> paths;  // files: globs with {job} {host} {rank}, relative to base_dir
  std::string stream = "applog";
  std::optional<TimeZone> timezone;  // overrides the workload time zone for this source
  std::optional<Micros> boot_time;   // for dmesg seconds-since-boot lines
  std::string host;                  // every line of this source belongs to this host
  long line = 0;                     // where it is declared
  // prometheus: credentials come from the variable or file named here, never from the config text.
  std::string url, token_env, token_file, username, password_env, ca_file;
  std::vector<std::string> host_labels = {"Hostname", "hostname", "instance"};  // instance: :port dropped
  std::map<std::string, std::string> host_map;  // label value -> node name (exporter pod -> node)
  Micros step = 15 * kMicrosPerSecond;
  Micros timeout = 30 * kMicrosPerSecond;
  // loki: a LogQL template ({job} {hosts_regex} {namespace}), the tenant, entries per request.
  std::string query, org_id;
  int64_t limit = 5000;
  // kubernetes: pod logs of the workload's pods; credentials default to [kueue]'s.
  std::string kubeconfig, context, kube_namespace;
  std::optional<bool> in_cluster;
  std::vector<std::string> containers;  // empty: every container of each pod
};

// [kueue]: how to reach the Kubernetes API server holding the Kueue Workload (docs/kubernetes.md).
struct KueueConfig {
  std::string ns;          // namespace of `--job name` (else the context's / service account's)
  std::string kubeconfig;  // empty: $KUBECONFIG, else ~/.kube/config, else in-cluster
  std::string context;     // empty: current-context
  bool in_cluster = false;
  std::string api = "auto";  // v1beta2 | v1beta1 | auto (v1beta2, then v1beta1)
  Micros timeout = 30 * kMicrosPerSecond;
  std::string ca_file;
  long line = 0;
};

// [slurm]: how to reach Slurm. mode = "cli" runs sacct/scontrol/sacctmgr/sinfo; mode = "rest" talks
// to slurmrestd with a JWT read from an environment variable or a file (never from the config text).
struct SlurmConfig {
  std::string mode = "cli";
  std::string url;         // rest: http(s)://host:6820
  std::string token_env;   // rest: variable holding the JWT (default SLURM_JWT)
  std::string token_file;  // rest: file holding the JWT
  std::string user;        // rest: X-SLURM-USER-NAME (default: $USER)
  std::string api;         // rest: "v0.0.38" .. ; empty: newest the server answers
  std::string ca_file;     // rest: CA bundle for https
  Micros timeout = 30 * kMicrosPerSecond;  // each command, each request
  long line = 0;
};

struct Config {
  std::string file;      // the file read, empty for built-in defaults
  std::string text;      // its text as parsed (an evidence bundle keeps it, credentials removed)
  std::string base_dir;  // relative paths resolve here
  std::string scheduler = "none";  // static | slurm | kueue | none
  std::string static_file;
  Micros before = 15 * 60 * kMicrosPerSecond;
  Micros after = 5 * 60 * kMicrosPerSecond;
  TimeZone timezone = TimeZone::utc();
  std::vector<SourceConfig> sources;
  std::vector<std::string> rule_paths;
  SlurmConfig slurm;
  // Replaying a bundle: credentials are never read and nothing outside the bundle is touched;
  // the static workload file's text comes from the bundle.
  bool offline = false;
  std::optional<std::string> static_text;
  KueueConfig kueue;
};

// `path` given: it must exist. Otherwise ./attribution.toml, then /etc/attribution/attribution.toml,
// then built-in defaults.
Result<Config> load_config(const std::optional<std::string>& path);
Result<Config> parse_config(std::string_view text, const std::string& file);

}  // namespace attribution

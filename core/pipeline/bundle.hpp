#pragma once
// An evidence bundle (docs/bundles.md): everything one diagnosis read, kept as plain files, so
// `diagnose --replay DIR` gives the byte-identical report without the cluster, the network or
// the original files. Secrets never enter a bundle: request headers are not recorded, user:pass@
// is cut out of URLs, and credential keys are removed from the recorded config.
#include <optional>
#include <string>
#include <vector>

#include "core/pipeline/collect.hpp"
#include "core/base/result.hpp"
#include "core/rules/rule_sources.hpp"
#include "core/rules/rules.hpp"
#include "sources/transport/command.hpp"
#include "sources/transport/http.hpp"
#include "sources/transport/recording.hpp"

namespace attribution {

constexpr int kBundleVersion = 1;

// What the user asked for, as given on the command line.
struct BundleRequest {
  std::optional<std::string> job, nodes, start, end, before, after;
  std::vector<std::string> logs;
  Micros now = 0;  // the wall clock the diagnosis ran at: the end of a running job's window
};

// One file source as listed: its coverage after listing, and its files with their extracts.
struct ListedSource {
  size_t index = 0;
  SourceCoverage coverage;
  std::vector<InputFile> files;
};

struct BundleContents {
  BundleRequest request;
  std::string config_file;  // the original config path (relative paths resolved against it); empty: defaults
  std::string config_text;  // credential keys removed
  std::optional<std::string> static_workload;  // scheduler = "static": the workload file's text
  std::vector<RuleSource> rules;
  std::vector<RecordedProbe> probes;
  std::vector<RecordedCommand> commands;
  std::vector<RecordedExchange> exchanges;
  std::vector<RecordedKubeAccess> kube_access;  // the API server a kubeconfig led to; no credential
  std::vector<ListedSource> listings;
  std::string workload_json;  // the resolved workload, for people reading the bundle
};

// workload.json: the report's workload fields, and the scheduler's facts and the job's log paths.
std::string workload_json(const Workload& workload);

// Writes DIR (created; must be empty or absent) with a manifest of every file's SHA-256.
// --record DIR must be new or empty, and writable: checked before a diagnosis starts.
Status check_bundle_dir(const std::string& dir);
Status write_bundle(const std::string& dir, const BundleContents& contents);

struct LoadedBundle {
  BundleContents contents;
  std::vector<std::string> problems;  // missing files and files that do not match the manifest
};

// An Error only when nothing can be replayed (no manifest, another format or version, no index).
Result<LoadedBundle> read_bundle(const std::string& dir);

// The config text without credentials: keys naming tokens, passwords, keys, and user:pass@ in URLs.
Result<std::string> redact_config(std::string_view toml_text, const std::string& file);

// The listing twin that remembers what the real lister returned.
class RecordingFileLister : public FileLister {
 public:
  explicit RecordingFileLister(FileLister& inner) : inner_(inner) {}
  std::vector<InputFile> list(const FileGlobs& globs, size_t index, const Workload& workload,
                              SourceCoverage& coverage) override;
  std::vector<InputFile> list_adhoc(const std::vector<std::string>& paths, size_t index, const Workload& workload,
                                    SourceCoverage& coverage) override;
  Result<std::string> read_text(const std::string& path) override;
  std::vector<ListedSource> listed;
  std::optional<std::string> read;  // the small file a scheduler read (a static workload)

 private:
  FileLister& inner_;
};

// The listing twin that answers from a bundle; a source it has no record of lists nothing.
class ReplayFileLister : public FileLister {
 public:
  ReplayFileLister(std::vector<ListedSource> listings, std::optional<std::string> read)
      : listings_(std::move(listings)), read_(std::move(read)) {}
  std::vector<InputFile> list(const FileGlobs& globs, size_t index, const Workload& workload,
                              SourceCoverage& coverage) override;
  std::vector<InputFile> list_adhoc(const std::vector<std::string>& paths, size_t index, const Workload& workload,
                                    SourceCoverage& coverage) override;
  Result<std::string> read_text(const std::string& path) override;

 private:
  std::vector<InputFile> replay(size_t index, SourceCoverage& coverage);
  std::vector<ListedSource> listings_;
  std::optional<std::string> read_;
};

// Loads the bundle's recorded commands, HTTP answers and Kubernetes access into the replaying twins.
void load_replay_transports(const BundleContents& contents, ReplayRunner& runner, ReplayHttpClient& http,
                            ReplayKubeAccessResolver& kube);

}  // namespace attribution

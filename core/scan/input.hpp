#pragma once
// What the scan reads: the collected sources (how each one's lines are read) and their files, in
// collection order. Sources produce it; the scan consumes it.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/enums.hpp"
#include "core/base/model.hpp"
#include "core/scan/line_extract.hpp"

namespace attribution {

struct InputFile {
  std::string path;  // a file, or for inline text the name shown in evidence locations
  size_t source = 0;      // index into the collection's sources
  std::string host_hint;  // from the path: {host}, a node-named directory, or a --logs subdirectory
  int rank_hint = -1;     // from {rank} or a "rank-N" file name
  std::shared_ptr<const std::string> text;  // inline content (scheduler facts) instead of a file
  std::shared_ptr<const FileExtract> extract = nullptr;  // replay: the file's recorded in-window lines
  std::optional<Stream> stream = std::nullopt;  // the stream its sender declared (pushed logs); unset: the source's
  // The hint is where the collector found the file (a {host} path template): no line in it (a
  // prompt, a declared hostname) names another machine for its lines.
  bool host_certain = false;
  // The name the file's processes know their machine by when it is not the hint (a pod's hostname is
  // the pod's name, the hint its node's): lines naming it are the hint's.
  std::string local_name{};
};

struct SourceRuntime {
  std::string name, kind;
  Stream stream = Stream::applog;
  TimeZone zone;
  std::optional<Micros> boot_time;
  bool syslog_by_file_name = false;  // --logs: kern.log, dmesg, messages... are read as syslog
};

struct Collection {
  std::vector<SourceRuntime> sources;
  std::vector<SourceCoverage> coverage;  // parallel to sources
  std::vector<InputFile> files;          // in source order, then path order
};

// "kern.log", "dmesg", "messages", "syslog", "journal" name kernel/system logs.
bool is_system_log_name(const std::string& path);
// "rank-3.log", "rank_12.out": the rank a file's name gives; -1 for none.
int rank_from_name(const std::string& path);

}  // namespace attribution

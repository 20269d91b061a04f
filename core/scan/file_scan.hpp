#pragma once
// One file's scan result, and the merge of all files' results into the scan's, in collection order
// (so the thread count never changes the output), with each source's coverage settled.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "core/scan/input.hpp"
#include "core/scan/scan.hpp"
#include "core/scan/source_status.hpp"

namespace attribution {

struct FileScan {
  std::vector<Finding> findings;
  std::map<std::string, OutsideWindow> outside;  // by host
  int64_t not_kept = 0;  // matching lines past the file's share of distinct findings: counted only
  int64_t bytes = 0;
  int64_t candidates = 0, matching = 0, verify_ns = 0;  // for ScanProgress
  std::string problem;  // why the file was skipped or only partly read
  bool failed = false;
  bool year_inferred = false;  // a year-less stamp took its year from the file's modification time
  std::shared_ptr<FileExtract> extract;  // recording
  // A small file none of whose findings names a machine: the machines it names (prompts, declared
  // hosts) anywhere in it, for a flat paste whose one machine is named in another file; and, kept
  // apart, the machines its lines' stamped prefixes name (at most two: one is all adoption takes).
  std::set<std::string> named_hosts;
  std::set<std::string> prefix_hosts;
  // A pasted excerpt's last lines that read like errors and that no rule read (its order).
  std::vector<Evidence> unread;
};

// `results[i]` is the scan of `c.files[i]`; `per_file` the share of distinct findings each file kept.
// The findings move out of `results`; `c.coverage` gets each source's files, bytes and problems.
ScanResult merge_file_scans(std::vector<FileScan>& results, Collection& c, const Workload& w, size_t per_file,
                            bool record);

}  // namespace attribution

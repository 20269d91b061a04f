#include "core/scan/file_scan.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "core/scan/paste_hosts.hpp"

namespace attribution {
namespace {

// A flat paste whose findings name no machine take the one machine its files name: by a prompt or a
// declaration, else by their lines' stamped prefixes (a prompt's name and a journal's own name for the
// same machine often differ, so the prefixes count only where no file names one otherwise).
void adopt_host_of_paste(std::vector<FileScan>& results, const Workload& w) {
  std::vector<std::vector<Finding>*> files;
  std::set<std::string> named, by_prefix;
  for (FileScan& r : results) {
    files.push_back(&r.findings);
    named.insert(r.named_hosts.begin(), r.named_hosts.end());
    by_prefix.insert(r.prefix_hosts.begin(), r.prefix_hosts.end());
  }
  adopt_only_named_host(files, named.empty() ? by_prefix : named, w.nodes);
}

}  // namespace

ScanResult merge_file_scans(std::vector<FileScan>& results, Collection& c, const Workload& w, size_t per_file,
                            bool record) {
  adopt_host_of_paste(results, w);
  ScanResult out;
  if (record)
    for (auto& r : results) out.extracts.push_back(std::move(r.extract));
  std::vector<SourceTally> tally(c.sources.size());
  // Findings move into one list, each file's freed as it goes: memory holds the findings once.
  size_t total = 0;
  for (const auto& r : results) total += r.findings.size();
  out.findings.reserve(total);
  for (size_t i = 0; i < results.size(); ++i) {
    const size_t s = c.files[i].source;
    SourceCoverage& cov = c.coverage[s];
    FileScan& r = results[i];
    cov.files += 1;
    // Bytes of logs read: a skipped file (binary, unreadable) is no data, as an empty directory is
    // not. Inline text: its collector counted what it received.
    if (!c.files[i].text && !r.failed) cov.bytes += r.bytes;
    if (!r.problem.empty()) cov.problems.push_back(r.problem);
    if (r.failed) ++tally[s].failed;
    out.year_inferred |= r.year_inferred;
    for (Evidence& e : r.unread) out.unread.push_back(std::move(e));
    if (!r.failed && r.bytes == 0) ++tally[s].empty;
    cov.lines_not_kept += r.not_kept;
    if (r.not_kept > 0)
      cov.problems.push_back(fmt::format("{}: limit reached: {} distinct findings kept, {} more matching lines not kept",
                                         c.files[i].path, per_file, r.not_kept));
    for (const auto& [host, o] : r.outside) tally[s].outside[host].add(o.count, o.nearest, o.nearest_time);
    for (auto& f : r.findings) {
      cov.records += f.count;  // lines, folded or not
      if (!f.time_inferred) {
        tally[s].inside.insert(f.host);
        out.earliest = std::min(out.earliest.value_or(f.first_seen), f.first_seen);
        out.latest = std::max(out.latest.value_or(f.first_seen), f.first_seen);
      }
      if (!f.host.empty()) tally[s].covered.insert(f.host);
      out.findings.push_back(std::move(f));
    }
    std::vector<Finding>().swap(r.findings);
  }
  for (size_t s = 0; s < c.sources.size(); ++s) settle_source(c.coverage[s], tally[s], w);
  // The last ones: the files collected last are as likely to hold where the job died as the first.
  if (out.unread.size() > kUnreadLines) out.unread.erase(out.unread.begin(), out.unread.end() - kUnreadLines);
  return out;
}

}  // namespace attribution

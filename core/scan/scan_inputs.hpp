#pragma once
// What the scan reads of its input before the scan proper: a sample for the prefilter, the bytes to
// come, and the year that year-less stamps belong to.
#include <cstdint>
#include <optional>
#include <string>

#include "core/base/model.hpp"
#include "core/scan/input.hpp"

namespace attribution {

// `take` bytes of a regular, uncompressed file from its start, or its end (from a line start);
// empty otherwise.
std::string file_part(const std::string& path, size_t take, bool tail = false);

// Up to 1 MiB from the starts of files spread over the input (32 KiB each), for the prefilter to
// choose windows of the literals that these logs rarely repeat.
std::string input_sample(const Collection& c);

// The bytes to scan, as far as a stat tells (a compressed file counts its stored size).
uint64_t input_bytes(const Collection& c);

// Where a job's year-less stamps go: near `anchor`, never before `floor` (the latest kernel or
// driver build date the logs print).
struct JobYear {
  std::optional<Micros> anchor, floor;
};

// The scheduler's window, else what the job's logs say of the year (read from each file's first
// and last lines: a torchrun summary sits at the end).
JobYear job_year(const Collection& c, const Workload& w);

}  // namespace attribution

#pragma once
// The in-window lines of one file, as an evidence bundle keeps them: the lines themselves, and
// where each run of consecutive lines stood in the original file, so a replay reports the same
// file:line and measures the same byte distances as the scan of the whole file did.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/time.hpp"

namespace attribution {

struct LineRun {
  size_t at = 0;            // where the run starts in `text`
  int64_t index = 0;        // how many kept lines precede it
  int64_t line = 1;         // its first line's number in the original file
  int64_t offset = 0;       // its first byte's offset in the original file
};

struct FileExtract {
  std::string text;            // the kept lines, each ending in '\n'
  std::vector<LineRun> runs;   // ascending
  int64_t bytes = 0;           // the original's size as stored (compressed size for .gz)
  std::string problem;         // as the scan of the original reported it
  bool failed = false;         // the original could not be read at all
  std::optional<Micros> mtime;

  // The original offset of a position in `text`, and the original number of the line starting
  // at it, given how many kept lines precede it.
  int64_t origin_offset(size_t pos) const;
  int64_t origin_line(size_t pos, int64_t index) const;
};

// Keeps the lines of `buf` that start at the given offsets (any order, duplicates allowed).
FileExtract make_extract(std::string_view buf, std::vector<size_t> line_starts);

}  // namespace attribution

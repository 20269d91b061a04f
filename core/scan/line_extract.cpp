#include "core/scan/line_extract.hpp"

#include <algorithm>

namespace attribution {
namespace {

const LineRun* run_at(const std::vector<LineRun>& runs, size_t pos) {
  auto it = std::upper_bound(runs.begin(), runs.end(), pos, [](size_t p, const LineRun& r) { return p < r.at; });
  return it == runs.begin() ? nullptr : &*(it - 1);
}

}  // namespace

int64_t FileExtract::origin_offset(size_t pos) const {
  const LineRun* r = run_at(runs, pos);
  return r ? r->offset + static_cast<int64_t>(pos - r->at) : static_cast<int64_t>(pos);
}

int64_t FileExtract::origin_line(size_t pos, int64_t index) const {
  const LineRun* r = run_at(runs, pos);
  return r ? r->line + (index - r->index) : index + 1;
}

FileExtract make_extract(std::string_view buf, std::vector<size_t> starts) {
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  FileExtract x;
  size_t pos = 0, want = 0;
  int64_t line = 1, kept = 0;
  bool in_run = false;
  // One walk over the lines: line numbers come from counting, not from a per-line index.
  while (pos < buf.size() && want < starts.size()) {
    size_t eol = buf.find('\n', pos);
    size_t next = eol == std::string_view::npos ? buf.size() : eol + 1;
    while (want < starts.size() && starts[want] < pos) ++want;  // not a line start: ignored
    if (want < starts.size() && starts[want] == pos) {
      if (!in_run) x.runs.push_back(LineRun{x.text.size(), kept, line, static_cast<int64_t>(pos)});
      x.text.append(buf.substr(pos, next - pos));
      if (eol == std::string_view::npos) x.text += '\n';
      ++kept;
      ++want;
      in_run = true;
    } else {
      in_run = false;
    }
    pos = next;
    ++line;
  }
  return x;
}

}  // namespace attribution

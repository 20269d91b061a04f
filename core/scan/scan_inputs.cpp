#include "core/scan/scan_inputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/scan/year_anchor.hpp"

namespace attribution {

std::string file_part(const std::string& path, size_t take, bool tail) {
  std::string part;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return part;
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    char magic[2] = {0, 0};
    bool gzip = pread(fd, magic, 2, 0) == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
                static_cast<unsigned char>(magic[1]) == 0x8b;  // gzip: its bytes are not the text
    size_t size = static_cast<size_t>(st.st_size);
    off_t from = tail && size > take ? static_cast<off_t>(size - take) : 0;
    if (!gzip && !(tail && from == 0)) {
      part.resize(take);
      ssize_t got = pread(fd, part.data(), take, from);
      part.resize(got > 0 ? static_cast<size_t>(got) : 0);
      if (from > 0) part.erase(0, std::min(part.size(), part.find('\n') + 1));
    }
  }
  ::close(fd);
  return part;
}

std::string input_sample(const Collection& c) {
  constexpr size_t kSampleBytes = 1 << 20, kPerFile = 32 << 10;
  std::string sample;
  // Files spread over the input, not its first few: a job's first files are often one node's or one
  // kind's (its kernel log, then its ranks' logs), and what is common elsewhere would look rare.
  constexpr size_t kFiles = kSampleBytes / kPerFile;
  const size_t step = std::max<size_t>(1, (c.files.size() + kFiles - 1) / kFiles);
  for (size_t i = 0; i < c.files.size(); i += step) {
    const InputFile& f = c.files[i];
    size_t take = std::min(kPerFile, kSampleBytes - sample.size());
    if (take == 0) break;
    if (f.text) sample.append(std::string_view(*f.text).substr(0, take));
    else if (f.extract) sample.append(std::string_view(f.extract->text).substr(0, take));
    else sample += file_part(f.path, take);
  }
  return sample;
}

uint64_t input_bytes(const Collection& c) {
  uint64_t total = 0;
  for (const InputFile& f : c.files) {
    std::error_code ec;
    if (f.text) total += f.text->size();
    else if (f.extract) total += f.extract->text.size();
    else if (auto n = std::filesystem::file_size(f.path, ec); !ec) total += n;
  }
  return total;
}

JobYear job_year(const Collection& c, const Workload& w) {
  if (w.start && w.end) return {*w.start + (*w.end - *w.start) / 2, std::nullopt};
  if (w.start) return {*w.start, std::nullopt};
  if (w.end) return {*w.end, std::nullopt};
  constexpr size_t kPartBytes = 64 << 10, kPartLines = 400, kEnough = 256;
  YearClues clues;
  for (const InputFile& f : c.files) {
    if (clues.stamps.size() >= kEnough) break;
    const TimeZone& zone = c.sources[f.source].zone;
    auto add = [&](std::string_view text) {
      add_year_clues(text.substr(0, kPartBytes), zone, kPartLines, clues);
      if (text.size() > kPartBytes) {
        std::string_view tail = text.substr(text.size() - kPartBytes);
        add_year_clues(tail.substr(std::min(tail.size(), tail.find('\n') + 1)), zone, kPartLines, clues);
      }
    };
    if (f.text) add(*f.text);
    else if (f.extract) add(f.extract->text);
    else {
      add_year_clues(file_part(f.path, kPartBytes), zone, kPartLines, clues);
      add_year_clues(file_part(f.path, kPartBytes, true), zone, kPartLines, clues);
    }
  }
  return {year_anchor_of(std::move(clues.stamps)), clues.floor};
}

}  // namespace attribution

#pragma once
// A log file's bytes: mapped when plain; inflated when gzip (.gz or gzip magic), in memory when small.
#include <memory>
#include <string>
#include <string_view>

#include "core/base/result.hpp"

namespace attribution {

// Inflated .gz text beyond this goes to an unlinked temporary file under $TMPDIR (else /tmp),
// mapped like a plain log: memory stays flat however large the .gz.
constexpr size_t kInflateInMemory = size_t(8) << 20;

// Plain files up to this size are read into the caller's ReadBuffer instead of mapped: one copy
// out of the page cache costs less than the page faults of a mapping and the TLB shootdowns of
// unmapping it while other threads scan.
constexpr size_t kReadIntoBuffer = size_t(8) << 20;

// A buffer reused from file to file by one scanning thread.
struct ReadBuffer {
  std::unique_ptr<char[]> data;
  size_t capacity = 0;
};

class FileBytes {
 public:
  // With `buffer`, a small plain file is read into it: the view is valid until the buffer's next use.
  static Result<FileBytes> open(const std::string& path, size_t inflate_in_memory = kInflateInMemory,
                                ReadBuffer* buffer = nullptr);
  FileBytes(FileBytes&& o) noexcept;
  FileBytes& operator=(FileBytes&&) = delete;
  FileBytes(const FileBytes&) = delete;
  ~FileBytes();
  std::string_view view() const { return view_; }
  int64_t stored_bytes() const { return stored_; }  // on disk (compressed size for .gz)
  bool gzip() const { return gzip_; }
  bool spilled() const { return gzip_ && map_; }  // inflated into a temporary file, not memory
  // Non-empty when only a prefix could be read (a truncated or corrupt .gz).
  const std::string& damage() const { return damage_; }
  // The scan is past [0, upto): a mapped file's pages there leave the process's resident set
  // (they stay in the page cache, and a later look back maps them in again), so memory does not
  // grow with a file's size.
  void release(size_t upto);

 private:
  FileBytes() = default;
  Status inflate(int fd, const std::string& path, size_t in_memory);
  Status read_into(int fd, const std::string& path, size_t size, ReadBuffer& buffer);
  void* map_ = nullptr;
  size_t map_len_ = 0;
  size_t released_ = 0;
  std::string inflated_;
  std::string_view view_;
  int64_t stored_ = 0;
  bool gzip_ = false;
  std::string damage_;
};

// True when the bytes look like a binary file rather than text (NUL bytes near the start).
bool looks_binary(std::string_view bytes);

}  // namespace attribution

#pragma once
// A log file's bytes in memory: mapped when plain, inflated when gzip (.gz or gzip magic).
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace attribution {

class FileBytes {
 public:
  static Result<FileBytes> open(const std::string& path);
  FileBytes(FileBytes&& o) noexcept;
  FileBytes& operator=(FileBytes&&) = delete;
  FileBytes(const FileBytes&) = delete;
  ~FileBytes();
  std::string_view view() const { return view_; }
  int64_t stored_bytes() const { return stored_; }  // on disk (compressed size for .gz)
  bool gzip() const { return gzip_; }
  // Non-empty when only a prefix could be read (a truncated or corrupt .gz).
  const std::string& damage() const { return damage_; }

 private:
  FileBytes() = default;
  void* map_ = nullptr;
  size_t map_len_ = 0;
  std::string inflated_;
  std::string_view view_;
  int64_t stored_ = 0;
  bool gzip_ = false;
  std::string damage_;
};

// True when the bytes look like a binary file rather than text (NUL bytes near the start).
bool looks_binary(std::string_view bytes);

}  // namespace attribution

#include "sources/line_buffer.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace attribution {
namespace {

constexpr size_t kMaxInflated = size_t(8) << 30;  // refuse gzip bombs beyond 8 GiB

Error io_error(const std::string& path, std::string what) {
  return make_error(ErrorKind::input, std::move(what), path, 0, {}, "check the path and its permissions");
}

}  // namespace

FileBytes::FileBytes(FileBytes&& o) noexcept
    : map_(o.map_), map_len_(o.map_len_), inflated_(std::move(o.inflated_)), stored_(o.stored_), gzip_(o.gzip_),
      damage_(std::move(o.damage_)) {
  view_ = gzip_ ? std::string_view(inflated_) : o.view_;
  o.map_ = nullptr;
  o.map_len_ = 0;
}

FileBytes::~FileBytes() {
  if (map_) munmap(map_, map_len_);
}

Result<FileBytes> FileBytes::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path, fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return io_error(path, "not a regular file");
  }
  FileBytes fb;
  fb.stored_ = st.st_size;
  unsigned char magic[2] = {0, 0};
  ssize_t got = st.st_size >= 2 ? pread(fd, magic, 2, 0) : 0;
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    fb.gzip_ = true;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
      ::close(fd);
      return io_error(path, "cannot open gzip stream");
    }
    gzbuffer(gz, 1 << 17);
    char buf[1 << 16];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0) {
      fb.inflated_.append(buf, static_cast<size_t>(n));
      if (fb.inflated_.size() > kMaxInflated) {
        gzclose(gz);
        return io_error(path, "gzip content larger than 8 GiB");
      }
    }
    int err = 0;
    const char* msg = gzerror(gz, &err);
    bool truncated = n < 0 || err != Z_OK;  // Z_BUF_ERROR: the stream ends early
    std::string reason = truncated ? std::string(msg ? msg : "corrupt gzip data") : "";
    gzclose(gz);
    // A truncated .gz still gives its readable prefix; the caller reports it as partial.
    if (truncated && fb.inflated_.empty()) return io_error(path, "corrupt gzip data: " + reason);
    if (truncated) fb.damage_ = fmt::format("read {} bytes, then: {}", fb.inflated_.size(), reason);
    fb.view_ = fb.inflated_;
    return fb;
  }
  if (st.st_size > 0) {
    void* m = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      ::close(fd);
      return io_error(path, fmt::format("cannot map: {}", std::strerror(errno)));
    }
    madvise(m, static_cast<size_t>(st.st_size), MADV_SEQUENTIAL);
    fb.map_ = m;
    fb.map_len_ = static_cast<size_t>(st.st_size);
    fb.view_ = std::string_view(static_cast<const char*>(m), fb.map_len_);
  }
  ::close(fd);
  return fb;
}

bool looks_binary(std::string_view bytes) {
  // Logs are text, sometimes with a few stray NULs (a file cut by a crash) or Latin-1 bytes:
  // call it binary only when a large share of the head is control bytes or invalid UTF-8.
  std::string_view head = bytes.substr(0, 8192);
  size_t odd = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    auto c = static_cast<unsigned char>(head[i]);
    if (c < 0x80) {
      odd += (c < 0x09 || (c > 0x0d && c < 0x20 && c != 0x1b) || c == 0x7f);
      continue;
    }
    size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool valid = n > 0 && i + n <= head.size();
    for (size_t k = 1; valid && k < n; ++k) valid = (static_cast<unsigned char>(head[i + k]) & 0xC0) == 0x80;
    if (valid) i += n - 1;
    else ++odd;
  }
  return !head.empty() && odd * 100 >= head.size() * 30;
}

}  // namespace attribution

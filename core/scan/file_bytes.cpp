#include "core/scan/file_bytes.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
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

// An unlinked temporary file for inflated text, under $TMPDIR or /tmp; -1 when none can be made.
int spill_file() {
  const char* dir = std::getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  int fd = ::open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = std::string(dir) + "/attribution-gz-XXXXXX";
  fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) unlink(name.c_str());
  return fd;
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

FileBytes::FileBytes(FileBytes&& o) noexcept
    : map_(o.map_), map_len_(o.map_len_), released_(o.released_), inflated_(std::move(o.inflated_)), stored_(o.stored_), gzip_(o.gzip_),
      damage_(std::move(o.damage_)) {
  view_ = gzip_ && !map_ ? std::string_view(inflated_) : o.view_;  // a .gz inflated in memory views its own string
  o.map_ = nullptr;
  o.map_len_ = 0;
}

FileBytes::~FileBytes() {
  if (map_) munmap(map_, map_len_);
}

void FileBytes::release(size_t upto) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (!map_) return;
  upto = std::min(upto, map_len_) / page * page;
  if (upto <= released_) return;
  // Read-only private pages that were never written: dropping them loses nothing.
  madvise(static_cast<char*>(map_) + released_, upto - released_, MADV_DONTNEED);
  released_ = upto;
}

// Inflates the gzip stream on `fd` (which it closes), 64 KiB at a time: into memory up to
// `in_memory` bytes, past that into a temporary file that is then mapped.
Status FileBytes::inflate(int fd, const std::string& path, size_t in_memory) {
  gzip_ = true;
  gzFile gz = gzdopen(fd, "rb");
  if (!gz) {
    ::close(fd);
    return io_error(path, "cannot open gzip stream");
  }
  gzbuffer(gz, 1 << 17);
  char buf[1 << 16];
  int n;
  size_t total = 0;
  int spill = -1;  // the temporary file, once the text outgrows memory
  auto fail = [&](std::string what, std::string hint) {
    gzclose(gz);
    if (spill >= 0) ::close(spill);
    return make_error(ErrorKind::input, std::move(what), path, 0, {}, std::move(hint));
  };
  auto spill_failed = [&] {
    return fail(fmt::format("cannot write its inflated text to a temporary file: {}", std::strerror(errno)),
                "set TMPDIR to a directory with room for the decompressed log");
  };
  while ((n = gzread(gz, buf, sizeof buf)) > 0) {
    total += static_cast<size_t>(n);
    if (total > kMaxInflated) return fail("gzip content larger than 8 GiB", "decompress it by hand if it is a real log");
    if (spill < 0 && inflated_.size() + static_cast<size_t>(n) > in_memory) {
      spill = spill_file();
      if (spill < 0 || !write_all(spill, inflated_.data(), inflated_.size())) return spill_failed();
      std::string().swap(inflated_);
    }
    if (spill < 0) inflated_.append(buf, static_cast<size_t>(n));
    else if (!write_all(spill, buf, static_cast<size_t>(n))) return spill_failed();
  }
  int err = 0;
  const char* msg = gzerror(gz, &err);
  bool truncated = n < 0 || err != Z_OK;  // Z_BUF_ERROR: the stream ends early
  std::string reason = truncated ? std::string(msg ? msg : "corrupt gzip data") : "";
  gzclose(gz);
  // A truncated .gz still gives its readable prefix; the caller reports it as partial.
  if (truncated && total == 0) {
    if (spill >= 0) ::close(spill);
    return io_error(path, "corrupt gzip data: " + reason);
  }
  if (truncated) damage_ = fmt::format("read {} bytes, then: {}", total, reason);
  if (spill < 0) {
    view_ = inflated_;
    return Ok{};
  }
  void* m = mmap(nullptr, total, PROT_READ, MAP_PRIVATE, spill, 0);
  ::close(spill);
  if (m == MAP_FAILED) return io_error(path, fmt::format("cannot map its inflated text: {}", std::strerror(errno)));
  map_ = m;
  map_len_ = total;
  view_ = std::string_view(static_cast<const char*>(m), total);
  return Ok{};
}

Status FileBytes::read_into(int fd, const std::string& path, size_t size, ReadBuffer& buffer) {
  if (buffer.capacity < size) {
    buffer.data.reset(new char[size]);
    buffer.capacity = size;
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, buffer.data.get() + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error(path, fmt::format("cannot read: {}", std::strerror(errno)));
    if (n == 0) break;  // the file shrank while being read: keep what is there
    done += static_cast<size_t>(n);
  }
  view_ = std::string_view(buffer.data.get(), done);
  return Ok{};
}

Result<FileBytes> FileBytes::open(const std::string& path, size_t inflate_in_memory, ReadBuffer* buffer) {
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
    if (auto inflated = fb.inflate(fd, path, inflate_in_memory); !inflated) return inflated.error();
    return fb;
  }
  if (buffer && st.st_size > 0 && static_cast<size_t>(st.st_size) <= kReadIntoBuffer) {
    auto read = fb.read_into(fd, path, static_cast<size_t>(st.st_size), *buffer);
    ::close(fd);
    if (!read) return read.error();
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

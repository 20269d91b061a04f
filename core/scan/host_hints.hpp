#pragma once
// Where a pasted or collected log names its machine outside a line's own prefix: a shell prompt
// before pasted command output, a `kubectl describe` block's "Node:", the kernel's own record of
// its hostname (a file's name: file_name_host.hpp).
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace attribution {

// The machine a line opens a section for: "user@host:~/dir$ cmd", "[user@host dir]# cmd",
// "host:~ # cmd", "ssh host", a pod's "Node:  host/10.0.0.3". The lines after it, up to the next
// such line, are that machine's output. Empty (a section on no known machine) for a prompt's plain
// "srun cmd": its output comes from the allocation's nodes, not the login node the prompt names.
std::optional<std::string_view> section_host(std::string_view line);

// The machine a kernel log says it is: "systemd[1]: Set hostname to <host>.", "HOSTNAME=host" on
// the kernel command line, hostnamectl's "Static hostname: host", a GitHub Actions job log's header
// "Machine name: 'host'" (or, after it in rank, a self-hosted runner's "Runner name: 'host'"; a hosted
// runner's name has spaces, "GitHub Actions 2", and names no machine), `kubectl describe node`'s
// "Hostname:", smartd's warning mail's "host name:".
std::optional<std::string_view> declared_host(std::string_view line);

// For the lines of one file read in order: the section host above each line, and the host the
// file declares. Positions are line starts in `buf`; `where` gets the naming line's start.
class FileHosts {
 public:
  explicit FileHosts(std::string_view buf) : buf_(buf) {}
  std::string_view section_at(size_t line_start, size_t* where);
  std::string_view declared(size_t* where);
  // Every machine the file names, by a section line or its declared host, with the naming lines'
  // starts in `where`. Call it after the section_at queries (it walks the file afresh).
  std::set<std::string_view> named(std::vector<size_t>* where);

 private:
  // The start of the first occurrence at or after `from`, before `limit`, of a byte sequence every
  // section line holds; npos when there is none.
  size_t next_section_key(size_t from, size_t limit);
  // Calls visit(host, line start) for each section line starting in [from, limit), in order.
  template <class Visit>
  void each_section_line(size_t from, size_t limit, Visit visit);

  static constexpr size_t kUnsearched = std::string_view::npos - 1;
  std::string_view buf_;
  size_t next_key_[2] = {kUnsearched, kUnsearched};  // '@', and the other keys
  size_t scanned_ = 0;       // lines before this were looked at for sections
  bool started_ = false;
  std::string_view section_;
  size_t section_pos_ = 0;
  bool declared_searched_ = false;
  std::string_view declared_;
  size_t declared_pos_ = 0;
};

}  // namespace attribution

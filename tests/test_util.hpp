#pragma once
// Helpers shared by the unit tests: scratch directories and files.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "core/base/time.hpp"

namespace attribution::test {

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("attribution-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }
  std::string file(const std::string& rel, const std::string& content) const {
    auto p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// A static job (id 77 on node01, 2025-03-21 10:00-10:10 UTC) whose kernel log holds one Xid 79, and
// its config: a `kernel` files source, then `more_sources` ([[source]] tables). Returns the config path.
inline std::string xid79_static_job(const TempDir& d, const std::string& more_sources) {
  d.file("logs/node01/kern.log",
         "2025-03-21T10:05:00+00:00 node01 kernel: NVRM: Xid (PCI:0000:b9:00): 79, pid=1, name=python, GPU has "
         "fallen off the bus.\n");
  d.file("workload.toml", "id = \"77\"\nnodes = [\"node01\"]\nstart = \"2025-03-21T10:00:00Z\"\n"
                          "end = \"2025-03-21T10:10:00Z\"\nstate = \"FAILED\"\n");
  return d.file("attribution.toml", R"(
[workload]
scheduler = "static"
static = "workload.toml"
[[source]]
name = "kernel"
kind = "files"
paths = ["logs/{host}/kern.log"]
stream = "syslog"
)" + more_sources);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A recorded answer or input under tests/fixtures/, e.g. fixture("slurm/sacct-j-json.json").
inline std::string fixture(const std::string& rel) {
  return read_file(std::string(ATTRIBUTION_SOURCE_DIR) + "/tests/fixtures/" + rel);
}

// A UTC time written as text ("2025-03-14T09:00:00Z"), for expectations.
inline Micros utc(const char* s) { return *parse_time_value(s, TimeZone::utc()); }

}  // namespace attribution::test

#pragma once
// SHA-256, for the ruleset and inputs digests in the report.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace attribution {

class Sha256 {
 public:
  Sha256();
  Sha256& update(std::string_view data);
  std::string hex();  // finishes; the object is then spent

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  uint8_t buf_[64];
  size_t used_ = 0;
  uint64_t total_ = 0;
};

inline std::string sha256_hex(std::string_view data) { return Sha256().update(data).hex(); }

}  // namespace attribution

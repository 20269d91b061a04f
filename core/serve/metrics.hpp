#pragma once
// GET /metrics: what the server has done since it started (requests by route and status, their
// latency, diagnoses by family) and what the store holds, as Prometheus text.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "core/store/store.hpp"

namespace attribution {

class ServeMetrics {
 public:
  void request(const std::string& route, int status, double seconds);
  void diagnosis(const std::string& family, double seconds);
  std::string render(const StoreStats& store) const;

 private:
  struct Latency {
    int64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, int64_t> requests_;
  std::map<std::string, Latency> latency_;
  std::map<std::string, int64_t> diagnoses_;
  Latency diagnosis_seconds_;
};

}  // namespace attribution

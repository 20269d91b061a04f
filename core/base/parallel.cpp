#include "core/base/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace attribution {

void parallel_for(size_t items, size_t threads, const std::function<void(size_t item, size_t worker)>& each) {
  std::atomic<size_t> next{0};
  auto work = [&](size_t worker) {
    for (size_t i; (i = next.fetch_add(1)) < items;) each(i, worker);
  };
  const size_t n = std::max<size_t>(1, std::min(threads, items));
  std::vector<std::thread> pool;
  for (size_t w = 1; w < n; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
}

}  // namespace attribution

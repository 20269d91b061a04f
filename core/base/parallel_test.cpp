#include "core/base/parallel.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace attribution;

TEST_CASE("parallel_for runs every item once, on at most the threads asked for") {
  for (size_t threads : {size_t{0}, size_t{1}, size_t{3}, size_t{16}}) {
    std::vector<std::atomic<int>> calls(10);
    std::mutex mu;
    std::set<size_t> workers;
    std::set<std::thread::id> ids;
    parallel_for(calls.size(), threads, [&](size_t item, size_t worker) {
      ++calls[item];
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard lock(mu);
      workers.insert(worker);
      ids.insert(std::this_thread::get_id());
    });
    for (auto& c : calls) CHECK(c == 1);
    const size_t most = std::max<size_t>(1, std::min(threads, calls.size()));
    CHECK(workers.size() <= most);
    CHECK(*workers.rbegin() < most);
    CHECK(ids.size() == workers.size());  // a worker index is one thread
  }
  int none = 0;
  parallel_for(0, 4, [&](size_t, size_t) { ++none; });
  CHECK(none == 0);
}

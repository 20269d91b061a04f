#pragma once
// Items run on a few threads: the one pool the scan (files), the rule loader (ruleset files) and
// the HTTP sources (requests) share.
#include <cstddef>
#include <functional>

namespace attribution {

// Calls each(item, worker) once for every item in [0, items), on min(threads, items) threads
// (the caller's among them; at least one). Items are taken in order from a shared counter, so a
// slow one never holds up the rest; `worker` (0 .. threads-1) names the thread, for state kept per
// thread. Returns when every call has returned.
void parallel_for(size_t items, size_t threads, const std::function<void(size_t item, size_t worker)>& each);

}  // namespace attribution

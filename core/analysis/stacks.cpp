#include "core/analysis/stacks.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

#include "core/base/text.hpp"

namespace attribution {
namespace {

bool has_any(std::string_view s, std::initializer_list<std::string_view> words) {
  for (auto w : words)
    if (s.find(w) != std::string_view::npos) return true;
  return false;
}

// One frame in the py-spy spelling, whichever format it came in.
std::string frame_of(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  line = trim_right(line);
  // gdb: #N  0x... in function (args) at file:line  |  #N  function (args) from library
  if (!line.empty() && line.front() == '#') {
    size_t sp = line.find(' ');
    std::string_view rest = sp == std::string_view::npos ? std::string_view() : line.substr(sp);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.rfind("0x", 0) == 0)
      if (size_t in = rest.find(" in "); in != std::string_view::npos) rest = rest.substr(in + 4);
    size_t paren = rest.find(" (");
    std::string_view fn = rest.substr(0, paren);
    size_t at = rest.rfind(" at ");
    size_t from = rest.rfind(" from ");
    std::string_view where = at != std::string_view::npos ? rest.substr(at + 4)
                             : from != std::string_view::npos ? rest.substr(from + 6)
                                                              : std::string_view("?");
    return fmt::format("{} ({})", fn, where);
  }
  // faulthandler: File "path", line N in function
  if (line.rfind("File \"", 0) == 0) {
    size_t q = line.find('"', 6);
    size_t at = line.find(", line ", q == std::string_view::npos ? 0 : q);
    size_t in = line.find(" in ", at == std::string_view::npos ? 0 : at);
    if (q != std::string_view::npos && at != std::string_view::npos && in != std::string_view::npos)
      return fmt::format("{} ({}:{})", line.substr(in + 4), line.substr(6, q - 6), line.substr(at + 7, in - at - 7));
  }
  return std::string(line);
}

// Frames that are a collective, a barrier, or a wait on the GPU (where NCCL work completes).
bool collective_frame(std::string_view f) {
  return has_any(f, {"torch/distributed/", "distributed_c10d", "c10d", "nccl", "NCCL", "all_reduce", "allreduce",
                     "all_gather", "allgather", "reduce_scatter", "broadcast", "barrier", "all_to_all", "alltoall",
                     "synchronize", "Synchronize", "deepspeed/comm", "_wait_for_tensors"});
}

std::string activity_of(const std::vector<std::string>& frames) {
  auto any = [&](std::initializer_list<std::string_view> words) {
    for (const auto& f : frames)
      if (has_any(f, words)) return true;
    return false;
  };
  if (any({"torch/serialization.py", "save_checkpoint", "load_checkpoint", "checkpoint"}))
    return "checkpoint saving or loading";
  if (any({"torch/utils/data", "dataloader", "DataLoader", "queue.py", "multiprocessing/"})) return "data loading";
  if (any({"tokeniz"})) return "tokenisation";
  if (any({"shutil.py", "/io.py", "_pyio", "h5py", "npyio", "pickle", "os.py", "(read ", "(write ", "(open ", "readinto",
           "fsync", "libc_read", "libc_pread", "libc_write", "libc_pwrite", "libc_open", "_Py_read", "_Py_write"}))
    return "file I/O";
  if (any({"threading.py", "_thread", "acquire", "lock", "futex", "pthread_cond", "sem_wait"})) return "a lock or a wait";
  return "its own code";
}

bool on_network_fs(const std::vector<std::string>& frames) {
  for (const auto& f : frames)
    if (has_any(f, {"(/lustre", "(/gpfs", "(/nfs", "(/fsx", "(/weka", "(/beegfs", "(/mnt/nfs", "(/mnt/lustre",
                    "(/p/gpfs", "(/cephfs"}))
      return true;
  return false;
}

struct Process {
  std::string who, host;
  int rank = -1;
  StackReading reading;
  size_t finding = 0;
};


}  // namespace

StackReading read_stack(const std::string& stack) {
  std::vector<std::string> frames;
  for (size_t a = 0; a < stack.size();) {
    size_t b = stack.find('\n', a);
    if (b == std::string::npos) b = stack.size();
    std::string f = frame_of(std::string_view(stack).substr(a, b - a));
    if (!f.empty()) frames.push_back(std::move(f));
    a = b + 1;
  }
  StackReading r;
  if (frames.empty()) return r;
  r.innermost = frames.front();
  for (const auto& f : frames) r.in_collective = r.in_collective || collective_frame(f);
  if (!r.in_collective) {
    r.activity = activity_of(frames);
    r.network_fs = on_network_fs(frames) && r.activity != "its own code" && r.activity != "a lock or a wait";
  }
  return r;
}

std::optional<Localisation> stack_outlier(const Timeline& t, const RuleSet& rules) {
  // One reading per process: a later dump (timeline order) replaces an earlier one. A burst of dumps
  // folded into one finding reads as its first.
  std::map<std::string, Process> by_who;
  for (size_t i = 0; i < t.findings.size(); ++i) {
    const Finding& f = t.findings[i];
    auto it = f.fields.find("stack");
    if (it == f.fields.end() || rules.rules[f.rule].role != Role::context) continue;
    Process p{process_name(f.rank, f.pid, f.host), f.host, f.rank, read_stack(it->second), i};
    by_who[p.who] = std::move(p);
  }
  std::vector<const Process*> inside, outside;
  for (const auto& [who, p] : by_who) (p.reading.in_collective ? inside : outside).push_back(&p);
  if (outside.empty() || inside.empty() || outside.size() > inside.size()) return std::nullopt;
  const Process& first = *outside.front();
  bool storage = first.reading.network_fs;
  Localisation l = storage ? localisation("stack-outside-collective", "rank_stuck_in_storage", "storage", Blame::unknown)
                           : localisation("stack-outside-collective", "rank_stuck_outside_collective", "application",
                                          Blame::application);
  l.rank = first.rank;
  std::vector<std::string> names;
  for (const Process* p : outside) {
    names.push_back(p->who);
    if (l.findings.size() < 6) l.findings.push_back(p->finding);
  }
  if (outside.size() == 1 || std::all_of(outside.begin(), outside.end(), [&](const Process* p) { return p->host == first.host; }))
    l.host = first.host;
  l.findings.push_back(inside.front()->finding);
  // A dump has no time of its own: the first timeout of a waiting rank dates the hang, when there is one.
  for (size_t i = 0; i < t.findings.size(); ++i)
    if (rules.rules[t.findings[i].rule].signal == Signal::timeout && t.findings[i].first_seen != kTimeUnknown) {
      l.findings.push_back(i);
      break;
    }
  std::string who = capitalised(fmt::format("{}", fmt::join(names, ", ")));
  l.title = fmt::format("{}'s main thread is in {} ({}) while the other {} process(es) wait in collectives", who,
                        first.reading.activity, first.reading.innermost, inside.size());
  l.detail = storage ? "its stack runs through file I/O on a network or parallel file system: a slow or hung file "
                       "system holds this rank, and every other rank waits for it"
                     : "its stack is outside any collective: the others cannot finish theirs until it joins";
  l.action = storage ? fmt::format("Check the file system {} reads or writes (its server and client logs, a hung "
                                   "mount, quota) and how much each rank writes at once; the GPUs and network are "
                                   "not at fault on this evidence.",
                                   first.who)
                     : fmt::format("Look at {} at {}: why it is in {} while the others wait (a slow data source, a "
                                   "rank-only branch such as evaluation or logging, a deadlock); do not drain its "
                                   "node on this evidence.",
                                   first.who, first.reading.innermost, first.reading.activity);
  return l;
}

}  // namespace attribution

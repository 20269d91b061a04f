#include "core/scan/file_name_host.hpp"
#include "core/scan/host_word.hpp"
#include "core/scan/written_time.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <re2/re2.h>
#include <vector>

namespace attribution {
namespace {

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Kinds of log that are one machine's own: a word beside one of them is that machine ("porter-dmesg").
bool machine_kind_word(std::string_view w) {
  static const std::set<std::string, std::less<>> words = {
      "dmesg", "syslog", "kern", "kernel", "messages", "journal", "journalctl", "nvidia", "smi", "bug", "report",
      "console", "ssh", "sosreport", "lspci", "ibstat", "dcgm", "diag", "fabricmanager", "xid", "xids", "crash"};
  return words.count(w) > 0;
}

// Any kind of log, a program's output too ("overlap.out", "gemini_logs"): peeled off a name.
bool kind_word(std::string_view w) {
  static const std::set<std::string, std::less<>> words = {"log", "logs", "out", "err", "stdout", "stderr", "output",
                                                           "pasted", "excerpt", "grep", "errors", "error"};
  return machine_kind_word(w) || words.count(w) > 0;
}

// Words that name what a log is about, never a machine.
bool common_word(std::string_view w) {
  static const std::set<std::string, std::less<>> words = {
      "train", "training", "trainer", "finetune", "pretrain", "eval", "evaluation", "inference", "infer", "serve",
      "server", "worker", "workers", "master", "main", "driver", "launcher", "launch", "run", "runs", "job", "jobs",
      "task", "debug", "trace", "traces", "info", "warn", "nccl", "torch", "pytorch", "deepspeed", "megatron", "vllm",
      "ray", "slurm", "sbatch", "srun", "mpirun", "torchrun", "kubectl", "pod", "pods", "describe", "events", "event",
      "paste", "snippet", "full", "head", "tail", "hang", "stack", "traceback", "backtrace", "dump", "core", "repro",
      "test", "tests", "example", "sample", "node", "nodes", "host", "hosts", "gpu", "gpus", "cpu", "mem", "memory",
      "oom", "net", "network", "ib", "rdma", "storage", "disk", "config", "env", "setup", "install", "build",
      "health", "status", "result", "results", "summary", "notes", "query", "init", "rank", "ranks", "local",
      "remote", "ps", "top", "ping", "nslookup", "screenshot", "file", "tmp", "copy", "new", "old", "final", "part",
      "first", "second", "third", "before", "after", "fm", "plugin", "operator", "model", "step", "epoch",
      // What happened while the log was taken ("console-attach.log", "dmesg-boot.txt", "kern-crash.log"):
      // beside a machine's log kind they read like a host without digits ("dmesg-karm.txt").
      "attach", "detach", "boot", "reboot", "startup", "start", "shutdown", "restart", "crashed",
      "failure", "failed", "fail", "panic", "hung", "reset", "recovery", "upgrade", "update", "mount", "load",
      "unload", "probe", "good", "bad", "working", "broken", "fixed", "ok"};
  return words.count(w) > 0 || kind_word(w);
}

// Container tools a file is often named after, with the verb that printed it ("kubectl-logs-...").
bool command_word(std::string_view w) {
  return w == "kubectl" || w == "oc" || w == "crictl" || w == "docker" || w == "podman";
}

bool command_verb(std::string_view w) {
  return w == "logs" || w == "log" || w == "describe" || w == "get" || w == "events" || w == "inspect";
}

bool numeric(std::string_view w) { return !w.empty() && std::all_of(w.begin(), w.end(), is_digit); }

bool has_digit(std::string_view w) { return std::any_of(w.begin(), w.end(), is_digit); }

template <class It>
bool any_digit(It from, It to) {
  return std::any_of(from, to, [](const std::string& x) { return has_digit(x); });
}

std::string dash_joined(const std::vector<std::string>& w) {
  std::string out;
  for (const auto& x : w) out += (out.empty() ? "" : "-") + x;
  return out;
}

// Words that, with a number, name a machine: "node12", "worker-3", "gpu-node-5".
bool machine_word(std::string_view w) {
  return w == "node" || w == "host" || w == "compute" || w == "gpu" || w == "server" || w == "worker";
}

// A word of what a log is about with a number glued on counts that word ("debug_output2", "trainer1",
// "test3"); a machine's word with one ("node12", "worker3") stays a machine.
bool counted_common_word(std::string_view w) {
  const size_t head = w.find_last_not_of("0123456789");
  if (head == std::string_view::npos || head + 1 == w.size()) return false;
  const std::string_view word = w.substr(0, head + 1);
  return common_word(word) && !machine_word(word);
}

// Counters, versions, model sizes and network interfaces in file names: "rank3", "v2", "llama3", "70b",
// "gpu3", "ib0"; a counter also with a separator before its number ("attempt-1", "step_100").
bool counter_word(std::string_view w) {
  static const RE2 re(R"((?:v|part|run|try|attempt|step|epoch|iter|job|slurm|rank|trial|log|out|pasted|excerpt|copy|ib|eth|bond|hsn|mlx|cuda|python|py|llama|gpt|qwen|mistral|mixtral|gemma|deepseek|bloom|falcon|phi|glm|chatglm|internlm|olmo|pythia|whisper|yolov|t|bert|resnet|vit)\d+[a-z]?|(?:part|run|try|attempt|step|epoch|iter|rank|trial|copy)[-_]\d+|\d+[bmk])");
  return numeric(w) || gpu_index_word(w) || counted_common_word(w) || RE2::FullMatch(re2::StringPiece(w.data(), w.size()), re);
}

// The non-empty parts of `s` between any of `seps`. With `versions`, a '.' between two digits joins a
// version ("llama-3.1-8b", "cuda-12.1") instead of splitting it into a fake machine ("llama-3").
std::vector<std::string> split(const std::string& s, const char* seps, bool versions = false) {
  auto version_dot = [&](size_t i) {
    return versions && s[i] == '.' && i > 0 && i + 1 < s.size() && is_digit(s[i - 1]) && is_digit(s[i + 1]);
  };
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || (std::strchr(seps, s[i]) && !version_dot(i))) {
      if (i > b) out.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  return out;
}

// One '_' or '.' separated part of a file name: the machine it names once log kinds (and the
// counters beside them) are peeled off its ends, or empty. `peeled` says a machine's own log kind
// (dmesg, syslog, ...) was removed: a name beside it is a machine even without a digit.
std::string machine_in_part(const std::string& part, bool& peeled) {
  if (counter_word(part)) return "";  // "attempt-1", "step_100": a count, before its words are split
  std::vector<std::string> w = split(part, "-");
  // A file named after the command that printed it ("kubectl-logs-imagenet-worker-0", "kubectl-describe-pod-
  // trainer-3"): a container tool, its verb and one resource word are no part of the name after them. Only
  // with a verb: "docker-host-3" may be a machine's own name.
  if (w.size() >= 3 && command_word(w[0]) && command_verb(w[1])) {
    const bool resource = w.size() >= 4 && (w[2] == "pod" || w[2] == "pods" || w[2] == "node" || w[2] == "nodes");
    w.erase(w.begin(), w.begin() + (resource ? 3 : 2));
    // What the command named is a pod or node, whatever its words ("trainer-3"); a lone word is what
    // was listed ("kubectl-get-pods"), not a name.
    if (w.size() >= 2 && any_digit(w.begin(), w.end())) return dash_joined(w);
  }
  bool machine_kind_here = false;
  auto peel = [&](bool front) {
    // Counters next to a kind word go with it ("dmesg-2"); alone they belong to the name ("iam06-1").
    size_t n = 0;
    while (n < w.size() && numeric(front ? w[n] : w[w.size() - 1 - n])) ++n;
    if (n < w.size() && kind_word(front ? w[n] : w[w.size() - 1 - n])) {
      machine_kind_here = machine_kind_here || machine_kind_word(front ? w[n] : w[w.size() - 1 - n]);
      if (front) w.erase(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(n + 1));
      else w.resize(w.size() - n - 1);
      return true;
    }
    return false;
  };
  while (!w.empty() && (peel(true) || peel(false))) {
  }
  // Beside a machine's log kind, words after the name say what was happening ("dmesg-kovacs-driver-install":
  // the machine kovacs while its driver was installed), not a longer name.
  while (machine_kind_here && w.size() > 1 && common_word(w.back()) && !machine_word(w.back())) w.pop_back();
  // Slurm's output names with the job's number beside the node's (%N-%j, slurm-%j-%N): "gpu-node-3-12345",
  // "slurm-12345-gpu-node-3". A job's number has five digits or more; the name left must carry its own
  // digit ("node-12345" stays a machine).
  auto job_number = [](const std::string& x) { return x.size() >= 5 && numeric(x); };
  if (w.size() >= 3 && w[0] == "slurm" && job_number(w[1]) && any_digit(w.begin() + 2, w.end())) w.erase(w.begin(), w.begin() + 2);
  if (w.size() >= 3 && job_number(w.back()) && any_digit(w.begin(), w.end() - 1)) w.pop_back();
  // "node-21", "host-3", "compute-0-12", "gpu-node-5": machine words and numbers after them name a machine
  // (not "gpu-3", a GPU's index, unless a machine's own log kind is beside it: "kern-gpu-7").
  size_t words = 0;
  while (words < w.size() && machine_word(w[words])) ++words;
  const std::string joined = dash_joined(w);
  bool machine_numbered = words >= 1 && words < w.size() && std::all_of(w.begin() + words, w.end(), numeric) &&
                          (!gpu_index_word(joined) || machine_kind_here);
  bool all_common = std::all_of(w.begin(), w.end(), [](const std::string& x) { return common_word(x) || counter_word(x); });
  // A part that was only a machine's log kind ("dmesg_porter") says the rest of the name is a machine; one
  // whose other words name a program or a run ("kernel-crash1-gpu_burn") says so of nothing.
  if (w.empty()) {
    peeled = peeled || machine_kind_here;
    return "";
  }
  if (all_common && !machine_numbered) return "";
  peeled = peeled || machine_kind_here;
  return joined;
}

// An IPv4 address or a fully qualified name among the '_'/' ' separated parts of a file name, if
// exactly one part is one: the address, or the name's first label.
std::string address_in_name(const std::string& lower) {
  static const std::set<std::string, std::less<>> kSuffixes = {"internal", "local", "localdomain", "lan", "com",
                                                                "net", "org", "edu", "gov", "cluster", "io", "ai"};
  std::vector<std::string> found;
  for (std::string part : split(lower, "_ ")) {
    // "dmesg-10.0.3.17": a log kind before an address.
    if (size_t dash = part.rfind('-'); dash != std::string::npos && kind_word(part.substr(0, dash)) && dash + 1 < part.size() &&
                                       is_digit(part[dash + 1]))
      part = part.substr(dash + 1);
    std::vector<std::string> labels = split(part, ".");
    if (labels.size() < 3 || labels.size() != static_cast<size_t>(std::count(part.begin(), part.end(), '.')) + 1) continue;
    bool ipv4 = labels.size() == 4 && std::all_of(labels.begin(), labels.end(), [](const std::string& x) {
                  return numeric(x) && x.size() <= 3 && std::stoi(x) <= 255;
                });
    if (ipv4) found.push_back(part);
    else if (kSuffixes.count(labels.back()) && lower_host(labels.front()) && !common_word(labels.front()) &&
             !numeric(labels.front()))
      found.push_back(labels.front());
  }
  return found.size() == 1 ? found.front() : "";
}

}  // namespace

bool directory_names_machine(std::string_view dir) {
  const std::string lower = lowered(dir);
  // A host-like name must also pass could_name_machine, which turns away the counters a prefix would
  // carry ("attempt_0", "rank3"); a plain word the tree's author chose ("batch") is kept.
  return !numeric(lower) && !counter_word(lower) && !common_word(lower) && (!host_like(lower) || could_name_machine(lower));
}

std::string host_from_file_name(const std::string& path, const std::set<std::string>& nodes) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const char* ext : {".gz", ".txt", ".log", ".out", ".err", ".json"})
    if (name.size() > std::strlen(ext) && name.compare(name.size() - std::strlen(ext), std::strlen(ext), ext) == 0)
      name.resize(name.size() - std::strlen(ext));
  const std::string lower = lowered(name);
  if (!nodes.empty()) {
    // A node as a separate token: "dmesg-node12", "node12_2025-03-14", "node12".
    for (const auto& n : nodes) {
      const std::string ln = lowered(n);  // the node list may spell it in upper case, as its machines do
      for (size_t at = lower.find(ln); at != std::string::npos; at = lower.find(ln, at + 1)) {
        bool left = at == 0 || !ascii_alnum(lower[at - 1]);
        size_t end = at + ln.size();
        bool right = end == lower.size() || !ascii_alnum(lower[end]);
        if (left && right) return n;
      }
    }
    return "";
  }
  // Without a node list, an address or a domain name is a machine whole: "10.0.0.5",
  // "dmesg_ip-10-0-0-5.ec2.internal" (its first label).
  // Names are matched in lower case and returned as the file spells them, as the machine's own
  // lines do ("dmesg-HGX-H100-15.txt" and NCCL's "HGX-H100-15:" are one machine).
  auto as_spelled = [&](const std::string& h) {
    size_t at = lower.find(h);
    return at == std::string::npos ? h : name.substr(at, h.size());
  };
  if (std::string a = address_in_name(lower); !a.empty()) return as_spelled(a);
  // Else the parts between '_' and '.', each with log kinds peeled off; a date or a counter part says
  // nothing. One candidate left, with a digit or beside a log kind, is the host.
  std::vector<std::string> kept;
  bool peeled = false;
  for (const std::string& part : split(lower, "_. ", true)) {
    if (names_program(part)) continue;  // "nvidia-driver-ctr.log": the operator's container, not a machine
    std::string m = machine_in_part(part, peeled);
    if (!m.empty()) kept.push_back(m);
  }
  if (kept.size() != 1) return "";  // none, or several candidates: no guess
  const std::string& h = kept.front();
  const bool digit = has_digit(h);
  const bool has_alpha = std::any_of(h.begin(), h.end(), [](char c) { return ascii_alnum(c) && !is_digit(c); });
  // Two letters and no digit is a library's or a tool's prefix ("fi_log_debug": libfabric's FI_LOG),
  // not a machine.
  if (!has_alpha || h.size() < (digit ? 2 : 3) || !lower_host(h) || !(digit || peeled)) return "";
  // A machine's name with digits ends in them (node12, gpu-a-07, nid001234); "e3sm.log" or
  // "t5xxl.log" names a program or a model, unless a machine's log kind beside it says the rest is a
  // machine ("dmesg-e3sm.txt").
  if (!peeled && digit && !is_digit(h.back())) return "";
  if (h.find('.') != std::string::npos) return "";  // a version kept whole ("cuda-12.1"), not a machine
  return as_spelled(h);
}

}  // namespace attribution

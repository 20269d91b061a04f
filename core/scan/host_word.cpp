#include "core/scan/host_word.hpp"

#include <algorithm>
#include <cctype>

#include "core/scan/written_time.hpp"

namespace attribution {
namespace {

// "train.py", "run.sh", "main.cu": a script or file name before a colon ("train.py: error: ..."
// from argparse, "run.sh: line 3: ..." from bash) names no machine. Only a one-dot name: a host's
// domain ("node1.cluster.py") keeps its dots.
bool file_name_like(std::string_view w) {
  static constexpr std::string_view kExtensions[] = {
      "py", "sh", "bash", "c", "cc", "cpp", "cxx", "cu", "cuh", "h", "hpp", "pl", "rb", "js", "go", "rs", "java", "lua",
      "jl", "ipynb", "log", "txt", "out", "err", "json", "yaml", "yml", "toml", "cfg", "ini", "conf", "csv", "md", "so",
      "o", "exe", "pt", "pth", "ckpt", "bin", "safetensors", "zip", "gz", "tar", "whl"};
  size_t dot = w.find('.');
  if (dot == std::string_view::npos || w.find('.', dot + 1) != std::string_view::npos) return false;
  std::string_view ext = w.substr(dot + 1);
  return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions);
}

// An HCA driver's instance or an IB device's name ("hermon0", "mcxnex0" on Solaris, "mlx5_0", a bare
// "mlx5"), written before its message as a host label would be. Only these exact shapes: "mlx5-01" or
// "hermon12-a" may name machines.
bool hca_device_word(std::string_view w) {
  if (w == "mlx4" || w == "mlx5") return true;
  for (std::string_view d : {"mlx4_", "mlx5_", "hermon", "tavor", "mcxnex"})
    if (w.size() > d.size() && w.substr(0, d.size()) == d && std::all_of(w.begin() + d.size(), w.end(), is_digit)) return true;
  return false;
}

}  // namespace

// A word that can be a machine's name: letters, digits, '-', '_', '.', with at least one digit or
// '-' or '.' (node12, gpu-a-3, ip-10-0-0-7, 10.0.0.7) so that "RuntimeError:" or "kernel:" is not.
bool host_like(std::string_view w) {
  if (w.empty() || w.size() > 64 || !ascii_alnum(w.front())) return false;
  bool marked = false, alpha_or_ip = false;
  for (char c : w) {
    if (!host_char(c)) return false;
    if (is_digit(c) || c == '-' || c == '.') marked = true;
    if (std::isalpha(static_cast<unsigned char>(c))) alpha_or_ip = true;
  }
  bool ipv4 = std::count(w.begin(), w.end(), '.') == 3 && std::all_of(w.begin(), w.end(), [](char c) { return is_digit(c) || c == '.'; });
  // A number's first label ("3600.412s:", Flux's elapsed time) is a duration, not a machine.
  std::string_view first = w.substr(0, w.find('.'));
  if (!ipv4 && first.size() < w.size() && std::all_of(first.begin(), first.end(), is_digit)) return false;
  // A version's later label starts with a digit ("cuda-12.1", "v2.18.3-1", "llama-3.1-70b",
  // "ubuntu-22.04"); a machine's domain labels do not ("node1.cluster", "ip-10-0-0-7.ec2.internal").
  if (!ipv4)
    for (size_t dot = w.find('.'); dot != std::string_view::npos; dot = w.find('.', dot + 1))
      if (dot + 1 < w.size() && is_digit(w[dot + 1])) return false;
  return marked && (alpha_or_ip || ipv4) && w.back() != '.' && w.back() != '-' && !file_name_like(w);
}

// A paste's stand-in for a machine it hid: "xxx", "XXXX", "xxx-xxx", "node-xx", "gpu-node-X", "hostname".
// No machine: a finding under it has an unknown host (and may take its peer's), not a made-up one.
bool redacted_host(std::string_view w) {
  auto is_x = [](char c) { return c == 'x' || c == 'X'; };
  auto equals = [&](std::string_view word) {  // case-insensitive
    return w.size() == word.size() &&
           std::equal(w.begin(), w.end(), word.begin(), [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  };
  if (equals("hostname") || equals("host") || equals("your-host") || equals("yourhost") || equals("myhost")) return true;
  // The loopback name says which machine to no one reading the paste.
  if (equals("localhost") || equals("localhost.localdomain")) return true;
  if (std::any_of(w.begin(), w.end(), is_digit)) return false;
  // A template's placeholder left in the paste: "SERVER_NAME", "NODE_NAME", "HOST_NAME".
  auto upper_or_underscore = [](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; };
  if (w.size() >= 4 && std::all_of(w.begin(), w.end(), upper_or_underscore) &&
      (w.find("NAME") != std::string_view::npos || w.find("HOST") != std::string_view::npos || w.find("NODE") != std::string_view::npos))
    return true;
  size_t dash = w.find_last_of("-_.");
  std::string_view last = w.substr(dash == std::string_view::npos ? 0 : dash + 1);
  bool all_x = !last.empty() && std::all_of(last.begin(), last.end(), is_x);
  return all_x && (dash != std::string_view::npos || std::count_if(w.begin(), w.end(), is_x) >= 2);
}

bool gpu_index_word(std::string_view w) {
  if (w.substr(0, 3) != "gpu" && w.substr(0, 3) != "GPU") return false;
  std::string_view n = w.substr(3);
  if (!n.empty() && (n[0] == '_' || n[0] == '-')) n.remove_prefix(1);
  if (n.empty() || n.size() > 2 || !std::all_of(n.begin(), n.end(), is_digit)) return false;
  return n.size() == 1 || (n[0] != '0' && (n[0] - '0') * 10 + (n[1] - '0') < 16);
}

bool any_case_host(std::string_view w) {
  return !w.empty() && w.size() <= 64 && ascii_alnum(w.front()) && std::all_of(w.begin(), w.end(), host_char);
}

bool lower_host(std::string_view w) {
  return any_case_host(w) && std::none_of(w.begin(), w.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

bool prose_word(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "a", "an", "the", "and", "or", "but", "nor", "if", "then", "else", "with", "without", "for", "from", "to",
      "into", "onto", "in", "on", "at", "of", "by", "as", "than", "via", "per", "is", "are", "was", "were", "be",
      "been", "has", "have", "had", "do", "does", "did", "not", "no", "it", "its", "this", "that", "these",
      "those", "which", "who", "when", "while", "where", "because", "since", "so", "also", "there", "we", "you",
      "they", "he", "she", "i", "my", "our", "your", "their", "can", "could", "will", "would", "should", "may",
      "might", "must", "after", "before", "during", "until", "all", "any", "some", "each", "every", "please"};
  for (std::string_view k : kWords)
    if (w == k) return true;
  return false;
}

bool names_program(std::string_view w) {
  // Programs whose names carry a digit or a hyphen, as a host's do ("python3: can't open file ..."),
  // also with a version after a dot ("python3.10:"), and the file system tools named <tool>.<type>
  // ("mount.nfs: Connection timed out"), whose dot reads like a domain's.
  static constexpr std::string_view kPrograms[] = {"python2", "python3", "pip3", "nvidia-smi", "nvidia-persistenced",
                                                   "nv-fabricmanager", "dcgmi", "rocm-smi", "amd-smi",
                                                   "mount", "umount", "fsck", "mkfs",
                                                   // NVIDIA's tools ("nvidia-container-cli: requirement error"),
                                                   // named, not by prefix: "nvidia-desktop" is a Jetson's host name
                                                   "nvidia-container-cli", "nvidia-container-runtime",
                                                   "nvidia-container-runtime-hook", "nvidia-container-toolkit",
                                                   "nvidia-ctk", "nvidia-cdi-hook", "nvidia-installer", "nvidia-modprobe",
                                                   "nvidia-imex", "nvidia-device-plugin",
                                                   "nvidia-kubevirt-gpu-device-plugin",
                                                   // DCGM's daemons and the operator's node labeller
                                                   // ("dcgm-exporter.log" is no machine "exporter")
                                                   "dcgm-exporter", "nv-hostengine", "gpu-feature-discovery"};
  if (std::find(std::begin(kPrograms), std::end(kPrograms), w.substr(0, w.find('.'))) != std::end(kPrograms)) return true;
  // The GPU operator's containers ("nvidia-driver-ctr: ...", "nvidia-peermem-ctr").
  return w.substr(0, 7) == "nvidia-" && w.size() > 11 && w.substr(w.size() - 4) == "-ctr";
}

// A Python exception's qualified name whose class is lower case, as the standard library's socket and
// select errors are ("socket.gaierror: [Errno -2] ...", "socket.timeout: timed out"): shaped like a host
// name, it ends in a class no machine's domain is called.
static bool python_exception_name(std::string_view w) {
  const size_t dot = w.rfind('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view last = w.substr(dot + 1);
  for (std::string_view c : {"error", "gaierror", "herror", "timeout"})
    if (last == c) return true;
  return false;
}

bool could_name_machine(std::string_view w) {
  // Host names are lower case; "torch.distributed.elastic...Error:" and logger names are not hosts.
  // An upper-case name with a digit and a hyphen is a machine's as gethostname gives it
  // ("HGX-H100-13: kernel: ..."); exception and logger names carry neither.
  const bool upper = std::any_of(w.begin(), w.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  const bool machine_shape = std::any_of(w.begin(), w.end(), is_digit) && w.find('-') != std::string_view::npos;
  if (!host_like(w) || (upper && !machine_shape)) return false;
  static constexpr std::string_view kModules[] = {"torch.", "ray.", "deepspeed.", "megatron.", "transformers.",
                                                  "accelerate.", "nemo.", "lightning.", "vllm.", "numpy.", "py."};
  for (std::string_view m : kModules)
    if (w.substr(0, m.size()) == m) return false;
  if (names_program(w)) return false;
  if (python_exception_name(w)) return false;
  if (gpu_index_word(w)) return false;
  // A GPU architecture's name ("sm_90", "gfx90a", "compute_80"), not a machine.
  for (std::string_view arch : {"sm_", "gfx", "compute_"})
    if (w.substr(0, arch.size()) == arch && w.size() > arch.size() && is_digit(w[arch.size()])) return false;
  if (hca_device_word(w)) return false;
  static constexpr std::string_view kNotHosts[] = {"rank", "default", "frame", "local_rank", "cuda", "step", "epoch",
                                                   "iteration", "iter", "batch", "line", "task", "worker", "stage",
                                                   "layer", "shard", "chunk", "proc", "process", "thread", "device",
                                                   "trial", "attempt", "microbatch"};
  for (std::string_view n : kNotHosts)  // "rank3:", "step_100:" count things, they are not machines
    if (w.substr(0, n.size()) == n) {
      std::string_view rest = w.substr(n.size());
      if (!rest.empty() && (rest[0] == '_' || rest[0] == '-')) rest.remove_prefix(1);
      if (std::all_of(rest.begin(), rest.end(), is_digit)) return false;
    }
  return true;
}

}  // namespace attribution

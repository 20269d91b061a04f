#include "core/scan/host_hints.hpp"
#include "core/base/text.hpp"
#include "core/rules/literal_search.hpp"
#include "core/scan/file_name_host.hpp"
#include "core/scan/host_word.hpp"
#include "core/scan/line_prefix.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <re2/re2.h>
#include <vector>

namespace attribution {
namespace {

// A timing or environment prefix runs the command after it: "time srun ...", "FOO=1 srun ...".
std::string_view after_launch_prefixes(std::string_view command) {
  for (;;) {
    size_t sp = command.find(' ');
    if (sp == std::string_view::npos) return command;
    std::string_view w = command.substr(0, sp);
    if (w != "time" && w != "nohup" && w.find('=') == std::string_view::npos) return command;
    size_t next = command.find_first_not_of(' ', sp);
    command = next == std::string_view::npos ? std::string_view() : command.substr(next);
  }
}

// A command's program without its directory: "/bin/srun" runs srun.
std::string_view program_of(std::string_view command) {
  std::string_view first = command.substr(0, command.find(' '));
  return first.substr(first.rfind('/') + 1);
}

// The machine a pasted command ran on when it is not the prompt's: "ssh [opts] [user@]host cmd",
// "srun -w host cmd" / "--nodelist=host" (sbatch and salloc too: the job went to that host, and what is
// pasted under it is that job's), "kubectl debug node/host" (the output below is that host's); empty for
// a plain "srun cmd" (somewhere in the allocation, not the prompt's machine).
std::optional<std::string_view> remote_host(std::string_view command) {
  command = after_launch_prefixes(command);
  const std::string_view program = program_of(command);
  const bool slurm = program == "srun" || program == "sbatch" || program == "salloc";
  const bool kube = program == "kubectl" || program == "oc";
  if (program != "ssh" && !slurm && !kube) return std::nullopt;  // before tokenizing: most commands are none
  std::vector<std::string_view> tok;
  for (size_t i = 0; i < command.size() && tok.size() < 24;) {
    size_t j = command.find(' ', i);
    if (j == std::string_view::npos) j = command.size();
    if (j > i) tok.push_back(command.substr(i, j - i));
    i = j + 1;
  }
  auto host = [](std::string_view h) -> std::optional<std::string_view> {
    h = h.substr(h.find('@') == std::string_view::npos ? 0 : h.find('@') + 1);
    if (any_case_host(h) && h.find_first_of("[,") == std::string_view::npos) return h;
    return std::nullopt;
  };
  if (tok.empty()) return std::nullopt;
  if (program == "ssh") {
    // ssh's options that take an argument (ssh(1)): "-p 22 host" names the host after the port.
    static constexpr std::string_view kWithArg = "BbcDEeFIiJLlmOopQRSWw";
    // A sentence that starts with the word, not a command: horovodrun's "ssh not successful for host
    // node02:", "ssh to the node failed".
    static const std::set<std::string, std::less<>> kProse = {"not", "to", "is", "was", "failed", "fails", "error",
                                                              "errors", "connection", "session", "access", "and", "or",
                                                              "into", "on", "in", "for", "from", "the", "a", "an", "works"};
    for (size_t k = 1; k < tok.size(); ++k) {
      if (tok[k][0] != '-') return kProse.count(tok[k]) ? std::nullopt : host(tok[k]);
      if (tok[k].size() == 2 && kWithArg.find(tok[k][1]) != std::string_view::npos) ++k;
    }
    return std::nullopt;
  }
  if (slurm) {
    // Slurm's options and their arguments come first ("-N 2 -w node1"): the first -w that names a
    // machine counts.
    for (size_t k = 1; k < tok.size(); ++k) {
      std::string_view t = tok[k];
      std::optional<std::string_view> h;
      if ((t == "-w" || t == "--nodelist") && k + 1 < tok.size()) h = host(tok[k + 1]);
      else if (t.substr(0, 2) == "-w" && t.size() > 2 && t[2] != '-') h = host(t.substr(2));
      else if (t.substr(0, 11) == "--nodelist=") h = host(t.substr(11));
      if (h) return h;
    }
    // Without a node named, srun's output is from the allocation's nodes, not the prompt's machine (a
    // login node): a section whose machine is unknown. sbatch and salloc answer from where they run.
    if (program != "srun") return std::nullopt;
    return std::string_view();
  }
  if (kube && tok.size() > 2 && tok[1] == "debug" && tok[2].substr(0, 5) == "node/")
    return host(tok[2].substr(5));
  return std::nullopt;
}

// head/tail's header before each file they print: "==> logs/node17/dmesg.log <==". The machine its
// path names (the file's name, else a directory's), as a file of --logs would.
std::optional<std::string_view> header_host(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.size() < 9 || line.substr(line.size() - 4) != " <==") return std::nullopt;
  std::string_view path = line.substr(4, line.size() - 8);
  std::filesystem::path p{std::string(path)};
  for (auto it = p.end(); it != p.begin();) {
    --it;
    std::string h = host_from_file_name(it->string(), {});
    if (h.empty()) continue;
    if (size_t at = line.find(h); at != std::string_view::npos) return line.substr(at, h.size());
  }
  return std::nullopt;
}

// A banner a loop over hosts prints before each one's output ("=== gpu-node-3 ===", "----- gpu-node-3
// -----", "##### gpu-node-3"), or a key and the host alone on a line ("host: gpu-node-3", "Hostname:
// gpu-node-3", "node = gpu-node-3"): the one word it frames, or nothing.
std::optional<std::string_view> banner_word(std::string_view line) {
  constexpr std::string_view kDeco = "=-#* ";
  const size_t b = line.find_first_not_of(kDeco), e = line.find_last_not_of(kDeco);
  if (b == std::string_view::npos) return std::nullopt;
  const bool framed = b >= 3 && line.substr(0, 3).find_first_not_of(line[0]) == std::string_view::npos && line[0] != ' ';
  std::string_view core = line.substr(b, e - b + 1);
  bool keyed = false;
  for (std::string_view key : {"hostname", "host", "node"}) {
    if (core.size() <= key.size() + 1) continue;
    std::string_view head = core.substr(0, key.size());
    if (!std::equal(head.begin(), head.end(), key.begin(), [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == y; }))
      continue;
    size_t k = key.size();
    while (k < core.size() && core[k] == ' ') ++k;
    if (k >= core.size() || (core[k] != ':' && core[k] != '=')) continue;
    ++k;
    while (k < core.size() && core[k] == ' ') ++k;
    core.remove_prefix(k);
    keyed = true;
    break;
  }
  if ((!framed && !keyed) || core.empty() || core.find(' ') != std::string_view::npos) return std::nullopt;
  return core;
}

// A per-host section's header as parallel shells and hand-made pastes print it: a host alone with a
// colon ("gpu-node-3:", pdsh -b and people pasting several nodes' output), a banner_word, Ansible's
// "gpu-node-3 | FAILED | rc=1 >>", pssh -i's "[1] 10:41:07 [FAILURE] gpu-node-3 Exited with error code 1".
std::optional<std::string_view> parallel_shell_header(std::string_view line) {
  auto machine = [](std::string_view w) { return could_name_machine(w) && !redacted_host(w); };
  // Only a name shaped as a cluster's machines are (node05, gpu-a-07, 10.0.3.17: digits at its end):
  // a YAML key alone on its line ("gpu-operator:", "ipv4:") is not one.
  auto machine_shaped = [&](std::string_view w) {
    return w.size() >= 4 && std::isdigit(static_cast<unsigned char>(w.back())) && w != "ipv4" && w != "ipv6" && machine(w);
  };
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
  if (line.size() > 1 && line.back() == ':' && line.find(' ') == std::string_view::npos) {
    std::string_view w = line.substr(0, line.size() - 1);
    return machine_shaped(w) ? std::optional<std::string_view>(w) : std::nullopt;
  }
  if (auto w = banner_word(line); w && machine_shaped(*w)) return w;
  static const RE2 ansible(R"(^([\w.-]+) \| (?:CHANGED|SUCCESS|FAILED!?|UNREACHABLE!?)(?: \| rc=-?\d+)?(?: >>| => \{)?\s*$)");
  static const RE2 pssh(R"(^\[\d+\] \d\d:\d\d:\d\d \[(?:SUCCESS|FAILURE)\] ([\w.-]+)(?: |$))");
  re2::StringPiece in(line.data(), line.size()), host;
  const bool maybe_ansible = line.find(" | ") != std::string_view::npos;
  if ((maybe_ansible && RE2::PartialMatch(in, ansible, &host)) || (line[0] == '[' && RE2::PartialMatch(in, pssh, &host))) {
    if (std::string_view h(host.data(), host.size()); machine(h)) return h;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> section_host(std::string_view line) {
  static const RE2 prompt(R"(^(?:\([^)]*\) )?(?:[\w.-]+@)([A-Za-z0-9][\w.-]*):[^\s$#]*\s?[$#] ?(.*))");
  static const RE2 bracket(R"(^(?:\([^)]*\) )?\[[\w.-]+@([A-Za-z0-9][\w.-]*)(?: [^\]]*)?\][$#] ?(.*))");
  static const RE2 suse(R"(^([A-Za-z0-9][\w-]*[0-9][\w-]*):~ ?[$#] (.*))");
  static const RE2 zsh(R"(^(?:\([^)]*\) )?[\w.-]+@([A-Za-z0-9][\w.-]*) [^\s$#%]+ [$#%] (.*))");  // zsh: "user@host ~ % cmd"
  // A prompt of the host alone, then its directory: Gentoo's root "livecd ~ # cmd", zsh's "orm [~] % cmd".
  static const RE2 bare(R"(^([A-Za-z0-9][\w.-]*) (?:\[[~/A-Za-z][^\]\s]*\]|~[^\s$#%]*) [$#%] (\S.*))");
  static const RE2 k8s_node(R"(^Node:\s+([a-z0-9][\w.-]*)(?:/[0-9a-f.:]+)?\s*$)");
  // Each pattern needs bytes most log lines lack, in the line's first word: checked first, so the
  // regexes run on few lines (the scan asks this of every line above a finding without a host).
  std::string_view word = line;
  if (!word.empty() && word[0] == '(') word.remove_prefix(std::min(word.size(), word.find(") ") + 2));  // a venv
  word = word.substr(0, word.find(' '));
  const bool at = word.find('@') != std::string_view::npos;
  std::string_view command = line.substr(std::min(line.size(), line.find_first_not_of(" \t\r\f\v")));
  if (command.size() > 2 && (command[0] == '$' || command[0] == '#') && command[1] == ' ') command.remove_prefix(2);
  // A Windows terminal's prompt before an ssh typed from a laptop: "PS C:\Users\me> ", "C:\Users\me>"
  // (cmd.exe puts no blank after it). Only the command's target names a machine (the laptop is none of
  // the job's).
  const bool powershell = command.substr(0, 3) == "PS ";
  if (std::string_view drive = powershell ? command.substr(3) : command;
      drive.size() > 3 && std::isalpha(static_cast<unsigned char>(drive[0])) && drive.substr(1, 2) == ":\\")
    if (size_t gt = command.find('>'); gt < 160 && (!powershell || command.substr(gt, 2) == "> ")) {
      command.remove_prefix(gt + 1);
      if (!command.empty() && command[0] == ' ') command.remove_prefix(1);
    }
  if (auto h = remote_host(command)) return h;
  // A bare prompt's host is the line's first word (no venv before it), a directory right after it.
  const std::string_view after = line.substr(std::min(line.size(), word.size() + 1), 1);
  const bool directory_next = !at && word.size() == line.find(' ') && (after == "~" || after == "[");
  struct Candidate {
    const RE2* re;
    bool (*names_host)(std::string_view);  // with no user@ before it, only a lower-case name is taken for a host
  };
  const Candidate candidates[] = {{at ? &prompt : nullptr, any_case_host},
                                  {at ? &bracket : nullptr, any_case_host},
                                  {at ? &zsh : nullptr, any_case_host},
                                  {word.find(":~") != std::string_view::npos ? &suse : nullptr, any_case_host},
                                  {directory_next ? &bare : nullptr, lower_host}};
  re2::StringPiece host, rest;
  re2::StringPiece in(line.data(), line.size());
  for (const auto& [re, names_host] : candidates)
    if (re && RE2::PartialMatch(in, *re, &host, &rest) && names_host(std::string_view(host.data(), host.size()))) {
      if (auto h = remote_host(std::string_view(rest.data(), rest.size()))) return h;
      return std::string_view(host.data(), host.size());
    }
  if (line.substr(0, 5) == "Node:" && RE2::PartialMatch(in, k8s_node, &host) && lower_host(std::string_view(host.data(), host.size())))
    return std::string_view(host.data(), host.size());
  if (line.substr(0, 4) == "==> ") return header_host(line);
  if (auto h = parallel_shell_header(line)) return h;
  // scontrol show node's block: "NodeName=gpu-7 Arch=..." heads the node's State= and Reason= lines
  // (indented with them when the paste is).
  if (std::string_view n = line.substr(std::min(line.size(), line.find_first_not_of(" \t"))); n.substr(0, 9) == "NodeName=") {
    std::string_view h = n.substr(9, n.find_first_of(" \t\r", 9) - 9);
    if (any_case_host(h)) return h;
  }
  return std::nullopt;
}

std::optional<std::string_view> declared_host(std::string_view line) {
  static const RE2 re(
      R"((?:Set hostname to <([\w.-]+)>|\bHOSTNAME=([\w.-]+)|Static hostname: ([\w.-]+)|^\s*(?:\d{4}-\d\d-\d\dT[\d:.]+Z )?(?:Machine|Runner) name: '([\w.-]+)'\s*$|^\s+Hostname:\s+([\w.-]+)\s*$|^\s+host name:\s+([\w.-]+)\s*$))");
  // The last two: `kubectl describe node`'s Addresses section ("  Hostname:    gpu-node-1"), and the
  // header of smartd's warning mail ("   host name:  urmel", under "generated by the smartd daemon running on:").
  re2::StringPiece g[6];  // one per alternative; the one that matched is the only one set
  if (!RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), re, &g[0], &g[1], &g[2], &g[3], &g[4], &g[5]))
    return std::nullopt;
  const re2::StringPiece* h = std::find_if(std::begin(g), std::end(g), [](const re2::StringPiece& x) { return !x.empty(); });
  if (h == std::end(g)) return std::nullopt;
  std::string_view host(h->data(), h->size());
  if (!lower_host(host) || host == "localhost") return std::nullopt;
  return host;
}

namespace {
constexpr size_t kSectionLookBack = size_t(8) << 20;  // a prompt further up than this is not looked for
constexpr size_t kDeclaredSearch = size_t(4) << 20;   // the kernel names its host at boot, near the top

// A section line of a file: section_host, for lines that start with a prompt's characters.
// A section line behind a quote's markers ("> user@node3:~$ dmesg"), an indent, or a launcher's, a
// viewer's or a logger's prefix ("3: user@node3:~$ ...", "2024-05-01T12:00:00Z ==> node3.log <==").
std::optional<std::string_view> section_of(std::string_view l) {
  l.remove_prefix(paste_markers(l));
  if (auto h = section_host(l)) return h;
  if (std::string_view m = printed_part(l, false); m.size() < l.size() && !m.empty()) return section_host(m);
  return std::nullopt;
}

std::optional<std::string_view> opens_section(std::string_view l) {
  l.remove_prefix(paste_markers(l));
  char c = l.empty() ? '\0' : l[0];
  if (std::isalnum(static_cast<unsigned char>(c)) || c == '[' || c == '(' || c == ' ' || c == '$' || c == '#' || c == '=' || c == '-' ||
      c == '*')
    return section_of(l);
  return std::nullopt;
}

}  // namespace

// Only lines that hold what every section line needs ('@' or ":~" in a prompt, "ssh ", "srun ",
// "sbatch ", "salloc ", " debug node/", a host or node key ("ost:", "ode:" also find "Node:"), a banner's
// "===", "---", "###" or "***", head/tail's "==> ", scontrol's "NodeName=", a colon ending the line, an
// Ansible or pssh status, a bare prompt's " ~ # " or "] % ") and start with a prompt's characters are
// parsed: the rest are skipped by byte search.
template <class Visit>
void FileHosts::each_section_line(size_t from, size_t limit, Visit visit) {
  for (size_t pos = from; pos < limit && pos < buf_.size();) {
    size_t hit = next_section_key(pos, limit);
    if (hit == std::string_view::npos) break;
    pos = line_start(buf_, hit);
    if (auto h = opens_section(line_at(buf_, pos))) visit(*h, pos);
    size_t eol = buf_.find('\n', pos);
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
}

std::string_view FileHosts::section_at(size_t line_start, size_t* where) {
  if (!started_ || line_start < scanned_) {  // first query, or one before the last: look back afresh
    started_ = true;
    section_ = {};
    std::fill(std::begin(next_key_), std::end(next_key_), kUnsearched);
    scanned_ = line_start > kSectionLookBack ? buf_.find('\n', line_start - kSectionLookBack) + 1 : 0;
  }
  each_section_line(scanned_, line_start, [&](std::string_view h, size_t pos) { section_ = h, section_pos_ = pos; });
  // The line itself may be the prompt ("root@node1:~# dmesg | grep Xid" names the node it ran on):
  // only when it holds a key, as every section line does (the keys' search goes on from here anyway).
  std::string_view line = line_at(buf_, line_start);
  if (next_section_key(line_start, line_start + line.size()) != std::string_view::npos)
    if (auto h = section_of(line)) section_ = *h, section_pos_ = line_start;
  scanned_ = std::max(scanned_, line_start);
  if (where) *where = section_pos_;
  return section_;
}


size_t FileHosts::next_section_key(size_t from, size_t limit) {
  // '@' by memchr; the others in one pass of the strided literal search (find would stop at
  // every ':' of a log for ":~").
  static const LiteralSearch kOthers(std::vector<std::string>{
      ":~", "ssh ", "srun ", "sbatch ", "salloc ", " debug node/", "===", "---", "###", "***", "ost:", "ode:", "ostname:",
      "ost =", "ode =", "==> ", "NodeName=", ":\n", ":\r\n", " | FAILED", " | CHANGED", " | SUCCESS", " | UNREACHABLE",
      " [FAILURE] ", " [SUCCESS] ", " ~ # ", " ~ % ", "] % ", "] # "});
  auto refresh = [&](size_t& next, auto&& find) {
    // Each key's next occurrence is kept: a look-back over a long stretch finds each once.
    if (next < from || next == kUnsearched) next = find();
  };
  refresh(next_key_[0], [&] {
    const void* hit = from < buf_.size() ? std::memchr(buf_.data() + from, '@', buf_.size() - from) : nullptr;
    return hit ? static_cast<size_t>(static_cast<const char*>(hit) - buf_.data()) : std::string_view::npos;
  });
  refresh(next_key_[1], [&] { return kOthers.find(buf_, from); });
  size_t best = std::min(next_key_[0], next_key_[1]);
  return best < limit ? best : std::string_view::npos;
}

std::set<std::string_view> FileHosts::named(std::vector<size_t>* where) {
  std::set<std::string_view> out;
  size_t at = 0;
  if (std::string_view d = declared(&at); !d.empty()) out.insert(d), where->push_back(at);
  std::fill(std::begin(next_key_), std::end(next_key_), kUnsearched);  // the keys' next positions are from the start again
  started_ = false;  // and a later section_at looks back afresh
  each_section_line(0, buf_.size(), [&](std::string_view h, size_t pos) {
    if (!h.empty()) out.insert(h), where->push_back(pos);
  });
  return out;
}

std::string_view FileHosts::declared(size_t* where) {
  if (!declared_searched_) {
    declared_searched_ = true;
    std::string_view head = buf_.substr(0, kDeclaredSearch);
    // Each key's first occurrence, in one pass of the strided literal search (find would stop at
    // every 'S' and 'H' of a 4 MiB head); then the keys in order, as they rank.
    static const std::string_view kKeys[] = {"Set hostname to <", "HOSTNAME=", "Static hostname: ", "Machine name: '",
                                             "Runner name: '", "  Hostname: ", " host name: "};
    constexpr size_t kN = std::size(kKeys);
    static const LiteralSearch kSearch(std::vector<std::string>(std::begin(kKeys), std::end(kKeys)));
    size_t first[kN];
    std::fill(first, first + kN, std::string_view::npos);
    for (size_t at = 0, left = kN; left > 0 && (at = kSearch.find(head, at)) != std::string_view::npos; ++at)
      for (size_t k = 0; k < kN; ++k)
        if (first[k] == std::string_view::npos && head.substr(at, kKeys[k].size()) == kKeys[k]) first[k] = at, --left;
    for (size_t at : first) {
      if (at == std::string_view::npos) continue;
      size_t start = line_start(head, at);
      std::string_view line = line_at(buf_, start);
      auto h = declared_host(line);
      if (!h) h = declared_host(printed_part(line, true));  // under a launcher's label, a stamp
      // A stamp's reader takes "host name:" or "Hostname:" after it for a syslog host and tag: the key
      // is read where it starts when all before it is the line's prefixes.
      if (const size_t key = at - start; !h && key > 0 && parse_line_prefix(line).message_offset >= key)
        h = declared_host(line.substr(key));
      if (h) {
        declared_ = *h;
        declared_pos_ = start;
        break;
      }
    }
  }
  if (where) *where = declared_pos_;
  return declared_;
}

}  // namespace attribution

#include "core/scan/prefix_readers.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>

#include "core/base/limits.hpp"
#include "core/scan/json_record.hpp"
#include "core/scan/written_time.hpp"

namespace attribution {
namespace {

// The first byte first: most lines differ there, and a memcmp call costs more than the compare.
bool starts(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && (p.empty() || s[0] == p[0]) && s.substr(0, p.size()) == p;
}

constexpr size_t kMaxHostName = 253;  // DNS: a longer word is not a host name, whatever follows it

// Also Ray's CLI "ERR" and syslog's short names, and Slurm's "debug2:" .. "debug5:" (digits make them
// look like machines' names).
bool is_level_word(std::string_view w) {
  for (std::string_view l : {"INFO", "WARN", "WARNING", "ERROR", "ERR", "DEBUG", "CRITICAL", "CRIT", "FATAL", "TRACE",
                             "NOTICE", "ALERT", "EMERG"})
    if (w == l) return true;
  return w.size() == 6 && starts(w, "debug") && w[5] >= '2' && w[5] <= '5';
}

// A word after a line's stamp that names a machine by itself ("<stamp> gpu-node-7: ...", "<stamp>
// gpu-node-7 ERROR ..."): what could_name_machine lets through, with a digit as machines' names carry and
// syslog tags ("kernel", "systemd-logind") and logger names ("trainer") do not.
bool stamped_machine(std::string_view w) {
  return std::any_of(w.begin(), w.end(), is_digit) && could_name_machine(w) && !redacted_host(w) && !is_level_word(w);
}

// The digits after the seconds' '.' or ',' of an ISO stamp (its fraction starts after the date and clock).
size_t fraction_digits(std::string_view stamp) {
  constexpr size_t kDateAndClock = std::string_view("YYYY-MM-DDTHH:MM:SS").size();
  size_t dot = stamp.find_first_of(".,", kDateAndClock);
  if (dot == std::string_view::npos) return 0;
  size_t n = 0;
  while (dot + 1 + n < stamp.size() && is_digit(stamp[dot + 1 + n])) ++n;
  return n;
}

// dmesg's "[   12.345678]" at s[i] (defined with the other stamp readers below): a forwarder's syslog
// template without the tag puts it straight after the host.
std::optional<size_t> dmesg_mono(std::string_view s, size_t i, LinePrefix& p);

}  // namespace

size_t syslog_host_tag(std::string_view s, size_t i, LinePrefix& p) {
  const size_t a = host_word_end(s, i);
  if (a == i || a >= s.size()) return i;
  auto tag_end = [&](size_t j) -> size_t {  // "tag:" or "tag[123]:"
    size_t b = j;
    while (b < s.size() && (host_char(s[b]) || s[b] == '/' || s[b] == '(' || s[b] == ')')) ++b;
    if (b == j) return 0;
    if (b < s.size() && s[b] == '[') {
      while (b < s.size() && s[b] != ']') ++b;
      if (b < s.size()) ++b;
    }
    if (b < s.size() && s[b] == ':') return b + 1;
    return 0;
  };
  if (s[a] == ':') {  // "kernel:" with no host; a machine's name alone after the stamp is stamped_host's
    if (stamped_machine(s.substr(i, a - i)) && a + 1 < s.size() && s[a + 1] == ' ') return i;
    // NCCL's "node23:12098:12141 [2]" after a CI runner's or kubectl's stamp: read next as NCCL's own.
    if (a + 1 < s.size() && is_digit(s[a + 1])) return i;
    return a + 1;
  }
  if (s[a] == '[') {              // "slurmd[123]:" with no host
    size_t e = tag_end(i);
    return e ? e : i;
  }
  if (s[a] != ' ') return i;
  std::string_view word = s.substr(i, a - i);
  if (is_level_word(word) || prose_word(word) || word.size() > kMaxHostName) return i;
  size_t e = tag_end(a + 1);
  if (LinePrefix stamp; !e && dmesg_mono(s, a + 1, stamp) && could_name_machine(word) && !redacted_host(word)) {
    p.host = word;  // a forwarder's template without the tag: "<stamp> node3 [230333.706980] msg"
    return a + 1;
  }
  if (!e) return i;
  // "<stamp> trainer INFO: step 10": a logger's name and its level, not a machine and a tag.
  if (is_level_word(s.substr(a + 1, e - a - 2))) return i;
  if (!redacted_host(word)) p.host = word;
  return e;
}

namespace {

// NCCL "host:pid:tid [dev] " at s[i..]. The host may be a FQDN or an address, or missing where a
// paste redacted it ("::16674:16674 [0] NCCL INFO").
bool nccl_ident(std::string_view s, size_t& i, LinePrefix& p) {
  size_t a = host_word_end(s, i);
  if (a == i && a + 1 < s.size() && s[a] == ':' && s[a + 1] == ':') ++a;  // redacted host: "::pid:tid"
  bool placeholder = false;
  if (a == i && a < s.size() && s[a] == '<') {  // a paste's "<hostname>:pid:tid" stands for a host it hid
    size_t close = s.find('>', a);
    if (close != std::string_view::npos && close - a < 40 && close + 1 < s.size() && s[close + 1] == ':') {
      a = close + 1;
      placeholder = true;
    }
  }
  if (a == i || a - i > kMaxHostName || a >= s.size() || s[a] != ':') return false;
  size_t b = a + 1;
  int64_t pid, tid, dev;
  if (!read_number(s, b, &pid) || b >= s.size() || s[b] != ':') return false;
  ++b;
  if (!read_number(s, b, &tid) || b + 1 >= s.size() || s[b] != ' ') return false;
  ++b;
  if (s[b] == '[') {
    size_t c = b + 1;
    if (!read_number(s, c, &dev, 4) || c >= s.size() || s[c] != ']') return false;
    p.gpu = static_cast<int>(dev);
    b = c + 1;
    if (b < s.size() && s[b] == ' ') ++b;
  } else if (!starts(s.substr(b), "NCCL ")) {
    return false;
  }
  std::string_view host = s.substr(i, a - i);
  p.host = host == ":" || placeholder || redacted_host(host) ? std::string_view() : host;
  p.pid = pid;
  i = b;
  return true;
}

// Launcher labels before a line: OpenMPI's "[1,3]<stderr>:" (job, rank), and a bracketed name
// "[worker-0]:" / "[train|3]:" of a launcher or log shipper. Returns the offset after it, or i.
size_t launcher_label(std::string_view s, size_t i, LinePrefix& p) {
  if (i >= s.size() || s[i] != '[') return i;
  size_t close = s.find(']', i);
  if (close == std::string_view::npos || close - i > 64) return i;
  std::string_view inner = s.substr(i + 1, close - i - 1);
  size_t after = close + 1;
  if (s.substr(after, 9) == "<stdout>:" || s.substr(after, 9) == "<stderr>:") {  // OpenMPI --tag-output
    size_t comma = inner.find(',');
    size_t k = comma + 1;
    int64_t rank;
    if (comma != std::string_view::npos && read_number(inner, k, &rank, 7) && k == inner.size()) p.rank = static_cast<int>(rank);
    return after + 9;
  }
  // A name, not an index: torchrun's failure summary prints "[0]:" as content.
  if (after >= s.size() || s[after] != ':' || !std::any_of(inner.begin(), inner.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return i;
  for (char c : inner)
    if (!host_char(c) && c != '|' && c != ',') return i;
  return after + 1;
}

// Slurm 21.08+ names the node in its step daemon's messages ("slurmstepd-gpu20-15: error: ..."): the
// node, or empty for any other word.
std::string_view step_daemon_node(std::string_view w) {
  constexpr std::string_view kStepd = "slurmstepd-";
  return w.size() > kStepd.size() && w.substr(0, kStepd.size()) == kStepd ? w.substr(kStepd.size()) : std::string_view();
}

// The dynamic loader's messages name the program first ("bison-opt: relocation error: ...", "./train:
// error while loading shared libraries: ..."): that word is a program, not a host label.
bool loader_message(std::string_view rest) {
  for (std::string_view m : {"relocation error: ", "symbol lookup error: ", "error while loading shared libraries: "})
    if (rest.substr(0, m.size()) == m) return true;
  return false;
}

// "node12: " before the rest of a line: pdsh, clush, DeepSpeed's and mpirun's per-host output.
size_t host_label(std::string_view s, size_t i, LinePrefix& p) {
  const size_t a = host_word_end(s, i);
  if (a == i || a + 1 >= s.size() || s[a] != ':' || s[a + 1] != ' ') return i;
  std::string_view w = s.substr(i, a - i);
  if (std::string_view node = step_daemon_node(w); !node.empty()) {
    p.host = node;
    return a + 2;
  }
  if (!could_name_machine(w) || loader_message(s.substr(a + 2))) return i;
  if (redacted_host(w)) return a + 2;  // a label that hides the machine: read past it, name none
  p.host = w;
  return a + 2;
}

}  // namespace

namespace {

// "host program " at s[i..] (no colon after the program): sets host; the offset after it, or i.
size_t host_then_program(std::string_view s, size_t i, LinePrefix& p) {
  const size_t a = host_word_end(s, i);
  if (a == i || a >= s.size() || s[a] != ' ' || !host_like(s.substr(i, a - i))) return i;
  size_t b = a + 1;
  while (b < s.size() && (host_char(s[b]) || s[b] == '/')) ++b;
  if (b == a + 1 || b >= s.size() || s[b] != ' ') return i;
  p.host = s.substr(i, a - i);
  return b + 1;
}

// Each reader below looks for one kind of prefix at s[i]: where the next prefix may start when it
// read one (blanks after it skipped), or nothing.
using Next = std::optional<size_t>;

// A Loki label set after the line's stamp (json_record's label_set): its machine, when it names one.
Next loki_labels(std::string_view s, size_t i, LinePrefix& p) {
  while (i < s.size() && s[i] == '\t') ++i;  // Grafana separates the stamp, the labels and the line by tabs
  if (i >= s.size() || s[i] != '{') return std::nullopt;
  std::string_view host;
  size_t after = label_set(s, i, &host);
  if (after == i) return std::nullopt;
  if (p.host.empty() && !host.empty()) p.host = host;
  return after;
}

// "YYYY-MM-DD HH:MM:SS": an ISO stamp this long holds a clock, not a bare date.
constexpr size_t kDateAndClock = 19;

size_t skip_blanks(std::string_view s, size_t i) {
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

// A log viewer's column before the line (only first on the line): docker compose's "trainer-1  | "
// (the service's container, not the machine) and a code view's line number "  12 | ", skipped; and
// kubectl logs --prefix's "[pod/<pod>/<container>] ", whose pod is the host a container's NCCL names.
Next viewer_column(std::string_view s, size_t i, LinePrefix& p) {
  std::string_view r = s.substr(i);
  if (r.substr(0, 5) == "[pod/") {
    size_t slash = r.find('/', 5), close = r.find("] ");
    if (slash == std::string_view::npos || close == std::string_view::npos || slash > close || close > 160) return std::nullopt;
    std::string_view pod = r.substr(5, slash - 5);
    if (!std::all_of(pod.begin(), pod.end(), host_char) || pod.empty()) return std::nullopt;
    p.host = pod;
    return i + close + 2;
  }
  size_t k = skip_blanks(r, 0);
  size_t b = k;
  while (k < r.size() && k - b <= 64 && host_char(r[k])) ++k;
  if (k == b || k >= r.size() || r[k] != ' ') return std::nullopt;
  k = skip_blanks(r, k);
  if (k + 1 >= r.size() || r[k] != '|' || r[k + 1] != ' ') return std::nullopt;
  return skip_blanks(s, i + k + 2);
}

// An event row of `kubectl describe` as kubectl before 1.20 printed it, its source column naming the
// node: "  Warning  KernelOops  3m  kernel-monitor, gke-a3-pool-1-abcd  <message>", "  Normal  Pulled
// 2m  kubelet, ip-10-0-140-139.ec2.internal  ..." (only first on the line). The message follows.
Next kube_event_row(std::string_view s, size_t i, LinePrefix& p) {
  size_t k = skip_blanks(s, i);
  std::string_view r = s.substr(k);
  if (k == i || !(starts(r, "Warning ") || starts(r, "Normal "))) return std::nullopt;
  const size_t comma = r.substr(0, 240).find(", ");
  if (comma == std::string_view::npos) return std::nullopt;
  const size_t from = r.rfind(' ', comma) + 1;
  std::string_view component = r.substr(from, comma - from);
  if (component.empty() || !std::all_of(component.begin(), component.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '-'; }))
    return std::nullopt;
  const size_t h = comma + 2, end = r.find(' ', h);
  if (end == std::string_view::npos || end + 1 >= r.size() || r[end + 1] != ' ') return std::nullopt;  // the column's gap
  std::string_view host = r.substr(h, end - h);
  if (!host_like(host) || redacted_host(host)) return std::nullopt;
  p.host = host;
  return skip_blanks(s, k + end);
}

// srun --label "  3: " (only first on the line).
Next srun_task(std::string_view s, size_t i, LinePrefix& p) {
  std::string_view r = s.substr(i);
  if (r[0] != ' ' && !is_digit(r[0])) return std::nullopt;
  size_t k = 0;
  while (k < r.size() && r[k] == ' ') ++k;
  size_t b = k;
  int64_t n;
  if (!read_number(r, k, &n, 7) || k + 1 >= r.size() || r[k] != ':' || r[k + 1] != ' ' || k <= b) return std::nullopt;
  p.task = static_cast<int>(n);
  return i + k + 2;
}

// torchrun's "[rank3]:" and "[default3]:" (the local rank).
Next torchrun_label(std::string_view s, size_t i, LinePrefix& p) {
  std::string_view r = s.substr(i);
  int64_t n;
  size_t j = 5;
  if (starts(r, "[rank") && read_number(r, j, &n, 7) && starts(r.substr(j), "]:")) {
    p.rank = static_cast<int>(n);
    return i + j + 2;
  }
  j = 8;
  if (starts(r, "[default") && read_number(r, j, &n, 4) && starts(r.substr(j), "]:")) {
    p.local_rank = static_cast<int>(n);
    return i + j + 2;
  }
  return std::nullopt;
}

// After a stamp, a machine's name before a colon or a level word: "[2025-03-14 09:41:07] gpu-node-9: ...",
// "2025-03-14 09:41:07,123 gpu-node-9 ERROR ..." (a logging format with the host in it).
size_t stamped_host(std::string_view s, size_t i, LinePrefix& p) {
  const size_t a = host_word_end(s, i);
  if (a == i || a + 1 >= s.size() || !stamped_machine(s.substr(i, a - i))) return i;
  size_t after = 0;
  if (s[a] == ':' && s[a + 1] == ' ') after = a + 2;
  else if (s[a] == ' ') {
    size_t e = s.find(' ', a + 1);
    if (e != std::string_view::npos && is_level_word(s.substr(a + 1, e - a - 1))) after = a + 1;
  }
  if (!after) return i;
  p.host = s.substr(i, a - i);
  if (std::string_view node = step_daemon_node(p.host); !node.empty()) p.host = node;
  return after;
}

// An MPI launcher's tag, or a host label (before any time: any machine's name; after one: a name
// stamped_machine accepts).
Next label(std::string_view s, size_t i, LinePrefix& p) {
  if (size_t after = launcher_label(s, i, p); after != i) return skip_blanks(s, after);
  if (p.host.empty() && !p.civil && !p.epoch && !p.mono)
    if (size_t after = host_label(s, i, p); after != i) return after;
  if (p.host.empty() && (p.civil || p.epoch))
    if (size_t after = stamped_host(s, i, p); after != i) return skip_blanks(s, after);
  return std::nullopt;
}

// Ray "(WorkerDict pid=26110) ", "(raylet, ip=10.0.0.7) ", "(Worker pid=1, ip=10.0.0.7) ": ip= is the node.
// Ray's own daemons forward without either: "(raylet) ", "(gcs_server) ".
Next ray_label(std::string_view s, size_t i, LinePrefix& p) {
  std::string_view r = s.substr(i);
  size_t close = r[0] == '(' ? r.find(')') : std::string_view::npos;
  if (close != std::string_view::npos && (r.substr(0, close + 1) == "(raylet)" || r.substr(0, close + 1) == "(gcs_server)"))
    return skip_blanks(s, i + close + 1);
  if (close == std::string_view::npos || (r.find("pid=") >= close && r.find("ip=") >= close)) return std::nullopt;
  if (size_t ip = r.find("ip="); ip < close) {
    size_t e = ip + 3;
    while (e < close && (is_digit(r[e]) || r[e] == '.' || r[e] == ':' || std::isxdigit(static_cast<unsigned char>(r[e])))) ++e;
    if (e > ip + 3) p.host = r.substr(ip + 3, e - ip - 3);
  }
  return skip_blanks(s, i + close + 1);
}

// UCX's "[host:pid:tid]" after its "[seconds.micros]" stamp, or "[host:pid:tid:tid]" before its signal
// handler's report ("[jedi063:22469:0:22472] Caught signal 11 ..."); the pid may be padded with blanks
// ("[daishan:9817 :0]"). The host is gethostname's, as NCCL's, so any host-name word counts.
Next ucx_ident(std::string_view s, size_t i, LinePrefix& p) {
  std::string_view r = s.substr(i);
  if (r.size() < 6 || r[0] != '[') return std::nullopt;
  size_t a = 1;
  while (a < r.size() && a <= kMaxHostName && host_char(r[a])) ++a;
  if (a == 1 || a >= r.size() || r[a] != ':') return std::nullopt;
  size_t b = a + 1;
  int64_t n;
  if (!read_number(r, b, &n)) return std::nullopt;
  while (b < r.size() && r[b] == ' ') ++b;
  int fields = 0;  // after the pid: the thread's number, and the signal handler's second one
  for (; fields < 2 && b < r.size() && r[b] == ':'; ++fields) {
    ++b;
    if (!read_number(r, b, &n)) return std::nullopt;
  }
  if (fields == 0 || b >= r.size() || r[b] != ']') return std::nullopt;
  std::string_view host = r.substr(1, a - 1);
  if (ascii_alnum(host[0]) && !redacted_host(host)) p.host = host;
  return skip_blanks(s, i + b + 1);
}

// A civil time seen: the first (outermost) stamp is the most reliable, so later ones do not replace it.
void saw(LinePrefix& p, const CivilTime& t) {
  if (!p.civil) p.civil = t;
  // A year-less outer stamp and an inner one of the same day with its year (a forwarder's syslog
  // stamp before a program's own): the inner one gives the year.
  else if (p.civil->year == 0 && t.year != 0 && t.month == p.civil->month && t.day == p.civil->day) p.civil->year = t.year;
}

// A raw syslog record as a collector or a forwarder writes it (only first on the line): the
// priority "<13>" before an RFC 3164 record (read next as a stamp of its own), or an RFC 5424 record
// "<34>1 2025-03-14T09:41:07.123Z host app procid msgid [sd] message", read here whole ("-" is a
// field left empty).
Next syslog_priority(std::string_view s, size_t i, LinePrefix& p) {
  if (i >= s.size() || s[i] != '<') return std::nullopt;
  size_t j = i + 1;
  int64_t pri = 0;
  if (!read_number(s, j, &pri, 3) || pri > 191 || j >= s.size() || s[j] != '>') return std::nullopt;
  ++j;
  if (s.substr(j, 2) != "1 ") return j;  // RFC 3164 after it
  j += 2;
  size_t used = 0;
  auto t = parse_iso8601(s.substr(j), &used);
  if (!t || j + used >= s.size() || s[j + used] != ' ') return std::nullopt;
  saw(p, *t);
  j += used + 1;
  auto field = [&]() {  // the next space-separated field
    size_t b = j, e = s.find(' ', j);
    if (e == std::string_view::npos) e = s.size();
    j = skip_blanks(s, e);
    return s.substr(b, e - b);
  };
  std::string_view host = field();
  if (host != "-" && host_like(host) && !redacted_host(host)) p.host = host;
  field(), field(), field();  // app, procid, msgid
  while (j < s.size() && s[j] == '[') {  // structured data elements
    size_t e = s.find("] ", j);
    if (e == std::string_view::npos) return s.size();
    j = skip_blanks(s, e + 1);
  }
  if (s.substr(j, 2) == "- ") j += 2;
  return j;
}

// A zone's abbreviation before a blank ("UTC ", "CEST "): its length, or 0. A known one only: a level or a
// program in capitals ("INFO", "NCCL") is the message's.
size_t zone_abbreviation(std::string_view r) {
  static constexpr std::string_view kZones[] = {"UTC", "GMT", "CET", "CEST", "EET", "EEST", "WET", "WEST", "BST", "IST",
                                                "PST", "PDT", "MST", "MDT", "CST", "CDT", "EST", "EDT", "JST", "KST",
                                                "HKT", "SGT", "AEST", "AEDT", "MSK"};
  size_t n = r.find(' ');
  if (n == std::string_view::npos || n < 3 || n > 4) return 0;
  return std::find(std::begin(kZones), std::end(kZones), r.substr(0, n)) != std::end(kZones) ? n : 0;
}

// Unbracketed stamps: Go's and Python's slash dates, date(1), ISO 8601 (a collector's stamp,
// journal short-iso, dmesg --time-format=iso; a syslog host and tag may follow), RFC 3164.
Next plain_stamp(std::string_view s, size_t i, LinePrefix& p) {
  std::string_view r = s.substr(i);
  CivilTime t;
  if (is_digit(r[0]))
    if (size_t used = slash_date(r, t)) {  // no host follows these stamps
      saw(p, t);
      return skip_blanks(s, i + used);
    }
  if (size_t used = date_output(r, t)) {
    saw(p, t);
    return skip_blanks(s, i + used);
  }
  if (is_digit(r[0])) {
    size_t used = 0;
    if (auto iso = parse_iso8601(r, &used)) {
      size_t j = skip_blanks(s, i + used);
      // A zone's abbreviation after the clock ("2025-03-14 09:41:07 UTC ..."): part of the stamp, no host.
      const size_t zone = zone_abbreviation(s.substr(j));
      if (std::string_view z = s.substr(j, zone); (z == "UTC" || z == "GMT") && !iso->utc_offset_s) iso->utc_offset_s = 0;
      saw(p, *iso);
      if (zone) j = skip_blanks(s, j + zone);
      // `kubectl logs --timestamps` before a Go program's glog header ("I0809 13:32:51.873541"):
      // the level and date are no host; the header is read next as a stamp of its own.
      if (CivilTime g; glog_time(s, j, g)) return j;
      // The container runtime's log file (CRI, /var/log/pods): "<time> stderr F <line>" (F a full
      // line, P part of one); the line's own prefix follows.
      std::string_view rest = s.substr(j);
      if ((starts(rest, "stdout ") || starts(rest, "stderr ")) && rest.size() > 9 && (rest[7] == 'F' || rest[7] == 'P') &&
          rest[8] == ' ')
        return skip_blanks(s, j + 9);
      // A CI runner's stamp (7 fractional digits) or kubectl's (9) comes before a program's own output,
      // never a syslog host and tag: in "<stamp> initializing ddp: GLOBAL_RANK: 0" the words are the
      // program's. Only a machine's name (with a digit) is still read there.
      if (fraction_digits(r.substr(0, used)) > 6 && !stamped_machine(s.substr(j, host_word_end(s, j) - j))) return j;
      return skip_blanks(s, syslog_host_tag(s, j, p));
    }
  }
  if (size_t j = syslog_date(r, t)) {
    if (j < r.size() && r[j] == ' ') {
      saw(p, t);
      return skip_blanks(s, syslog_host_tag(s, i + j + 1, p));
    }
    // A log exporter's UTC variant (Taskcluster's worker logs, via Papertrail): "Dec 17 16:03:58Z
    // host program message", the program without a colon.
    if (j < r.size() && r[j] == 'Z' && j + 1 < r.size() && r[j + 1] == ' ') {
      t.utc_offset_s = 0;
      saw(p, t);
      size_t k = syslog_host_tag(s, i + j + 2, p);
      return skip_blanks(s, k != i + j + 2 ? k : host_then_program(s, k, p));
    }
  }
  return std::nullopt;
}

// dmesg's "[   12.345678]" seconds since boot (or, ten digits long, Unix time).
Next dmesg_mono(std::string_view s, size_t i, LinePrefix& p) {
  std::string_view r = s.substr(i);
  size_t j = 1;
  while (j < r.size() && r[j] == ' ') ++j;
  int64_t sec, frac = 0;
  // "[" and blanks only: j is past the end. At most 12 digits: seconds * 10^6 must not overflow.
  if (j >= r.size() || !is_digit(r[j]) || !read_number(r, j, &sec, 12) || j >= r.size() || r[j] != '.') return std::nullopt;
  size_t fb = ++j;
  if (!read_number(r, j, &frac, 9) || j >= r.size() || r[j] != ']') return std::nullopt;
  size_t nd = j - fb;
  for (; nd < 6; ++nd) frac *= 10;
  for (; nd > 6; --nd) frac /= 10;
  // Ten digits of seconds is no uptime (31 years) but Unix time: UCX's "[1710409267.123456]
  // [host:pid:thread]" and loggers that print %(created)f.
  constexpr int64_t kUnixTimeFrom = 1'000'000'000;  // 2001-09-09
  if (sec >= kUnixTimeFrom) p.epoch = sec * kMicrosPerSecond + frac;
  else p.mono = sec * kMicrosPerSecond + frac;
  return skip_blanks(s, i + j + 1);
}

// Bracketed stamps: dmesg's seconds, ISO (NCCL "[2025-11-09 07:39:30] ", Talos "[...Z]:"), dmesg -T
// "[Sun Feb 23 16:24:18 2025]", Fabric Manager "[Jul 19 2025 18:34:57]".
Next bracketed_stamp(std::string_view s, size_t i, LinePrefix& p) {
  std::string_view r = s.substr(i);
  if (r[0] != '[' || r.size() <= 3) return std::nullopt;
  if (auto next = dmesg_mono(s, i, p)) return next;
  size_t used = 0;
  if (auto iso = parse_iso8601(r.substr(1), &used); iso && 1 + used < r.size()) {
    if (r[1 + used] == ']') {
      saw(p, *iso);
      size_t k = i + used + 2;
      if (k < s.size() && s[k] == ':') ++k;
      return skip_blanks(s, k);
    }
    // A full date and time, then the logger's tags before ']': SGLang's "[2025-02-23 06:02:12 TP1]",
    // Ray's C++ core "[2023-10-10 12:00:00,000 E 1234 1234]".
    constexpr size_t kMaxTags = 32;
    size_t close = used >= kDateAndClock && r[1 + used] == ' ' ? r.find(']', 1 + used) : std::string_view::npos;
    if (close != std::string_view::npos && close - used <= kMaxTags && r.substr(1 + used, close - used).find('[') == std::string_view::npos) {
      saw(p, *iso);
      return skip_blanks(s, i + close + 1);
    }
  }
  CivilTime t;
  size_t end = bracketed_month_stamp(r, 5, false, t);
  if (!end) end = bracketed_month_stamp(r, 1, true, t);
  if (!end) return std::nullopt;
  saw(p, t);
  return skip_blanks(s, i + end);
}

// glog's "E0813 08:21:22.980000 1245483 file.py:984] ", bracketed or not: its time is read, and the
// stamp stays in the message (its level letter and source location say what the line is).
bool glog_stamp(std::string_view r, LinePrefix& p) {
  CivilTime t;
  if ((r[0] == '[' && r.size() > 3 && glog_time(r, 1, t)) || glog_time(r, 0, t)) {
    saw(p, t);
    return true;
  }
  return false;
}

// A level word, then the time: vLLM's "ERROR 03-14 09:41:07 [core.py:123] " (month-day, no year)
// and Python logging's "INFO 2025-03-14 09:41:07,123 ". The time is read and the line kept whole,
// as glog's: the level and location are the message's.
bool level_stamp(std::string_view r, LinePrefix& p) {
  size_t sp = r.find(' ');
  if (sp == std::string_view::npos || !is_level_word(r.substr(0, sp))) return false;
  std::string_view t = r.substr(sp + 1);
  size_t used = 0;
  if (auto iso = parse_iso8601(t, &used); iso && used >= kDateAndClock) {
    saw(p, *iso);
    return true;
  }
  CivilTime c;
  if (!month_day_clock(t, c)) return false;
  saw(p, c);
  return true;
}

}  // namespace

LinePrefix parse_prefix_at(std::string_view s) {
  LinePrefix p;
  if (!s.empty() && s[0] == '{') return json_record_prefix(s, parse_prefix_at);
  if (logfmt_record(s)) return logfmt_record_prefix(s, parse_prefix_at);
  size_t i = 0;
  bool first = true;  // srun's label is the line's first prefix, or the first after a viewer's column
  for (int guard = 0; guard < 8 && i < s.size(); ++guard) {
    Next next = guard == 0 ? viewer_column(s, i, p) : std::nullopt;
    if (next) {
      i = *next;
      continue;
    }
    if (first) next = syslog_priority(s, i, p);
    if (first && !next) next = kube_event_row(s, i, p);
    if (first && !next) next = srun_task(s, i, p);
    first = false;
    if (!next) next = torchrun_label(s, i, p);
    if (!next) next = label(s, i, p);
    if (!next) next = ray_label(s, i, p);
    if (!next) next = plain_stamp(s, i, p);
    if (!next) next = bracketed_stamp(s, i, p);
    if (!next && p.host.empty()) next = ucx_ident(s, i, p);
    if (!next && i > 0) next = loki_labels(s, i, p);
    if (next) {
      i = *next;
      continue;
    }
    if (glog_stamp(s.substr(i), p) || level_stamp(s.substr(i), p)) break;
    if (nccl_ident(s, i, p)) continue;
    break;
  }
  p.message_offset = i;
  return p;
}

}  // namespace attribution

#include "core/scan/scan.hpp"
#include "core/scan/shown_text.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <re2/re2.h>
#include <set>
#include <tuple>

#include "core/base/text.hpp"
#include "core/scan/host_hints.hpp"
#include "core/base/identity.hpp"
#include "core/base/parallel.hpp"
#include "core/scan/line_prefix.hpp"
#include "core/scan/block_lines.hpp"
#include "core/rules/literal_search.hpp"
#include "core/scan/year_anchor.hpp"
#include "core/scan/file_bytes.hpp"
#include "core/scan/evidence.hpp"
#include "core/scan/file_times.hpp"
#include "core/scan/error_words.hpp"
#include "core/scan/file_scan.hpp"
#include "core/scan/paste_hosts.hpp"
#include "core/scan/scan_inputs.hpp"

namespace attribution {
namespace {

constexpr uint64_t kTuneFrom = uint64_t(16) << 20;

constexpr size_t kReleaseStep = size_t(1) << 20;  // the prefilter's window; pages behind it are released
constexpr size_t kPrintedCopyMax = size_t(256) << 20;  // a file with a viewer's marks is copied up to this size

class FileScanner {
 public:
  FileScanner(const InputFile& file, int64_t file_index, const SourceRuntime& src, const Matcher& m,
              const LiteralSearch* search, const Workload& w, const JobYear& year, bool record, size_t max_findings,
              ReadBuffer* read_buffer, bool measure)
      : measure_(measure), file_(file), file_index_(file_index), src_(src), m_(m), search_(search), w_(w), job_year_(year.anchor), year_floor_(year.floor),
        record_(record && !file.text && !file.extract), max_findings_(max_findings), read_buffer_(read_buffer) {
    ctx_.zone = src.zone;
    ctx_.boot = src.boot_time;
    stream_ = src.stream;
    if (src.syslog_by_file_name && is_system_log_name(file.path)) stream_ = Stream::syslog;
    if (file.stream) stream_ = *file.stream;
  }

  FileScanner(const FileScanner&) = delete;  // message_ refers to this object
  FileScanner& operator=(const FileScanner&) = delete;

  FileScan run() {
    FileScan out;
    std::optional<FileBytes> bytes;  // the file's bytes, while it is read (none for inline text or a replay)
    const std::optional<std::string_view> text = open_text(out, bytes);
    if (!text) return out;
    read_as_printed(*text, bytes);
    listing_unread_ = lists_unread(out);
    scan_lines(out);
    scan_tail(out);
    settle_evidence(out);
    share_host_in_paste(out);
    name_hosts(out);
    list_unread(out);
    if (record_) out.extract = recorded_extract(window_line_starts(buf_, *times_, w_.window_known ? &w_.window : nullptr), out);
    out.year_inferred = times_->year_guessed();
    return out;
  }

 private:
  // The file's text: inline, a replay's extract, or its bytes (read into `bytes`); nothing when it
  // could not be read or is binary, with `out` saying why.
  std::optional<std::string_view> open_text(FileScan& out, std::optional<FileBytes>& bytes) {
    std::string_view buf;
    if (file_.text) {
      buf = *file_.text;
      out.bytes = static_cast<int64_t>(buf.size());
    } else if (file_.extract) {
      const FileExtract& x = *file_.extract;
      out.bytes = x.bytes;
      out.problem = x.problem;
      out.failed = x.failed;
      if (x.failed) return std::nullopt;
      buf = x.text;
    } else {
      auto opened = FileBytes::open(file_.path, kInflateInMemory, read_buffer_);
      if (!opened) {
        out.failed = true;
        out.problem = fmt::format("{}: {}", file_.path, opened.error().message);
        if (record_) out.extract = recorded_extract({}, out);
        return std::nullopt;
      }
      bytes.emplace(std::move(opened.value()));
      out.bytes = bytes->stored_bytes();
      if (!bytes->damage().empty()) out.problem = fmt::format("{}: partly read, {}", file_.path, bytes->damage());
      buf = bytes->view();
    }
    if (!file_.extract && looks_binary(buf)) {
      out.failed = true;
      out.problem = fmt::format("{}: skipped, binary content", file_.path);
      if (record_) out.extract = recorded_extract({}, out);
      return std::nullopt;
    }
    return buf;
  }

  // What the scan reads from here: `text`, or a copy with a viewer's marks (colour codes, typography)
  // undone; not for a file so large that the copy would break the flat memory (a colour log of
  // gigabytes). The file's line times are read from the same text.
  void read_as_printed(std::string_view text, std::optional<FileBytes>& bytes) {
    if (auto printed = text.size() <= kPrintedCopyMax ? printed_text(text) : std::nullopt) {
      printed_ = std::move(*printed);
      text = printed_;
      bytes.reset();  // the copy is read from now on (nothing of the original's pages to release)
    }
    set_year_context();
    buf_ = text;
    times_.emplace(buf_, ctx_, job_year_.has_value(), w_.start ? w_.window.start : kTimeUnknown,
                   [this](size_t pos) { return origin(pos); }, [this](size_t pos) { touch(pos); });
    bytes_ = bytes ? &*bytes : nullptr;
  }

  // Every line holding a literal: verified, and each rule it matches emitted.
  void scan_lines(FileScan& out) {
    size_t pos = 0;
    std::vector<int> hits, blocks;
    std::vector<std::map<std::string, std::string>> groups;  // each hit's captures, from verify
    size_t hit = 0;  // where the candidate line's first literal starts
    while ((pos = next_candidate(buf_, pos, &hit)) != std::string_view::npos) {
      count_lines_to(pos);
      std::string_view line = line_at(buf_, pos);
      line.remove_prefix(paste_markers(line));  // a paste's quote markers or line number: rules read the line as printed
      const size_t at = static_cast<size_t>(line.data() - buf_.data());
      verify(pos, line, hit > at ? hit - at : 0, &hits, &blocks, &groups, out);
      if (!hits.empty() || !blocks.empty()) {
        ++out.matching;
        LinePrefix prefix = times_->prefix_at(pos);
        int64_t line_no = file_.extract ? file_.extract->origin_line(pos, counted_lines_) : counted_lines_ + 1;
        touch(pos);
        for (size_t i = 0; i < hits.size(); ++i) emit(hits[i], line, line, pos, line_no, prefix, out, &groups[i]);
        for (int r : blocks) emit_block(r, line, pos, line_no, prefix, out);
      }
      size_t eol = buf_.find('\n', pos);
      if (eol == std::string_view::npos) break;
      pos = eol + 1;
    }
  }

  // A multi-line rule's block from the line at `pos`, emitted when one of its readings matches.
  void emit_block(int r, std::string_view line, size_t pos, int64_t line_no, const LinePrefix& prefix, FileScan& out) {
    std::map<std::string, std::string> caps;
    if (auto block = matching_block(r, pos, &caps)) {
      for (size_t p : block_starts_) mark_read(p);  // every line of the block the rule read
      emit(r, line, *block, pos, line_no, prefix, out, &caps);
    }
  }

  // The next line at or after `from` (a line start) holding a literal. The prefilter searches a
  // window at a time, overlapping by the longest literal, and the mapping's pages behind the
  // window are released: resident memory stays flat whatever the file's size. `hit`: where the
  // line's first literal starts (none starts before it).
  size_t next_candidate(std::string_view buf, size_t from, size_t* hit) {
    while (from < buf.size()) {
      if (bytes_ && from > released_ + kReleaseStep) {
        released_ = from - kReleaseStep / 4;  // a time anchor may look back a little
        count_lines_to(released_);            // before the pages go, not after (that would map them again)
        bytes_->release(released_);
      }
      size_t end = std::min(buf.size(), from + kReleaseStep);
      size_t c = m_.next_candidate_line(buf.substr(0, end), from, search_, hit);
      if (c != std::string_view::npos) {
        // The line's own start: a later window's `from` may be mid-line. The first `from` is a
        // line start after every line already scanned, so this never goes back to one of them.
        return line_start(buf, c);
      }
      if (end == buf.size()) return std::string_view::npos;
      from = end - std::min(m_.longest_literal(), kReleaseStep / 2);  // rules cap literals far below this
    }
    return std::string_view::npos;
  }

  // `line` starts at or after `pos` (past a quote's markers); no literal starts before its offset
  // `first_literal` (the prefilter's hit).
  void verify(size_t pos, std::string_view line, size_t first_literal, std::vector<int>* hits, std::vector<int>* blocks,
              std::vector<std::map<std::string, std::string>>* groups, FileScan& out) {
    ++out.candidates;
    // What follows the line's prefixes (a launcher's label, a viewer's column, a stamp), for rules
    // anchored at the start of what the program printed.
    verifying_ = {pos, line};
    if (!measure_) return m_.line_rules(line, stream_, hits, blocks, groups, &message_, first_literal);
    auto t0 = std::chrono::steady_clock::now();
    m_.line_rules(line, stream_, hits, blocks, groups, &message_, first_literal);
    out.verify_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  }

  // Line numbers: the newlines before `pos` are counted once, as the scan passes them.
  void count_lines_to(size_t pos) {
    if (pos <= counted_pos_) return;
    counted_lines_ += count_byte(buf_.substr(counted_pos_, pos - counted_pos_), '\n');
    counted_pos_ = pos;
  }

  // Tail rules (per-call traces): in the last kTailWindow bytes of a file, each process's last
  // matching line, read from the end back until kTailPatience candidate lines in a row name no new
  // process (or kTailLines were read). A million trace lines cost a few dozen matches, not a
  // million, and a file without the rule's literal costs one forward search of its tail: the pages
  // the forward pass released stay released.
  static constexpr size_t kTailWindow = size_t(4) << 20;
  static constexpr int kTailPatience = 32;
  static constexpr size_t kTailLines = 4096;

  // The start of the last line in the file's tail window that begins before `limit` and holds one
  // of the rule's literals, or npos. Read from the end back, a step per line: a file of a million
  // trace lines costs the few dozen the tail reads, not a search of its whole tail.
  size_t tail_candidate_before(const Rule& rule, size_t limit) const {
    const size_t from = buf_.size() > kTailWindow ? buf_.size() - kTailWindow : 0;
    size_t best = std::string_view::npos;
    for (const auto& lit : rule.literals) {
      if (limit <= from || lit.size() > buf_.size()) continue;
      size_t h = buf_.rfind(lit, limit - 1);
      if (h != std::string_view::npos && h >= from && (best == std::string_view::npos || h > best)) best = h;
    }
    if (best == std::string_view::npos) return best;
    return line_start(buf_, best);
  }

  void scan_tail(FileScan& out) {
    for (int r : m_.tail_rules()) {
      const Rule& rule = m_.rules().rules[r];
      if (!rule.reads_stream(stream_)) continue;
      std::vector<size_t> starts;  // each process's last matching line
      std::set<std::tuple<std::string_view, int64_t, int>> seen;
      int misses = 0;
      size_t limit = buf_.size();
      for (size_t read = 0; misses < kTailPatience && read < kTailLines; ++read) {
        size_t at = tail_candidate_before(rule, limit);
        if (at == std::string_view::npos) break;
        limit = at;
        std::string_view line = line_at(buf_, at);
        std::map<std::string, std::string> caps;
        LinePrefix prefix = parse_line_prefix(line);
        bool fresh = m_.captures(r, line.substr(prefix.paste_markers), &caps) && seen.emplace(prefix.host, prefix.pid, prefix.rank).second;
        if (fresh) starts.push_back(at);
        misses = fresh ? 0 : misses + 1;
        if (at == 0) break;
      }
      std::sort(starts.begin(), starts.end());
      for (size_t start : starts) emit_at(r, start, out);
    }
  }

  // Emits rule `r` on the line at `start`, out of the forward order: its line number comes from the
  // forward pass's count (the pages before it may be released).
  void emit_at(int r, size_t start, FileScan& out) {
    int64_t lines = start >= counted_pos_
                        ? counted_lines_ + count_byte(buf_.substr(counted_pos_, start - counted_pos_), '\n')
                        : counted_lines_ - count_byte(buf_.substr(start, counted_pos_ - start), '\n');
    std::string_view line = line_at(buf_, start);
    int64_t line_no = file_.extract ? file_.extract->origin_line(start, lines) : lines + 1;
    touch(start);
    LinePrefix prefix = parse_line_prefix(line);
    line.remove_prefix(prefix.paste_markers);
    emit(r, line, line, start, line_no, prefix, out);
  }

  void touch(size_t pos) {
    if (record_) touched_.push_back(pos);
  }

  std::shared_ptr<FileExtract> recorded_extract(std::vector<size_t> keep, const FileScan& out) {
    keep.insert(keep.end(), touched_.begin(), touched_.end());
    auto x = std::make_shared<FileExtract>(make_extract(buf_, std::move(keep)));
    x->bytes = out.bytes;
    x->problem = out.problem;
    x->failed = out.failed;
    x->mtime = file_mtime();
    return x;
  }

  std::optional<Micros> file_mtime() const {
    if (file_.extract) return file_.extract->mtime;
    if (file_.text) return std::nullopt;
    std::error_code ec;
    auto mtime = std::filesystem::last_write_time(file_.path, ec);
    if (ec) return std::nullopt;
    auto sys = std::chrono::file_clock::to_sys(mtime);
    return std::chrono::duration_cast<std::chrono::microseconds>(sys.time_since_epoch()).count();
  }

  // Distances between lines are measured in the original file, also when replaying an extract.
  int64_t origin(size_t pos) const {
    return file_.extract ? file_.extract->origin_offset(pos) : static_cast<int64_t>(pos);
  }

  // The job's anchor when it has one; else the file's modification time. Either way no year-less
  // stamp lands after the file was last written or after the window's end.
  void set_year_context() {
    std::optional<Micros> mtime = file_mtime();
    ctx_.year_anchor = job_year_ ? *job_year_ : year_floor_ ? *year_floor_ : mtime.value_or(0);
    ctx_.year_floor = year_floor_;
    constexpr Micros kZoneSlack = 24 * 3600 * kMicrosPerSecond;  // local stamps against a UTC mtime
    if (mtime) ctx_.year_cap = *mtime + kZoneSlack;
    // After the window's end by more than a month is another year's date; a line hours after it is a
    // clock that runs ahead, and must stay in the window's year to be reported as such.
    constexpr Micros kWindowSlack = 31 * 24 * 3600 * kMicrosPerSecond;
    if (w_.end) ctx_.year_cap = std::min(ctx_.year_cap.value_or(w_.window.end + kWindowSlack), w_.window.end + kWindowSlack);
  }

  // A block rule's lines from `pos` as joined, or read the other ways a paste may show them: without
  // the stamp before every line (a CI log's, a collector's), then flush left (a block pasted indented: a
  // code block, a reply) without the stamps and with them (a glog line's stamp is part of what its block
  // pattern reads). The first reading that matches; each is tried once, the later ones only when needed.
  std::optional<std::string> matching_block(int r, size_t pos, std::map<std::string, std::string>* caps) {
    const int lines = m_.rules().rules[r].lines;
    std::string block = join_block(pos, lines);
    if (m_.captures(r, block, caps)) return block;
    std::string bare = join_block(pos, lines, true);
    const bool stamped = bare != block;
    if (stamped && m_.captures(r, bare, caps)) return bare;
    if (auto flush = without_common_indent(bare); flush && m_.captures(r, *flush, caps)) return flush;
    if (stamped)
      if (auto flush = without_common_indent(block); flush && m_.captures(r, *flush, caps)) return flush;
    return std::nullopt;
  }

  std::string join_block(size_t start, int lines, bool messages = false) {
    block_starts_.clear();
    std::string out = join_block_lines(buf_, start, lines, &block_starts_, messages);
    for (size_t p : block_starts_) touch(p);
    return out;
  }

  // A line that names no machine: the machine its collector found the file under ({host}), else the
  // shell prompt or "Node:" it was pasted under, else the host the file declares (the kernel's own
  // hostname record), else the one its path names.
  std::string_view host_around(size_t pos) {
    if (file_.host_certain && !file_.host_hint.empty()) return file_.host_hint;
    if (!hosts_) hosts_.emplace(buf_);
    size_t at = 0;
    std::string_view h = hosts_->section_at(pos, &at);
    if (h.empty()) h = hosts_->declared(&at);
    if (h.empty()) return file_.host_hint;
    touch(at);
    return h;
  }

  // srun --label's task id names a node only through the job's layout (task t on nodes[t / tpn]);
  // then it is also the rank (one task per rank). Without a layout it is neither.
  std::string_view node_of_task(int task) const {
    const bool by_layout = task >= 0 && w_.tasks_per_node && *w_.tasks_per_node > 0 &&
                           static_cast<size_t>(task / *w_.tasks_per_node) < w_.nodes.size();
    return by_layout ? std::string_view(w_.nodes[static_cast<size_t>(task / *w_.tasks_per_node)]) : std::string_view();
  }

  // The machine a line ran on when no rule captured one: its prefix's, the task's node, else the
  // machine around it (host_around).
  std::string machine_of_line(size_t pos, const LinePrefix& prefix) {
    // Inside a container NCCL's prefix names the container (Docker's default hostname is its id): the
    // machine the file or the prompt names is the better answer when there is one.
    std::string_view line_host = prefix.host;
    if (!line_host.empty() && !file_.local_name.empty() && short_host(line_host) == short_host(file_.local_name))
      line_host = file_.host_hint;
    if (is_container_id(line_host))
      if (std::string_view around = host_around(pos); !around.empty()) line_host = around;
    const std::string_view task_node = node_of_task(prefix.task);
    return short_host(!line_host.empty() ? line_host : !task_node.empty() ? task_node : host_around(pos));
  }

  // The rank a line's prefix gives (a launcher's label, the task under a layout), else its file's.
  int rank_of_line(const LinePrefix& prefix) const {
    return prefix.rank >= 0 ? prefix.rank : !node_of_task(prefix.task).empty() ? prefix.task : file_.rank_hint;
  }

  // `groups`: the captures verify already read on `text`, else they are read here.
  void emit(int rule, std::string_view line, std::string_view text, size_t pos, int64_t line_no,
            const LinePrefix& prefix, FileScan& out, std::map<std::string, std::string>* groups = nullptr) {
    Finding f;
    f.rule = rule;
    f.file = file_index_;
    if (groups) {
      f.fields = std::move(*groups);
      if (!when_holds(m_.rules().rules[rule], f.fields)) return;
    } else if (!m_.captures(rule, text, &f.fields)) {
      return;
    }
    mark_read(pos);
    std::optional<Micros> t;
    if (auto it = f.fields.find("time"); it != f.fields.end()) {
      if (auto c = parse_iso8601(it->second)) t = c->utc_offset_s ? civil_to_micros_utc(*c) - Micros(*c->utc_offset_s) * kMicrosPerSecond
                                                                 : times_->context().zone.to_utc(*c);
    }
    if (!t) t = times_->time_of(prefix);
    f.time_inferred = !t;
    f.first_seen = f.last_seen = t ? *t : times_->inferred_time(pos);
    std::string h = field_of(f, "host");
    if (redacted_host(h)) h.clear();  // "on SERVER_NAME": the paste hid the machine
    f.host = !h.empty() ? short_host(h) : machine_of_line(pos, prefix);
    f.host_named = !h.empty();
    if (f.host.empty() && text.size() == line.size())
      if (std::string wrapped = host_past_wrap(rule, line, prefix.message_offset); !wrapped.empty())
        f.host = short_host(wrapped), f.host_named = true;
    f.task = prefix.task;
    std::string r = field_of(f, "rank");
    f.rank = !r.empty() ? std::atoi(r.c_str()) : rank_of_line(prefix);
    std::string g = field_of(f, "gpu");
    // NCCL's "[dev]" is the process's CUDA ordinal (0 for every rank under CUDA_VISIBLE_DEVICES),
    // so the GPU comes from the process's own init line, joined on host and pid (timeline).
    f.gpu = !g.empty() ? std::atoi(g.c_str()) : -1;
    // A captured pid (the Xid line's process) names the GPU's user; the prefix names the printer.
    std::string pid = field_of(f, "pid");
    f.pid = !pid.empty() ? std::atoll(pid.c_str()) : prefix.pid;
    if (std::string pci = field_of(f, "pci"); !pci.empty()) f.pci = normalize_pci(pci);
    if (std::string bus = field_of(f, "busid"); f.pci.empty() && !bus.empty()) f.pci = pci_from_nccl_busid(bus);
    if (std::string peer = field_of(f, "peer"); !peer.empty()) f.peer = peer_host(peer);
    // A reverse-DNS answer names the address backwards ("247.3.148.10.in-addr.arpa"): the address.
    if (std::string rev = field_of(f, "rev_ip"); !rev.empty()) f.fields["ip"] = reversed_ipv4(rev);
    // A step time joins the finding's series (milliseconds), whichever unit the line used.
    if (std::string ms = field_of(f, "step_ms"); !ms.empty()) add_to_series(f, std::strtof(ms.c_str(), nullptr));
    else if (std::string sec = field_of(f, "step_s"); !sec.empty()) add_to_series(f, 1000.0f * std::strtof(sec.c_str(), nullptr));
    else if (std::string rate = field_of(f, "samples_per_sec"); !rate.empty())  // a rate: its inverse grows as steps slow
      if (float r = std::strtof(rate.c_str(), nullptr); r > 0) add_to_series(f, 1000.0f / r);
    if (t && w_.window_known && !w_.window.contains(*t)) {
      Micros d = *t < w_.window.start ? *t - w_.window.start : *t - w_.window.end;
      out.outside[f.host].add(1, d, *t);
      return;
    }
    // A burst folds here already, so memory grows with distinct findings, not with repeated lines
    // (800,000 identical Xid lines are one finding); the timeline folds again across files.
    auto key = std::make_tuple(f.rule, f.host, f.pci, f.gpu, f.rank, f.peer, f.pid, f.time_inferred);
    if (auto it = last_.find(key); it != last_.end()) {
      const size_t at = it->second;
      Finding& p = out.findings[at];
      if (continues_burst(p, f, m_.rules().rules[rule].burst)) {
        // A burst keeps its first and last lines as evidence: a later line only replaces the last,
        // so its evidence is written once the burst is over, not for every line of it.
        PendingEvidence& e = pending_[at];  // assigned field by field: its strings' buffers are reused
        if (text.size() == line.size()) e.block.clear();
        else e.block.assign(text);
        e.line.assign(line);
        e.line_no = line_no;
        e.time = f.first_seen;
        e.time_inferred = f.time_inferred;
        e.host.assign(f.host);
        e.rank = f.rank;
        e.captures = std::move(f.fields);
        if (p.evidence.size() < 2) p.evidence.emplace_back();
        f.evidence.clear();
        fold_into(p, std::move(f));
        return;
      }
    }
    f.evidence.push_back(evidence(PendingEvidence{text.size() == line.size() ? std::string() : std::string(text), std::string(line),
                                                  line_no, f.first_seen, f.time_inferred, f.host, f.rank, f.fields}));
    for (auto it = f.fields.begin(); it != f.fields.end();) it = kept_capture(it->first) ? std::next(it) : f.fields.erase(it);
    if (out.findings.size() >= max_findings_) {  // a memory bound against hostile input
      ++out.not_kept;
      return;
    }
    last_[key] = out.findings.size();
    out.findings.push_back(std::move(f));
  }

  Evidence evidence(const PendingEvidence& p) const { return make_evidence(p, src_.name, file_.path); }

  // A terminal wraps a long line where its width ends, and a paste keeps the break: the machine a
  // rule captures ("... at node (ID: ..., IP: 10.0.0.7)") may sit on the next line. Tried only for
  // a finding that has no machine otherwise, with the two lines joined as the terminal split them.
  // When every line of the paste is wrapped alike (srun -l's "3: ", a quote's "> ", a CI stamp), the
  // continuation carries the wrapper too and is read without it: its prefixes when they name no
  // machine, else as many bytes as the first line's prefixes took (`wrapper`, from its line start) when
  // its own reach that far (an unwrapped continuation "node7.cluster: Resource ..." keeps its first word).
  std::string host_past_wrap(int rule, std::string_view line, size_t wrapper) {
    size_t next = static_cast<size_t>(line.data() - buf_.data()) + line.size();  // line may start after quote markers
    if (!m_.rules().rules[rule].regex().NamedCapturingGroups().count("host") || next >= buf_.size()) return {};
    if (buf_[next] == '\r') ++next;
    if (next >= buf_.size() || buf_[next] != '\n' || next + 1 >= buf_.size()) return {};
    std::string_view continuation = line_at(buf_, next + 1);
    touch(next + 1);  // read either way: a replay must see the same next line
    const LinePrefix own = parse_line_prefix(continuation);
    if (own.host.empty()) continuation.remove_prefix(std::min(continuation.size(), own.message_offset));
    else if (wrapper > 0 && own.message_offset >= wrapper) continuation.remove_prefix(wrapper);
    std::string joined = std::string(line) + std::string(continuation);
    std::map<std::string, std::string> caps;
    if (!m_.captures(rule, joined, &caps)) return {};
    auto it = caps.find("host");
    if (it == caps.end() || it->second.empty() || redacted_host(it->second)) return {};
    return it->second;
  }

  // Pasted excerpts are small; a collected log names its machine in its path or its lines.
  static constexpr size_t kNamedHostsBytes = size_t(1) << 20;

  // A small file whose machine its collector did not give: a pasted excerpt. The file's own size, not
  // the buffer's: a replay reads only the recorded extract of it.
  bool pasted_excerpt(const FileScan& out) const {
    return !file_.host_certain && out.bytes <= static_cast<int64_t>(kNamedHostsBytes);
  }

  // A pasted excerpt's findings printed without a machine take the one its other findings name.
  void share_host_in_paste(FileScan& out) {
    if (pasted_excerpt(out)) share_only_host(out.findings);
  }

  void name_hosts(FileScan& out) {
    if (!pasted_excerpt(out)) return;
    for (const Finding& f : out.findings)
      if (!f.host.empty()) return;
    if (!hosts_) hosts_.emplace(buf_);
    std::vector<size_t> where;
    for (std::string_view h : hosts_->named(&where)) out.named_hosts.emplace(short_host(h));
    for (size_t at : where) touch(at);
    if (out.named_hosts.empty()) name_prefix_hosts(out);
  }

  // The machines this file's stamped line prefixes name (a syslog header beside the hardware's own
  // log copied alone): a paste's fault line printed without a machine ran there when it is the only
  // one (merge_file_scans decides). Not in a file that names its machine by a prompt or a
  // declaration: there the prefixes' names are aliases of it ("ssh gpu-a-01" above the journal of
  // "ip-10-0-0-7"). The text is bounded too (a small .gz can inflate far), and two names end the walk.
  void name_prefix_hosts(FileScan& out) {
    if (buf_.size() > kNamedHostsBytes) return;
    for_each_line(buf_, [&](size_t pos, std::string_view line) {
      const LinePrefix prefix = parse_line_prefix(line);
      const bool stamped = prefix.civil || prefix.epoch;  // "word: text" alone is too often not a machine
      if (stamped && !prefix.host.empty() && !is_container_id(prefix.host) &&
          out.prefix_hosts.emplace(short_host(prefix.host)).second)
        touch(pos);
      return out.prefix_hosts.size() < 2;
    });
  }

  // A rule read the line starting at `pos`: it is not listed as unread.
  void mark_read(size_t pos) {
    if (listing_unread_ && (rule_read_starts_.empty() || rule_read_starts_.back() != pos)) rule_read_starts_.push_back(pos);
  }

  // Whether this file's unread error lines are listed: a pasted excerpt read as it is. Not scheduler
  // facts given as text (the tool's own words), nor a compressed file (a small .gz can inflate far:
  // its text, not its stored size, would have to be bounded, and a replay sees only the extract).
  bool lists_unread(const FileScan& out) const {
    return !file_.text && pasted_excerpt(out) && !file_.path.ends_with(".gz");
  }

  // The last few lines that read like errors and that no rule read, a repeated message kept once (at
  // its last): a report with no finding lists them, so the line that matters is not lost when no rule
  // knows it (a paste ends where the job died). Lines dated outside the window are not the job's.
  static constexpr size_t kUnreadPerFile = 4;

  void list_unread(FileScan& out) {
    if (!listing_unread_) return;
    std::sort(rule_read_starts_.begin(), rule_read_starts_.end());
    struct Unread {
      size_t pos;
      std::string_view line;  // past a paste's markers
      LinePrefix prefix;
      std::optional<Micros> time;
      std::string_view message;  // past its prefixes (stamp, host, label): what a repeat repeats
    };
    std::vector<Unread> kept;
    for_each_line(buf_, [&](size_t pos, std::string_view raw) {
      std::string_view line = raw.substr(paste_markers(raw));
      if (!looks_like_error(line) || std::binary_search(rule_read_starts_.begin(), rule_read_starts_.end(), pos)) return true;
      Unread u{pos, line, times_->prefix_at(pos), std::nullopt, {}};
      u.time = times_->time_of(u.prefix);
      if (u.time && w_.window_known && !w_.window.contains(*u.time)) return true;
      u.message = raw.substr(std::min(raw.size(), std::max(u.prefix.message_offset, raw.size() - line.size())));
      std::erase_if(kept, [&](const Unread& k) { return k.message == u.message; });
      if (kept.size() == kUnreadPerFile) kept.erase(kept.begin());
      kept.push_back(u);
      return true;
    });
    size_t counted = 0;
    int64_t before = 0;  // newlines before `counted`
    for (const Unread& u : kept) {
      touch(u.pos);  // a replay reads the same lines
      before += count_byte(buf_.substr(counted, u.pos - counted), '\n');
      counted = u.pos;
      const int64_t line_no = file_.extract ? file_.extract->origin_line(u.pos, before) : before + 1;
      out.unread.push_back(evidence(PendingEvidence{{}, std::string(u.line), line_no,
                                                    u.time ? *u.time : times_->inferred_time(u.pos), !u.time,
                                                    machine_of_line(u.pos, u.prefix), rank_of_line(u.prefix), {}}));
    }
  }

  // The last lines of bursts, written as evidence once the file is read.
  void settle_evidence(FileScan& out) {
    for (auto& [at, p] : pending_) out.findings[at].evidence.back() = evidence(p);
    pending_.clear();
  }

  bool measure_;
  const InputFile& file_;
  int64_t file_index_;
  const SourceRuntime& src_;
  const Matcher& m_;
  const LiteralSearch* search_ = nullptr;  // the prefilter tuned to this input
  const Workload& w_;
  std::optional<Micros> job_year_;  // where year-less stamps go: the window's or the logs' own time
  std::optional<Micros> year_floor_;  // the latest kernel/driver build date the logs print
  TimeContext ctx_;  // what the file's times are read with (set_year_context)
  std::optional<FileTimes> times_;  // the file's line times, while run() reads it
  Stream stream_ = Stream::applog;
  std::string_view buf_;
  bool record_;
  size_t max_findings_;
  ReadBuffer* read_buffer_;  // this thread's, for small plain files
  std::string printed_;      // the file with a viewer's marks undone, when it had any
  // The line being verified (its start, and its text past any quote markers) and its message, for
  // anchored rules: built once per file (a std::function per line would allocate per line).
  std::pair<size_t, std::string_view> verifying_;
  const std::function<std::string_view()> message_ = [this] {
    const auto [pos, line] = verifying_;
    const size_t at = pos + times_->prefix_at(pos).message_offset;
    const size_t begin = static_cast<size_t>(line.data() - buf_.data());
    std::string_view m = at > begin && at < begin + line.size() ? line.substr(at - begin) : line;
    return m.substr(std::min(m.size(), m.find_first_not_of(" \t")));  // an indented paste's
  };
  size_t released_ = 0;  // the mapping's pages before this were released
  size_t counted_pos_ = 0;
  int64_t counted_lines_ = 0;  // newlines in [0, counted_pos_)
  FileBytes* bytes_ = nullptr;  // the file's bytes, while run() reads them (null for inline text)
  std::vector<size_t> touched_;  // recording: starts of the lines the scan read for its findings
  std::optional<FileHosts> hosts_;  // section and declared hosts, found when a line names none
  std::map<std::tuple<int, std::string, std::string, int, int, std::string, int64_t, bool>, size_t> last_;
  std::map<size_t, PendingEvidence> pending_;  // by finding: the last line of its burst so far
  bool listing_unread_ = false;            // this file's unread error lines are listed (lists_unread)
  std::vector<size_t> rule_read_starts_;  // then: the starts of the lines a rule read
  std::vector<size_t> block_starts_;      // the lines join_block joined last
};

}  // namespace

ScanResult scan(Collection& c, const Matcher& matcher, const Workload& workload, int threads, bool record,
                ScanProgress* progress) {
  const size_t per_file = findings_per_file(c.files.size());
  const JobYear year = job_year(c, workload);
  std::vector<FileScan> results(c.files.size());
  // Tuning the prefilter to the input pays on gigabytes; on a few megabytes its set-up costs more
  // than it saves, and the untuned one (built once per matcher) finds the same lines.
  std::unique_ptr<LiteralSearch> search;
  if (input_bytes(c) >= kTuneFrom) search = matcher.tuned_prefilter(input_sample(c));
  if (progress) progress->files_total = static_cast<int64_t>(c.files.size());
  const size_t n = static_cast<size_t>(std::max(1, threads));
  std::vector<ReadBuffer> buffers(n);  // one per thread, reused across its files
  parallel_for(c.files.size(), n, [&](size_t i, size_t worker) {
    const InputFile& f = c.files[i];
    results[i] = FileScanner(f, static_cast<int64_t>(i), c.sources[f.source], matcher, search.get(), workload, year,
                             record, per_file, &buffers[worker], progress && progress->measure_verify)
                     .run();
    if (progress) {
      progress->bytes_done += results[i].bytes;
      progress->candidate_lines += results[i].candidates;
      progress->matching_lines += results[i].matching;
      progress->verify_ns += results[i].verify_ns;
      progress->files_done += 1;
    }
  });

  return merge_file_scans(results, c, workload, per_file, record);
}

}  // namespace attribution

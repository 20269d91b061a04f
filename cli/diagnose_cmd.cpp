#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <cstdio>
#include <fstream>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/messages.hpp"
#include "core/pipeline/diagnose.hpp"
#include "core/base/progress.hpp"
#include "core/report/render.hpp"
#include "core/store/store.hpp"

namespace attribution::cli {
namespace {

struct DiagnoseOptions {
  DiagnoseRequest req;
  std::string job, config, format, output, nodes, start, end, before, after, record, replay, store;
  std::vector<std::string> logs;
  bool timings = false, no_progress = false;
};

// Redraws one progress line on stderr while the scan runs, only when stderr is a terminal: a
// pipe or a log file gets no progress at all. The first draw waits a second, so quick runs
// print nothing.
class ProgressLine {
 public:
  explicit ProgressLine(const ScanProgress& p) : p_(p), start_(std::chrono::steady_clock::now()) {
    thread_ = std::thread([this] { loop(); });
  }
  ~ProgressLine() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (drawn_) std::fputs("\r\033[K", stderr);
  }

 private:
  void loop() {
    std::unique_lock lock(mu_);
    auto next = start_ + std::chrono::seconds(1);
    while (!cv_.wait_until(lock, next, [this] { return done_; })) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (p_.files_total > 0) {
        std::string line = format_progress(p_.files_done, p_.files_total, p_.bytes_done, s);
        std::fprintf(stderr, "\r\033[K%s", line.c_str());
        std::fflush(stderr);
        drawn_ = true;
      }
      next += std::chrono::milliseconds(250);
    }
  }

  const ScanProgress& p_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false, drawn_ = false;
  std::thread thread_;
};

// What weakens the diagnosis, said where a user running it will see it: a source that produced
// nothing (a path typo), and each caveat the report's confidence carries.
void warn_about_evidence(const Report& r) {
  for (const auto& s : r.sources) {
    if (s.status == SourceStatus::empty || s.status == SourceStatus::error)
      report_warning(fmt::format("source '{}' ({}) produced nothing: {}", s.name, s.kind,
                                 s.reason.empty() ? std::string("no reason given") : s.reason));
    if (s.status == SourceStatus::partial)
      report_warning(fmt::format("source '{}' ({}) is partial: {}", s.name, s.kind, s.reason));
  }
  for (const auto& c : r.outcome.caveats)
    if (c.find("source(s) gave less") == std::string::npos) report_warning(c);
}

// The report format: --format, else the extension of -o (report.json, report.md, report.html), else
// text. A --format that contradicts the extension is a usage error, not a silent choice.
Result<std::string> report_format(const DiagnoseOptions& o) {
  std::string by_name;
  std::string ext = std::filesystem::path(o.output).extension().string();
  if (ext == ".json") by_name = "json";
  else if (ext == ".md" || ext == ".markdown") by_name = "markdown";
  else if (ext == ".txt") by_name = "text";
  else if (ext == ".html" || ext == ".htm") by_name = "html";
  std::string asked = o.format == "md" ? "markdown" : o.format;
  if (!asked.empty() && !by_name.empty() && asked != by_name)
    return make_error(ErrorKind::usage, fmt::format("--format {} contradicts -o {}", o.format, o.output), {}, 0, {},
                      "drop --format (the extension decides) or name the file to match it");
  return !asked.empty() ? asked : !by_name.empty() ? by_name : "text";
}

// A terminal gets lines of its own width (80 at least); a file or pipe the fixed default.
size_t text_width(const DiagnoseOptions& o) {
  bool to_terminal = (o.output.empty() || o.output == "-") && isatty(STDOUT_FILENO);
  struct winsize ws {};
  if (to_terminal && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return std::max<size_t>(40, ws.ws_col);
  return kDefaultTextWidth;
}

// What the command line asks that this run cannot honour, said rather than ignored.
void warn_about_options(const DiagnoseOptions& o) {
  bool window = !o.start.empty() || !o.end.empty();
  if (!o.logs.empty() && o.job.empty() && !window && (!o.before.empty() || !o.after.empty()))
    report_warning("--before/--after widen a known window; with --logs and no --start/--end the window is the "
                   "logs' own span, so they do nothing");
  if (!o.logs.empty() && !o.config.empty())
    report_warning("--logs: the config's [workload] (its scheduler, job and window) is not used; its sources, rules "
                   "and time zone are");
}

// --store, or the config's [store]: the report is also kept there, the JSON exactly as printed.
Status keep_in_store(const DiagnoseOptions& o, const Report& report, const std::string& json) {
  std::string where = o.store;
  if (where.empty() && o.replay.empty()) ATTRIBUTION_TRY(where, store_location({}, o.config));
  if (where.empty()) return Ok{};
  std::unique_ptr<Store> store;
  ATTRIBUTION_TRY(store, open_store(where, true));
  RenderedReport rendered{json, render_html(report), render_markdown(report)};
  int64_t id = 0;
  ATTRIBUTION_TRY(id, store->add(report, rendered, o.req.workload.now));
  (void)id;
  return Ok{};
}

// --timings: what the prefilter let through, per GB read, and what checking it cost.
void print_scan_figures(const ScanProgress& p) {
  double gb = static_cast<double>(p.bytes_done) / 1e9;
  std::fprintf(stderr, "timing: scan read %.3f GB: %lld candidate lines (%.0f per GB), %lld matching; verifying them took %.3f s CPU\n",
               gb, static_cast<long long>(p.candidate_lines), gb > 0 ? static_cast<double>(p.candidate_lines) / gb : 0.0,
               static_cast<long long>(p.matching_lines), static_cast<double>(p.verify_ns) / 1e9);
}

int run_diagnose(DiagnoseOptions& o) {
  auto format = report_format(o);
  if (!format) return report_error(format.error());
  if (!o.output.empty() && o.output != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(o.output, ec)) {
      return report_error(make_error(ErrorKind::output, "is a directory", o.output, 0, {},
                                     "name a file for the report, e.g. -o " +
                                         (std::filesystem::path(o.output) / "report.json").string()));
    }
  }
  warn_about_options(o);
  bool live_input = !o.job.empty() || !o.config.empty() || !o.logs.empty() || !o.nodes.empty() || !o.start.empty() ||
                    !o.end.empty() || !o.before.empty() || !o.after.empty() || !o.req.rule_paths.empty();
  if (!o.replay.empty() && (live_input || !o.record.empty()))
    return report_error(make_error(ErrorKind::usage, "--replay takes only the bundle", {}, 0, {},
                                   "the bundle holds the job, config, rules and inputs it was recorded with; "
                                   "only --format, -o, --store, --threads and --timings apply"));
  if (!o.replay.empty()) o.req.replay_dir = o.replay;
  if (!o.record.empty()) o.req.record_dir = o.record;
  if (o.replay.empty() && o.job.empty() && o.config.empty() && o.logs.empty())
    return report_error(make_error(ErrorKind::usage, "nothing to diagnose", {}, 0, {},
                                   "pass --logs DIR, or --config FILE with a static workload (see --help)"));
  DiagnoseRequest& r = o.req;
  if (!o.config.empty()) r.config_path = o.config;
  if (!o.job.empty()) r.workload.job = o.job;
  r.workload.logs = o.logs;
  if (!o.nodes.empty()) r.workload.nodes = o.nodes;
  if (!o.start.empty()) r.workload.start = o.start;
  if (!o.end.empty()) r.workload.end = o.end;
  if (!o.before.empty()) r.before = o.before;
  if (!o.after.empty()) r.after = o.after;
  r.workload.now = wall_clock_now();
  if (r.threads <= 0) r.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  std::vector<std::pair<std::string, double>> timings;
  if (o.timings) r.timings = &timings;
  ScanProgress progress;
  progress.measure_verify = o.timings;
  if (o.timings) r.progress = &progress;
  Result<Report> report = Error{};
  if (!o.no_progress && isatty(STDERR_FILENO)) {
    r.progress = &progress;
    ProgressLine line(progress);
    report = diagnose(r);
  } else {
    report = diagnose(r);
  }
  if (!report) return report_error(report.error());
  for (const auto& [pass, seconds] : timings) std::fprintf(stderr, "timing: %-24s %8.3f s\n", pass.c_str(), seconds);
  if (o.timings) print_scan_figures(progress);
  std::string text = *format == "json"       ? render_json(*report)
                     : *format == "markdown" ? render_markdown(*report)
                     : *format == "html"     ? render_html(*report)
                                             : render_text(*report, text_width(o));
  if (o.output.empty() || o.output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } else {
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      return report_error(make_error(ErrorKind::output, "cannot write the report", o.output, 0, {},
                                     "check that the directory exists and is writable"));
    }
  }
  if (auto st = keep_in_store(o, *report, *format == "json" ? text : render_json(*report)); !st) {
    Error e = st.error();  // the report itself is written: only keeping it failed, which is exit 5
    e.kind = ErrorKind::output;
    return report_error(e);
  }
  warn_about_evidence(*report);
  if (!report->usable_data) {
    report_warning("no source produced any data; see the sources section");
    return kNoData;
  }
  return kDiagnosed;
}

}  // namespace

void add_diagnose_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<DiagnoseOptions>();
  CLI::App* d = app.add_subcommand("diagnose", "Diagnose a failed workload and print the report");
  d->footer(
      "Examples:\n"
      "  attribution diagnose --config examples/nvlink-signal-integrity/attribution.toml\n"
      "  attribution diagnose --logs ./job-logs/ --nodes 'node[01-04]' --start 2025-03-14T09:00:00Z\n"
      "  attribution diagnose --config site.toml --format json -o report.json\n"
      "  attribution diagnose --job 12345 --record bundle-12345/   (then, anywhere:)\n"
      "  attribution diagnose --replay bundle-12345/               (the same report, offline)\n"
      "\n"
      "Without --config, ./attribution.toml then /etc/attribution/attribution.toml are read if present.\n"
      "--logs: a line's host is its own prefix (NCCL host:pid:tid, syslog hostname, pdsh/launcher label,\n"
      "kubectl logs --prefix pod; a docker compose or line-number column before it is skipped), else the\n"
      "shell prompt or kubectl 'Node:' it was pasted under (the target of an 'ssh host cmd' or 'srun -w\n"
      "host cmd' typed at that prompt; a plain 'srun cmd' names no machine), else the hostname its kernel\n"
      "log declares, else its file or directory named after a --nodes entry (or, without --nodes, the\n"
      "subdirectory of --logs it lies in, or a host its file name holds: dmesg-node12.txt), else the one\n"
      "machine the other findings of its pasted file name, else (a flat paste whose findings name no\n"
      "machine) the one machine its files name by a prompt or a declared hostname, or by their stamped\n"
      "line prefixes when no file names one that way, else rank -> host from NCCL init lines. Peers named\n"
      "by IP map to hosts through NCCL init lines and pasted DNS answers.\n\n" + std::string(kExitStatusHelp));
  d->add_option("--job", o->job, "Workload id (must match the static workload file's id when given)")->type_name("ID");
  d->add_option("--config", o->config, "Config file (TOML, see docs/architecture.md)")->type_name("FILE");
  d->add_option("--format", o->format, "Report format (default: from -o's extension, else text)")
      ->check(CLI::IsMember({"text", "json", "markdown", "md", "html"}).description(""))
      ->type_name("text|json|markdown|html");
  d->add_option("-o,--output", o->output, "Write the report to FILE instead of standard output (.json, .md, .html pick the format)")
      ->type_name("FILE");
  d->add_option("--before", o->before, "Window margin before the workload start (e.g. 15m)")->type_name("DURATION");
  d->add_option("--after", o->after, "Window margin after the workload end (e.g. 5m)")->type_name("DURATION");
  d->add_option("--rules", o->req.rule_paths, "Extra rule file or directory (adds rules, or replaces by id)")
      ->type_name("PATH");
  d->add_option("--threads", o->req.threads, "Files scanned in parallel (default 0: all cores)")
      ->default_val(0)
      ->check(CLI::Range(0, 1024))
      ->type_name("N");
  d->add_option("--logs", o->logs, "Ad-hoc mode: diagnose these files/directories, no scheduler")->type_name("PATH");
  d->add_option("--nodes", o->nodes, "Ad-hoc mode: the job's nodes, a Slurm hostlist like node[01-04]")
      ->type_name("HOSTLIST");
  d->add_option("--start", o->start, "Workload start (RFC 3339, or epoch seconds)")->type_name("TIME");
  d->add_option("--end", o->end, "Workload end (RFC 3339, or epoch seconds)")->type_name("TIME");
  d->add_option("--record", o->record,
                "Also write an evidence bundle into DIR (new or empty): the scheduler's answers, HTTP bodies, "
                "in-window log lines, config without credentials, rules (docs/bundles.md)")
      ->type_name("DIR");
  d->add_option("--replay", o->replay, "Diagnose a recorded bundle: the same report, without the cluster or network")
      ->type_name("DIR");
  d->add_option("--store", o->store,
                "Also keep the report in this store (SQLite file, created if missing; default: the config's "
                "[store] path); see attribution history, nodes and serve")
      ->type_name("FILE");
  d->add_flag("--timings", o->timings, "Print each pass's wall time, and the scan's candidate lines per GB and the time spent verifying them, on standard error (never in the report)");
  d->add_flag("--no-progress", o->no_progress,
              "No progress line (files, bytes, rate) on standard error; it is only drawn when that is a terminal");
  d->callback([o, exit_code] { *exit_code = run_diagnose(*o); });
}

}  // namespace attribution::cli

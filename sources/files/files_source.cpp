#include "sources/files/files_source.hpp"

#include "core/scan/file_name_host.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <glob.h>
#include <re2/re2.h>
#include <set>

namespace attribution {
namespace fs = std::filesystem;

namespace {

// A path template ({job} and {workdir} already substituted) as a glob for finding files and a
// regex for reading {host}/{rank} back.
struct TemplateForms {
  std::string glob, regex;
};

TemplateForms template_forms(const std::string& tmpl) {
  TemplateForms f;
  for (size_t i = 0; i < tmpl.size();) {
    auto take = [&](std::string_view name, std::string_view g, std::string_view re) {
      if (tmpl.compare(i, name.size(), name) != 0) return false;
      f.glob += g;
      f.regex += re;
      i += name.size();
      return true;
    };
    if (take("{host}", "*", "(?P<host>[^/]+)") || take("{rank}", "*", "(?P<rank>[0-9]+)"))
      continue;
    char c = tmpl[i++];
    f.glob += c;
    if (c == '*') f.regex += "[^/]*";
    else if (c == '?') f.regex += "[^/]";
    else f.regex += RE2::QuoteMeta(std::string(1, c));
  }
  return f;
}

// What a path under --logs is when it is not a file to read: said, never skipped silently (a FIFO
// would block a reader, a device is not a log, a symlink loop or a dangling link has no content).
std::string not_a_log(const fs::path& p) {
  std::error_code ec;
  fs::file_status st = fs::symlink_status(p, ec);
  std::string what = "not a regular file";
  if (fs::is_symlink(st)) {
    (void)fs::status(p, ec);
    what = ec ? "a symbolic link that leads nowhere (" + ec.message() + ")" : "a link to something not a regular file";
  } else if (fs::is_fifo(st)) what = "a FIFO (named pipe)";
  else if (fs::is_socket(st)) what = "a socket";
  else if (fs::is_block_file(st) || fs::is_character_file(st)) what = "a device";
  return fmt::format("{}: skipped, {}", p.string(), what);
}

}  // namespace


namespace {
// glob(3)'s error callback has no user pointer, hence a thread-local list.
std::vector<std::string>& glob_errors() {
  thread_local std::vector<std::string> errors;
  return errors;
}

int on_glob_error(const char* path, int err) {
  glob_errors().push_back(fmt::format("{}: {}", path, std::strerror(err)));
  return 0;  // keep going: other directories may be readable
}
}  // namespace

std::vector<InputFile> list_source_files(const FileGlobs& source, size_t index, const Workload& workload,
                                         SourceCoverage& cov) {
  const std::string& base_dir = source.base_dir;
  std::vector<InputFile> out;
  std::set<std::string> seen;
  std::set<std::string> nodes(workload.nodes.begin(), workload.nodes.end());
  bool any_host_template = false;
  for (const auto& raw : source.paths) {
    std::string tmpl = raw;
    // {workdir} and {job} are known values: substitute them before deciding what is relative.
    for (auto [key, value] : {std::pair{std::string("{workdir}"), workload.workdir}, std::pair{std::string("{job}"), workload.id}})
      for (size_t k; (k = tmpl.find(key)) != std::string::npos;) tmpl.replace(k, key.size(), value);
    if (tmpl.rfind("~/", 0) == 0 && std::getenv("HOME")) tmpl = std::string(std::getenv("HOME")) + tmpl.substr(1);
    if (raw.find("{workdir}") != std::string::npos && workload.workdir.empty()) {
      cov.problems.push_back(fmt::format("{}: the workload has no working directory for {{workdir}}", raw));
      continue;
    }
    if (fs::path(tmpl).is_relative()) tmpl = (fs::path(base_dir) / tmpl).lexically_normal().string();
    TemplateForms forms = template_forms(tmpl);
    any_host_template |= tmpl.find("{host}") != std::string::npos;
    RE2 re("^" + forms.regex + "$");
    glob_t g{};
    glob_errors().clear();
    int rc = ::glob(forms.glob.c_str(), GLOB_NOSORT, on_glob_error, &g);
    std::vector<std::string> matches;
    if (rc == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) matches.emplace_back(g.gl_pathv[i]);
    globfree(&g);
    std::sort(matches.begin(), matches.end());
    // A directory the glob could not read hides its files: say so rather than "no file matches".
    for (const auto& e : glob_errors()) cov.problems.push_back(fmt::format("{}: {} (files below it are not read)", raw, e));
    if (matches.empty() && glob_errors().empty()) cov.problems.push_back(fmt::format("{}: no file matches", raw));
    for (const auto& m : matches) {
      std::error_code ec;
      if (fs::is_directory(m, ec) || !seen.insert(m).second) continue;
      InputFile f{m, index, source.host, -1, nullptr};
      std::string host, rank;
      if (re.ok() && RE2::FullMatch(m, re)) {
        const auto& groups = re.NamedCapturingGroups();
        std::vector<std::string> vals(re.NumberOfCapturingGroups());
        std::vector<RE2::Arg> args(vals.size());
        std::vector<const RE2::Arg*> ptrs(vals.size());
        for (size_t i = 0; i < vals.size(); ++i) args[i] = &vals[i], ptrs[i] = &args[i];
        if (RE2::FullMatchN(m, re, ptrs.data(), static_cast<int>(ptrs.size()))) {
          if (auto it = groups.find("host"); it != groups.end()) host = vals[it->second - 1];
          if (auto it = groups.find("rank"); it != groups.end()) rank = vals[it->second - 1];
        }
      }
      if (!host.empty()) {
        // A {host} path of a node outside the workload belongs to another job: not ours.
        if (!nodes.empty() && !nodes.count(host)) continue;
        f.host_hint = host;
        f.host_certain = true;
      }
      f.rank_hint = !rank.empty() ? std::atoi(rank.c_str()) : rank_from_name(m);
      out.push_back(std::move(f));
    }
  }
  if (any_host_template) cov.hosts_expected = static_cast<int64_t>(workload.nodes.size());
  for (const auto& f : out) add_covered_host(cov, f.host_hint);
  return out;
}

std::vector<InputFile> list_adhoc_files(const std::vector<std::string>& paths, size_t index, const Workload& workload,
                                        SourceCoverage& cov) {
  std::vector<InputFile> out;
  std::set<std::string> nodes(workload.nodes.begin(), workload.nodes.end());
  std::set<std::string> seen;
  for (const auto& root : paths) {
    std::error_code ec;
    std::vector<std::string> files, skipped;  // skipped: sorted like the files, so the report never depends on
                                              // the directory's order
    bool is_dir = fs::is_directory(root, ec);
    if (is_dir) {
      fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
      if (ec) cov.problems.push_back(fmt::format("{}: {}", root, ec.message()));
      for (; it != end; it.increment(ec)) {
        if (ec) {
          cov.problems.push_back(fmt::format("{}: {}", root, ec.message()));
          break;
        }
        std::error_code fec;
        if (it->is_regular_file(fec)) files.push_back(it->path().string());
        else if (!it->is_directory(fec)) skipped.push_back(not_a_log(it->path()));
        if (it->is_directory(fec) && !it->is_symlink(fec)) {
          // Unreadable directories would be skipped silently: open each first, and name the ones that fail.
          fs::directory_iterator probe(it->path(), fec);
          if (fec) {
            cov.problems.push_back(fmt::format("{}: {} (files below it are not read)", it->path().string(), fec.message()));
            it.disable_recursion_pending();
          }
        }
      }
      std::sort(files.begin(), files.end());
      std::sort(skipped.begin(), skipped.end());
      cov.problems.insert(cov.problems.end(), skipped.begin(), skipped.end());
    } else if (fs::is_regular_file(root, ec)) {
      files.push_back(root);
    } else if (fs::exists(fs::symlink_status(root, ec)) || fs::exists(root, ec)) {
      cov.problems.push_back(not_a_log(root));
      continue;
    } else {
      cov.problems.push_back(fmt::format("{}: no such file or directory", root));
      continue;
    }
    for (const auto& path : files) {
      if (!seen.insert(path).second) continue;
      InputFile f{path, index, "", rank_from_name(path), nullptr};
      fs::path rel = is_dir ? fs::path(path).lexically_relative(root) : fs::path(path).filename();
      if (!nodes.empty()) {
        for (const auto& part : rel) {  // a directory or file (stem) named after a node
          std::string p = part.string(), stem = part.stem().string();
          if (nodes.count(p)) f.host_hint = p;
          else if (nodes.count(stem)) f.host_hint = stem;
        }
        // A file whose name holds a node as a separate token: "dmesg-node03.txt", "kern_node03_0314.log".
        if (f.host_hint.empty()) f.host_hint = host_from_file_name(path, nodes);
      } else if (is_dir && std::distance(rel.begin(), rel.end()) > 1 && directory_names_machine(rel.begin()->string())) {
        f.host_hint = rel.begin()->string();  // the immediate subdirectory of the --logs directory
      } else {
        f.host_hint = host_from_file_name(path, {});  // a flat directory: the machine the name names
      }
      out.push_back(std::move(f));
    }
  }
  cov.hosts_expected = static_cast<int64_t>(workload.nodes.size());
  for (const auto& f : out) add_covered_host(cov, f.host_hint);
  return out;
}

Result<std::shared_ptr<const SourceSettings>> FilesKind::parse(const TomlReader& r, const ParseContext& context) const {
  if (auto st = r.only_keys({"name", "kind", "paths", "stream", "timezone", "boot_time", "host"}); !st) return st.error();
  auto s = std::make_shared<FilesSettings>();
  s->globs.base_dir = context.base_dir;
  ATTRIBUTION_TRY(s->globs.paths, r.str_list("paths"));
  if (s->globs.paths.empty()) return r.error("paths", "a files source needs paths = [\"...\"]");
  if (auto st = parse_stream(r, s->stream, true); !st) return st.error();
  std::optional<std::string> v;
  ATTRIBUTION_TRY(v, r.str("timezone"));
  if (v) {
    auto tz = TimeZone::parse(*v);
    if (!tz) return r.error("timezone", tz.error().message, tz.error().hint);
    s->timezone = *tz;
  }
  ATTRIBUTION_TRY(v, r.str("boot_time"));
  if (v) {
    auto t = parse_time_value(*v, TimeZone::utc());
    if (!t) return r.error("boot_time", t.error().message, t.error().hint);
    s->boot_time = *t;
  }
  ATTRIBUTION_TRY(v, r.str("host"));
  if (v) s->globs.host = *v;
  return std::shared_ptr<const SourceSettings>(std::move(s));
}

std::vector<InputFile> FilesKind::collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                          SourceCoverage& coverage) const {
  const auto& settings = static_cast<const FilesSettings&>(*entry.settings);
  DiskFileLister disk;
  FileLister& lister = context.transports.files ? *context.transports.files : disk;
  return lister.list(settings.globs, index, context.workload, coverage);
}

}  // namespace attribution

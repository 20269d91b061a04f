#include "core/pipeline/bundle.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>
#include <simdjson.h>

#include "core/base/text.hpp"
#include "core/base/digest.hpp"
#include "core/base/json_writer.hpp"
#include "core/report/render.hpp"
#include "core/base/toml_util.hpp"

namespace attribution {
namespace fs = std::filesystem;
namespace {

using simdjson::dom::element;

constexpr const char* kFormat = "attribution-bundle";

SourceStatus status_from(std::string_view s) {
  for (SourceStatus v : {SourceStatus::ok, SourceStatus::partial, SourceStatus::empty, SourceStatus::error,
                         SourceStatus::skipped})
    if (to_string(v) == s) return v;
  return SourceStatus::error;
}

class Writer {
 public:
  explicit Writer(std::string dir) : dir_(std::move(dir)) {}

  // The first failure is kept and returned by finish(): a bundle is written whole or reported.
  void put(const std::string& rel, std::string_view bytes) {
    if (failed_) return;
    fs::path p = fs::path(dir_) / rel;
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) failed_ = make_error(ErrorKind::output, "cannot write the bundle file", p.string());
    manifest_.emplace_back(rel, Entry{static_cast<int64_t>(bytes.size()), sha256_hex(bytes)});
  }

  Status finish() {
    if (failed_) return *failed_;
    JsonWriter j;
    j.begin_object().field("format", kFormat).key("version").value(kBundleVersion);
    j.key("tool").begin_object().field("name", "attribution").field("version", ATTRIBUTION_VERSION).end_object();
    j.key("files").begin_array();
    for (const auto& [rel, e] : manifest_)
      j.begin_object().field("path", rel).key("bytes").value(e.bytes).field("sha256", e.sha256).end_object();
    j.end_array().end_object();
    std::string text = j.take() + "\n";
    std::ofstream out(fs::path(dir_) / "manifest.json", std::ios::binary);
    out << text;
    out.close();
    if (!out) return make_error(ErrorKind::input, "cannot write the bundle manifest", dir_ + "/manifest.json");
    return Ok{};
  }

 private:
  struct Entry {
    int64_t bytes;
    std::string sha256;
  };
  std::string dir_;
  std::vector<std::pair<std::string, Entry>> manifest_;
  std::optional<Error> failed_;
};

void write_optional(JsonWriter& j, const char* key, const std::optional<std::string>& v) {
  j.key(key);
  if (v) j.value(*v);
  else j.null();
}

void write_coverage(JsonWriter& j, const SourceCoverage& c) {
  j.begin_object().field("name", c.name).field("kind", c.kind).field("status", to_string(c.status));
  j.field("reason", c.reason).key("records").value(c.records).key("bytes").value(c.bytes).key("files").value(c.files);
  j.key("hosts_expected").value(c.hosts_expected).key("hosts_covered").begin_array();
  for (const auto& h : c.hosts_covered) j.value(h);
  j.end_array();
  j.key("problems").begin_array();
  for (const auto& p : c.problems) j.value(p);
  j.end_array().end_object();
}

std::string rule_file_name(size_t i, const std::string& name) {
  std::string base = fs::path(name).filename().string();
  for (char& ch : base)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') ch = '_';
  return fmt::format("rules/{:03}-{}", i + 1, base);
}

// simdjson accessors that fall back to a default: an index written by us, read leniently.
std::string str(element e, const char* key) {
  std::string_view v;
  return e[key].get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}
std::optional<std::string> opt_str(element e, const char* key) {
  std::string_view v;
  if (e[key].get(v) == simdjson::SUCCESS) return std::string(v);
  return std::nullopt;
}
int64_t num(element e, const char* key, int64_t fallback = 0) {
  int64_t v;
  return e[key].get(v) == simdjson::SUCCESS ? v : fallback;
}
bool flag(element e, const char* key) {
  bool v;
  return e[key].get(v) == simdjson::SUCCESS && v;
}
std::vector<std::string> strings(element e, const char* key) {
  std::vector<std::string> out;
  simdjson::dom::array a;
  if (e[key].get(a) != simdjson::SUCCESS) return out;
  for (element x : a) {
    std::string_view v;
    if (x.get(v) == simdjson::SUCCESS) out.emplace_back(v);
  }
  return out;
}
std::vector<element> array_of(element e, const char* key) {
  std::vector<element> out;
  simdjson::dom::array a;
  if (e[key].get(a) != simdjson::SUCCESS) return out;
  for (element x : a) out.push_back(x);
  return out;
}

bool is_credential_key(std::string_view k) {
  for (std::string_view s : {"token", "password", "secret", "username", "client_key", "client_cert", "credential"})
    if (k.find(s) != std::string_view::npos) return true;
  return false;
}

void redact(toml::table& t) {
  std::vector<std::string> drop;
  for (auto& [k, v] : t) {
    if (is_credential_key(k.str())) drop.emplace_back(k.str());
    else if (auto* sub = v.as_table()) redact(*sub);
    else if (auto* arr = v.as_array()) {
      for (auto& e : *arr)
        if (auto* st = e.as_table()) redact(*st);
    } else if (auto* s = v.as_string()) {
      s->get() = url_without_userinfo(s->get());
    }
  }
  for (const auto& k : drop) t.erase(k);
}

}  // namespace

std::string workload_json(const Workload& w) {
  JsonWriter j;
  j.begin_object();
  write_workload_fields(j, w);
  j.key("facts").begin_array();
  for (const auto& f : w.facts) j.begin_object().field("text", f.text).field("origin", f.origin).end_object();
  j.end_array();
  j.key("log_paths").begin_array();
  for (const auto& p : w.log_paths) j.value(p);
  j.end_array().end_object();
  return j.take() + "\n";
}

Result<std::string> redact_config(std::string_view text, const std::string& file) {
  auto t = parse_toml(text, file);
  if (!t) return t.error();
  redact(*t);
  std::ostringstream out;
  out << "# The configuration this diagnosis ran with; credential keys removed.\n" << *t << "\n";
  return out.str();
}

Status check_bundle_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      return make_error(ErrorKind::output, "exists and is not a directory", dir, 0, {}, "name a new directory for --record");
    if (!fs::is_empty(dir, ec))
      return make_error(ErrorKind::output, "the bundle directory exists and is not empty", dir, 0, {},
                        "name a new directory for --record");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      return make_error(ErrorKind::output, "the bundle directory is not writable", dir, 0, {},
                        "name a directory you can write to");
    return Ok{};
  }
  // Not there yet: the nearest existing parent must let us create it.
  fs::path parent = fs::path(dir).parent_path();
  while (!parent.empty() && !fs::exists(parent, ec)) parent = parent.parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec) || ::access(parent.c_str(), W_OK | X_OK) != 0)
    return make_error(ErrorKind::output, "cannot create the bundle directory: " + parent.string() + " is not writable",
                      dir, 0, {}, "name a directory you can write to");
  return Ok{};
}

namespace {

void write_request(JsonWriter& j, const BundleRequest& r) {
  j.key("request").begin_object();
  write_optional(j, "job", r.job);
  j.key("logs").begin_array();
  for (const auto& l : r.logs) j.value(l);
  j.end_array();
  write_optional(j, "nodes", r.nodes);
  write_optional(j, "start", r.start);
  write_optional(j, "end", r.end);
  write_optional(j, "before", r.before);
  write_optional(j, "after", r.after);
  j.key("now").value(r.now).end_object();
}

void write_rules(JsonWriter& j, Writer& w, const std::vector<RuleSource>& rules) {
  j.key("rules").begin_array();
  for (size_t i = 0; i < rules.size(); ++i) {
    std::string rel = rule_file_name(i, rules[i].name);
    w.put(rel, rules[i].text);
    j.begin_object().field("name", rules[i].name).field("file", rel).key("user").value(rules[i].user).end_object();
  }
  j.end_array();
}

// The scheduler's commands (and which programs were found) and the HTTP exchanges, bodies as files.
void write_exchanges(JsonWriter& j, Writer& w, const BundleContents& b) {
  j.key("probes").begin_array();
  for (const auto& p : b.probes) j.begin_object().field("program", p.program).key("available").value(p.available).end_object();
  j.end_array();
  j.key("commands").begin_array();
  for (size_t i = 0; i < b.commands.size(); ++i) {
    const auto& c = b.commands[i];
    j.begin_object().key("argv").begin_array();
    for (const auto& a : c.argv) j.value(a);
    j.end_array();
    if (c.output) {
      std::string base = fmt::format("commands/{:03}", i + 1);
      w.put(base + ".stdout", c.output->out);
      w.put(base + ".stderr", c.output->err);
      j.key("exit_code").value(c.output->exit_code).field("stdout", base + ".stdout").field("stderr", base + ".stderr");
    } else {
      j.field("error", c.error);
    }
    j.end_object();
  }
  j.end_array();
  j.key("http").begin_array();
  for (size_t i = 0; i < b.exchanges.size(); ++i) {
    const auto& e = b.exchanges[i];
    j.begin_object().field("method", e.method).field("url", e.url);
    if (e.response) {
      std::string rel = fmt::format("http/{:03}.body", i + 1);
      w.put(rel, e.response->body);
      j.key("status").value(static_cast<int64_t>(e.response->status)).field("body", rel);
    } else {
      j.field("error", e.error);
    }
    j.end_object();
  }
  j.end_array();
}

void write_kube_access(JsonWriter& j, const std::vector<RecordedKubeAccess>& access) {
  j.key("kube_access").begin_array();
  for (const auto& k : access) {
    j.begin_object().field("config_key", k.config_key);
    if (k.error) {
      j.key("error").begin_object().key("kind").value(static_cast<int>(k.error->kind)).field("message", k.error->message);
      j.field("file", k.error->file).key("line").value(static_cast<int64_t>(k.error->line));
      j.field("key", k.error->key).field("hint", k.error->hint).end_object();
    } else {
      j.field("server", k.server).field("namespace", k.ns).field("origin", k.origin);
    }
    j.end_object();
  }
  j.end_array();
}

// Each listed file with its in-window line extract (files/NNNN.log) and where its lines came from.
void write_listings(JsonWriter& j, Writer& w, const std::vector<ListedSource>& listings) {
  j.key("listings").begin_array();
  size_t n = 0;
  for (const auto& l : listings) {
    j.begin_object().key("source").value(l.index).key("coverage");
    write_coverage(j, l.coverage);
    j.key("files").begin_array();
    for (const auto& f : l.files) {
      j.begin_object().field("path", f.path).field("host_hint", f.host_hint).key("rank_hint").value(f.rank_hint);
      if (f.host_certain) j.key("host_certain").value(true);
      if (!f.local_name.empty()) j.field("local_name", f.local_name);
      if (const FileExtract* x = f.extract.get()) {
        std::string rel = fmt::format("files/{:04}.log", ++n);
        w.put(rel, x->text);
        j.field("lines", rel).key("bytes").value(x->bytes).field("problem", x->problem).key("failed").value(x->failed);
        j.key("mtime");
        if (x->mtime) j.value(*x->mtime);
        else j.null();
        j.key("runs").begin_array();
        for (const auto& r : x->runs)
          j.begin_array().value(r.at).value(r.index).value(r.line).value(r.offset).end_array();
        j.end_array();
      }
      j.end_object();
    }
    j.end_array().end_object();
  }
  j.end_array();
}

// Reads a bundle's payloads: a missing or altered file is a problem noted, not an error.
class BundleReader {
 public:
  BundleReader(std::string dir, std::map<std::string, std::string> digests, std::vector<std::string>& problems)
      : dir_(std::move(dir)), digests_(std::move(digests)), problems_(problems) {}

  std::optional<std::string> payload(const std::string& rel) {
    // The index is input too: a path leaving the bundle could read any file, or /dev/zero forever.
    fs::path rp(rel);
    if (rp.is_absolute() || std::find(rp.begin(), rp.end(), "..") != rp.end()) {
      problems_.push_back(rel + ": not a path inside the bundle");
      return std::nullopt;
    }
    auto text = read_text_file((fs::path(dir_) / rel).string());
    if (!text) {
      problems_.push_back(rel + ": missing from the bundle");
      return std::nullopt;
    }
    auto it = digests_.find(rel);
    if (it == digests_.end()) problems_.push_back(rel + ": not listed in the manifest");
    else if (it->second != sha256_hex(*text)) problems_.push_back(rel + ": does not match its digest in the manifest");
    return std::move(*text);
  }
  bool listed(const std::string& rel) const { return digests_.count(rel) > 0; }

  void read_exchanges(element index, BundleContents& b) {
    for (element p : array_of(index, "probes")) b.probes.push_back(RecordedProbe{str(p, "program"), flag(p, "available")});
    for (element c : array_of(index, "commands")) {
      RecordedCommand rc{strings(c, "argv"), std::nullopt, str(c, "error")};
      if (auto so = opt_str(c, "stdout")) {
        CommandOutput o;
        o.exit_code = static_cast<int>(num(c, "exit_code", -1));
        o.out = payload(*so).value_or("");
        o.err = payload(str(c, "stderr")).value_or("");
        rc.output = std::move(o);
      }
      b.commands.push_back(std::move(rc));
    }
    for (element e : array_of(index, "http")) {
      RecordedExchange x{str(e, "method"), str(e, "url"), std::nullopt, str(e, "error")};
      if (auto body = opt_str(e, "body")) x.response = HttpResponse{static_cast<long>(num(e, "status")), payload(*body).value_or("")};
      b.exchanges.push_back(std::move(x));
    }
    for (element k : array_of(index, "kube_access")) {
      RecordedKubeAccess r{str(k, "config_key"), str(k, "server"), str(k, "namespace"), str(k, "origin"), std::nullopt};
      element e;
      if (k["error"].get(e) == simdjson::SUCCESS) {
        int64_t kind = std::clamp<int64_t>(num(e, "kind"), 0, static_cast<int64_t>(ErrorKind::no_data));
        r.error = make_error(static_cast<ErrorKind>(kind), str(e, "message"), str(e, "file"), static_cast<long>(num(e, "line")),
                             str(e, "key"), str(e, "hint"));
      }
      b.kube_access.push_back(std::move(r));
    }
  }

  InputFile read_file(element f, size_t source) {
    InputFile in;
    in.path = str(f, "path");
    in.source = source;
    in.host_hint = str(f, "host_hint");
    in.host_certain = flag(f, "host_certain");
    in.local_name = str(f, "local_name");
    in.rank_hint = static_cast<int>(num(f, "rank_hint", -1));
    auto x = std::make_shared<FileExtract>();
    x->bytes = num(f, "bytes");
    x->problem = str(f, "problem");
    x->failed = flag(f, "failed");
    int64_t mt;
    if (f["mtime"].get(mt) == simdjson::SUCCESS) x->mtime = mt;
    for (element r : array_of(f, "runs")) {
      simdjson::dom::array a;
      int64_t v[4] = {0, 0, 1, 0};
      if (r.get(a) == simdjson::SUCCESS)
        for (size_t k = 0; k < 4; ++k)
          if (a.at(k).get(v[k]) != simdjson::SUCCESS) break;
      x->runs.push_back(LineRun{static_cast<size_t>(v[0]), v[1], v[2], v[3]});
    }
    if (auto rel = opt_str(f, "lines")) {
      if (auto text = payload(*rel)) x->text = std::move(*text);
      else if (!x->failed) {
        x->failed = true;
        x->problem = fmt::format("{}: its lines are missing from the bundle ({})", in.path, *rel);
      }
    }
    in.extract = std::move(x);
    return in;
  }

  void read_listings(element index, BundleContents& b) {
    for (element l : array_of(index, "listings")) {
      ListedSource ls;
      ls.index = static_cast<size_t>(num(l, "source"));
      element c;
      if (l["coverage"].get(c) != simdjson::SUCCESS) continue;
      ls.coverage.name = str(c, "name");
      ls.coverage.kind = str(c, "kind");
      ls.coverage.status = status_from(str(c, "status"));
      ls.coverage.reason = str(c, "reason");
      ls.coverage.records = num(c, "records");
      ls.coverage.bytes = num(c, "bytes");
      ls.coverage.files = num(c, "files");
      ls.coverage.hosts_expected = num(c, "hosts_expected");
      ls.coverage.hosts_covered = strings(c, "hosts_covered");
      ls.coverage.problems = strings(c, "problems");
      for (element f : array_of(l, "files")) ls.files.push_back(read_file(f, ls.index));
      b.listings.push_back(std::move(ls));
    }
  }

 private:
  std::string dir_;
  std::map<std::string, std::string> digests_;
  std::vector<std::string>& problems_;
};

// The manifest's digests by path; an Error when DIR is not a bundle this version reads.
Result<std::map<std::string, std::string>> read_manifest(const std::string& dir) {
  auto manifest_text = read_text_file((fs::path(dir) / "manifest.json").string());
  if (!manifest_text)
    return make_error(ErrorKind::usage, "not an evidence bundle: manifest.json is missing", dir, 0, {},
                      "pass the directory written by `diagnose --record DIR`");
  simdjson::dom::parser mp;
  element manifest;
  if (mp.parse(simdjson::padded_string(*manifest_text)).get(manifest) != simdjson::SUCCESS || str(manifest, "format") != kFormat)
    return make_error(ErrorKind::usage, "not an evidence bundle: manifest.json is not a bundle manifest", dir);
  int64_t version = num(manifest, "version");
  if (version < 1 || version > kBundleVersion)
    return make_error(ErrorKind::usage, fmt::format("bundle format version {} is not supported (this version reads 1 to {})",
                                                     version, kBundleVersion),
                      dir, 0, {}, "replay it with the attribution version that recorded it or a newer one");
  std::map<std::string, std::string> digests;
  for (element f : array_of(manifest, "files")) digests[str(f, "path")] = str(f, "sha256");
  return digests;
}

}  // namespace

Status write_bundle(const std::string& dir, const BundleContents& b) {
  std::error_code ec;
  if (auto st = check_bundle_dir(dir); !st) return st;
  fs::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::output, "cannot create the bundle directory: " + ec.message(), dir);
  Writer w(dir);
  JsonWriter j;
  j.begin_object();
  write_request(j, b.request);
  j.field("config_file", b.config_file);
  if (!b.config_file.empty()) w.put("config.toml", b.config_text);
  if (b.static_workload) w.put("static-workload.toml", *b.static_workload);
  w.put("workload.json", b.workload_json);
  write_rules(j, w, b.rules);
  write_exchanges(j, w, b);
  write_kube_access(j, b.kube_access);
  write_listings(j, w, b.listings);
  j.end_object();
  w.put("bundle.json", j.take() + "\n");
  return w.finish();
}

Result<LoadedBundle> read_bundle(const std::string& dir) {
  LoadedBundle out;
  std::map<std::string, std::string> digests;
  ATTRIBUTION_TRY(digests, read_manifest(dir));
  BundleReader reader(dir, std::move(digests), out.problems);
  auto index_text = reader.payload("bundle.json");
  simdjson::dom::parser ip;
  element index;
  if (!index_text || ip.parse(simdjson::padded_string(*index_text)).get(index) != simdjson::SUCCESS)
    return make_error(ErrorKind::usage, "the bundle's index bundle.json is missing or unreadable", dir);
  BundleContents& b = out.contents;
  element req;
  if (index["request"].get(req) != simdjson::SUCCESS)
    return make_error(ErrorKind::usage, "the bundle's index bundle.json has no request", dir);
  b.request.job = opt_str(req, "job");
  b.request.logs = strings(req, "logs");
  b.request.nodes = opt_str(req, "nodes");
  b.request.start = opt_str(req, "start");
  b.request.end = opt_str(req, "end");
  b.request.before = opt_str(req, "before");
  b.request.after = opt_str(req, "after");
  b.request.now = num(req, "now");
  b.config_file = str(index, "config_file");
  if (!b.config_file.empty()) b.config_text = reader.payload("config.toml").value_or("");
  if (reader.listed("static-workload.toml")) b.static_workload = reader.payload("static-workload.toml");
  b.workload_json = reader.payload("workload.json").value_or("");
  for (element r : array_of(index, "rules"))
    if (auto text = reader.payload(str(r, "file"))) b.rules.push_back(RuleSource::owning(str(r, "name"), std::move(*text), flag(r, "user")));
  reader.read_exchanges(index, b);
  reader.read_listings(index, b);
  return out;
}

std::vector<InputFile> RecordingFileLister::list(const FileGlobs& globs, size_t index, const Workload& workload,
                                                 SourceCoverage& coverage) {
  auto files = inner_.list(globs, index, workload, coverage);
  listed.push_back(ListedSource{index, coverage, files});
  return files;
}

std::vector<InputFile> RecordingFileLister::list_adhoc(const std::vector<std::string>& paths, size_t index,
                                                       const Workload& workload, SourceCoverage& coverage) {
  auto files = inner_.list_adhoc(paths, index, workload, coverage);
  listed.push_back(ListedSource{index, coverage, files});
  return files;
}

Result<std::string> RecordingFileLister::read_text(const std::string& path) {
  auto text = inner_.read_text(path);
  if (text) read = *text;
  return text;
}

std::vector<InputFile> ReplayFileLister::replay(size_t index, SourceCoverage& coverage) {
  for (const auto& l : listings_)
    if (l.index == index) {
      coverage = l.coverage;
      return l.files;
    }
  return {};
}

std::vector<InputFile> ReplayFileLister::list(const FileGlobs&, size_t index, const Workload&, SourceCoverage& coverage) {
  return replay(index, coverage);
}

Result<std::string> ReplayFileLister::read_text(const std::string& path) {
  if (read_) return *read_;
  return make_error(ErrorKind::input, "the bundle holds no copy of this file", path, 0, {},
                    "record the bundle again with this version");
}

std::vector<InputFile> ReplayFileLister::list_adhoc(const std::vector<std::string>&, size_t index, const Workload&,
                                                    SourceCoverage& coverage) {
  return replay(index, coverage);
}

void load_replay_transports(const BundleContents& b, ReplayRunner& runner, ReplayHttpClient& http,
                            ReplayKubeAccessResolver& kube) {
  for (const auto& k : b.kube_access) kube.add(k);
  for (const auto& p : b.probes) runner.set_available(p.program, p.available);
  for (const auto& c : b.commands) {
    if (c.output) runner.add(join_argv(c.argv), *c.output);
    else runner.add_error(join_argv(c.argv), c.error);
  }
  for (const auto& e : b.exchanges) {
    if (e.response) http.add(e.url, *e.response);
    else http.add_error(e.url, e.error);
  }
}

}  // namespace attribution

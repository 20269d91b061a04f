#include "core/serve/push.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <simdjson.h>

#include "core/base/hostlist.hpp"

namespace attribution {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// A host or file name becomes part of a path shown in the report: plain characters only, so a
// name can never climb out of its directory or hide a second path.
bool plain_name(std::string_view s) {
  if (s.empty() || s.size() > 255 || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
  });
}

struct Parser {
  const PushLimits& limits;
  PushError* error;
  size_t lines = 0;

  bool fail(int status, std::string message) {
    if (error->message.empty()) *error = PushError{status, std::move(message)};
    return false;
  }

  // A string field, or for times and exit codes a number written as its text.
  bool text(object o, const char* key, std::optional<std::string>& out, const std::string& where, bool numbers) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS || e.is_null()) return true;
    std::string_view s;
    int64_t n;
    if (e.get(s) == simdjson::SUCCESS) out = std::string(s);
    else if (numbers && e.get(n) == simdjson::SUCCESS) out = std::to_string(n);
    else return fail(400, fmt::format("{}.{} must be a string{}", where, key, numbers ? " or an integer" : ""));
    return true;
  }

  bool only_keys(object o, std::initializer_list<std::string_view> keys, const std::string& where) {
    for (auto field : o)
      if (std::find(keys.begin(), keys.end(), field.key) == keys.end())
        return fail(400, fmt::format("{}: unknown field '{}'", where, std::string(field.key)));
    return true;
  }

  bool workload(object o, WorkloadRequest& w) {
    if (!only_keys(o, {"id", "name", "nodes", "start", "end", "state", "exit_code"}, "workload")) return false;
    std::optional<std::string> id;
    bool ok = text(o, "id", id, "workload", true) && text(o, "name", w.name, "workload", false) &&
              text(o, "nodes", w.nodes, "workload", false) && text(o, "start", w.start, "workload", true) &&
              text(o, "end", w.end, "workload", true) && text(o, "state", w.state, "workload", false) &&
              text(o, "exit_code", w.exit_code, "workload", true);
    if (id) w.job = *id;
    if (ok && w.nodes) {  // a 20-byte hostlist can name a million hosts: bounded before any work
      auto hosts = expand_hostlist(*w.nodes);
      if (!hosts) return fail(400, "workload.nodes: " + hosts.error().message);
      if (hosts->size() > limits.nodes)
        return fail(413, fmt::format("workload.nodes names {} hosts, over the limit of {}", hosts->size(), limits.nodes));
    }
    return ok;
  }

  bool log(object o, size_t i, PushedLog& out) {
    std::string where = fmt::format("logs[{}]", i);
    if (!only_keys(o, {"host", "name", "stream", "lines"}, where)) return false;
    std::optional<std::string> host, name, stream;
    if (!text(o, "host", host, where, false) || !text(o, "name", name, where, false) ||
        !text(o, "stream", stream, where, false))
      return false;
    if (!host || !plain_name(*host))
      return fail(400, where + ".host must be a host name (letters, digits, '.', '-', '_')");
    if (!name || !plain_name(*name))
      return fail(400, where + ".name must be a file name (letters, digits, '.', '-', '_'; no '/')");
    out.host = *host;
    out.name = *name;
    if (stream && *stream != "applog" && *stream != "syslog")
      return fail(400, fmt::format("{}.stream '{}' is not applog or syslog", where, *stream));
    out.stream = stream && *stream == "syslog" ? Stream::syslog : Stream::applog;
    simdjson::dom::array arr;
    if (o["lines"].get(arr) != simdjson::SUCCESS) return fail(400, where + ".lines must be an array of strings");
    auto text = std::make_shared<std::string>();
    size_t j = 0;
    for (element e : arr) {
      std::string_view line;
      if (e.get(line) != simdjson::SUCCESS) return fail(400, fmt::format("{}.lines[{}] is not a string", where, j));
      if (line.size() > limits.line_bytes)
        return fail(413, fmt::format("{}.lines[{}] is {} bytes, over the limit of {}", where, j, line.size(),
                                     limits.line_bytes));
      if (line.find('\n') != std::string_view::npos)
        return fail(400, fmt::format("{}.lines[{}] holds a newline: send one line per element", where, j));
      if (++lines > limits.lines)
        return fail(413, fmt::format("more than {} lines in all", limits.lines));
      text->append(line).push_back('\n');
      ++j;
    }
    out.text = std::move(text);
    return true;
  }
};

}  // namespace

PushedWorkload parse_push(std::string_view body, const PushLimits& limits, PushError* error) {
  PushedWorkload out;
  *error = PushError{200, ""};
  Parser p{limits, error};
  if (body.size() > limits.body_bytes) {
    p.fail(413, fmt::format("the body is {} bytes, over the limit of {}", body.size(), limits.body_bytes));
    return out;
  }
  simdjson::dom::parser parser;
  element doc;
  if (auto err = parser.parse(body.data(), body.size()).get(doc); err) {
    p.fail(400, fmt::format("the body is not valid JSON: {}", simdjson::error_message(err)));
    return out;
  }
  object top;
  if (doc.get(top) != simdjson::SUCCESS) {
    p.fail(400, "the body must be a JSON object with \"workload\" and \"logs\"");
    return out;
  }
  if (!p.only_keys(top, {"workload", "logs"}, "body")) return out;
  object w;
  if (top["workload"].get(w) == simdjson::SUCCESS) {
    if (!p.workload(w, out.workload)) return out;
  } else if (top["workload"].error() != simdjson::NO_SUCH_FIELD) {
    p.fail(400, "workload must be an object");
    return out;
  }
  simdjson::dom::array logs;
  if (top["logs"].get(logs) != simdjson::SUCCESS) {
    p.fail(400, "logs must be an array of {\"host\", \"name\", \"stream\", \"lines\"}");
    return out;
  }
  if (logs.size() > limits.logs) {
    p.fail(413, fmt::format("{} logs, over the limit of {}", logs.size(), limits.logs));
    return out;
  }
  std::set<std::pair<std::string, std::string>> seen;
  size_t i = 0;
  for (element e : logs) {
    object o;
    if (e.get(o) != simdjson::SUCCESS) {
      p.fail(400, fmt::format("logs[{}] must be an object", i));
      return out;
    }
    PushedLog log;
    if (!p.log(o, i, log)) return out;
    if (!seen.insert({log.host, log.name}).second) {
      p.fail(400, fmt::format("logs[{}]: host {} already has a log named {}", i, log.host, log.name));
      return out;
    }
    out.logs.push_back(std::move(log));
    ++i;
  }
  if (out.logs.empty()) p.fail(400, "logs is empty: there is nothing to diagnose");
  out.workload.logs = {kPushedRoot};
  return out;
}

std::vector<InputFile> PushedFiles::list_adhoc(const std::vector<std::string>&, size_t index, const Workload& workload,
                                               SourceCoverage& coverage) {
  std::vector<InputFile> out;
  for (const auto& log : logs_) {
    InputFile f;
    f.path = fmt::format("{}/{}/{}", kPushedRoot, log.host, log.name);
    f.source = index;
    f.host_hint = log.host;
    f.rank_hint = rank_from_name(f.path);
    f.text = log.text;
    if (log.stream == Stream::syslog) f.stream = Stream::syslog;
    coverage.bytes += static_cast<int64_t>(log.text->size());  // the scan counts only files' bytes
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const InputFile& a, const InputFile& b) { return a.path < b.path; });
  coverage.hosts_expected = static_cast<int64_t>(workload.nodes.size());
  for (const auto& f : out) add_covered_host(coverage, f.host_hint);
  return out;
}

Result<std::string> PushedFiles::read_text(const std::string& path) {
  return make_error(ErrorKind::input, "a pushed workload reads no file", path);
}

}  // namespace attribution

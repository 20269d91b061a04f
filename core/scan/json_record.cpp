#include "core/scan/json_record.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "core/base/time.hpp"
#include "core/scan/written_time.hpp"

namespace attribution {
namespace {

// What the record's fields left unsaid, from the prefix of its message (an NCCL "host:pid:tid" inside it).
void fill_from_message(LinePrefix& p, const LinePrefix& q) {
  if (p.host.empty()) p.host = q.host;
  if (!p.civil && !p.epoch) p.civil = q.civil, p.epoch = q.epoch, p.mono = q.mono;
  if (p.pid < 0) p.pid = q.pid;
  if (p.gpu < 0) p.gpu = q.gpu;
  if (p.rank < 0) p.rank = q.rank;
}

// A structured log record on one line: docker's json-file ({"log": ..., "time": ...}), a log
// shipper's or a program's JSON ({"hostname": ..., "timestamp": ..., "message": ...}). The machine and
// time are its fields, else what the message's own prefix says (an NCCL "host:pid:tid" inside "log").
void structured_record(std::string_view s, LinePrefix& p, LinePrefix (*message_prefix)(std::string_view)) {
  for (std::string_view key : {"hostname", "host", "nodename", "node_name", "node"})
    if (auto h = json_field(s, key); h && host_like(*h)) {
      p.host = *h;
      break;
    }
  for (std::string_view key : {"time", "timestamp", "@timestamp", "ts"})
    if (auto t = json_field(s, key)) {
      size_t used = 0;
      if (auto iso = parse_iso8601(*t, &used); iso && !p.civil) p.civil = *iso;
      break;
    }
  for (std::string_view key : {"log", "message", "msg", "MESSAGE"})
    if (auto m = json_field(s, key); m && !m->empty() && m->front() != '{') {
      fill_from_message(p, message_prefix(*m));
      break;
    }
}

}  // namespace

std::optional<std::string_view> json_field(std::string_view s, std::string_view key) {
  auto blanks = [&](size_t j) {
    while (j < s.size() && s[j] == ' ') ++j;
    return j;
  };
  for (size_t k = s.find(key); k != std::string_view::npos; k = s.find(key, k + 1)) {
    if (k == 0 || s[k - 1] != '"' || k + key.size() >= s.size() || s[k + key.size()] != '"') continue;
    size_t j = blanks(k + key.size() + 1);
    if (j >= s.size() || s[j] != ':') continue;
    j = blanks(j + 1);
    if (j >= s.size() || s[j] != '"') return std::nullopt;
    size_t e = j + 1;
    while (e < s.size() && s[e] != '"') e += s[e] == '\\' ? 2 : 1;
    return s.substr(j + 1, std::min(e, s.size()) - j - 1);
  }
  return std::nullopt;
}

LinePrefix json_record_prefix(std::string_view s, LinePrefix (*message_prefix)(std::string_view)) {
  LinePrefix p;
  std::string_view rt = json_field(s, "__REALTIME_TIMESTAMP").value_or(std::string_view());
  size_t k = 0;
  int64_t us;
  if (!rt.empty() && read_number(rt, k, &us) && k == rt.size()) p.epoch = us;
  p.host = json_field(s, "_HOSTNAME").value_or(std::string_view());
  if (!p.epoch && p.host.empty()) structured_record(s, p, message_prefix);
  return p;
}

size_t label_set(std::string_view s, size_t i, std::string_view* host) {
  if (i >= s.size() || s[i] != '{') return i;
  size_t j = i + 1;
  std::string_view found;
  for (;;) {  // key="value" pairs, ", " between them, '}' after the last
    size_t k = j;
    while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
    if (k == j || k + 1 >= s.size() || s[k] != '=' || s[k + 1] != '"') return i;
    size_t e = k + 2;
    while (e < s.size() && s[e] != '"') e += s[e] == '\\' ? 2 : 1;
    if (e >= s.size()) return i;
    std::string_view key = s.substr(j, k - j), value = s.substr(k + 2, e - k - 2);
    if (key == "instance") value = value.substr(0, value.rfind(':') == std::string_view::npos ? value.size() : value.rfind(':'));
    if (found.empty() && (key == "host" || key == "hostname" || key == "node" || key == "nodename" || key == "instance") &&
        host_like(value))
      found = value;
    j = e + 1;
    if (j < s.size() && s[j] == '}') break;
    if (j + 1 >= s.size() || s[j] != ',') return i;
    j += s[j + 1] == ' ' ? 2 : 1;
  }
  *host = found;
  j += 1;
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
  return j;
}

bool logfmt_record(std::string_view s) {
  return s.substr(0, 5) == "time=" || s.substr(0, 3) == "ts=" || s.substr(0, 6) == "level=";
}

std::optional<std::string_view> logfmt_field(std::string_view s, std::string_view key) {
  for (size_t k = s.find(key); k != std::string_view::npos; k = s.find(key, k + 1)) {
    if ((k > 0 && s[k - 1] != ' ') || k + key.size() >= s.size() || s[k + key.size()] != '=') continue;
    size_t j = k + key.size() + 1;
    if (j < s.size() && s[j] == '"') {
      size_t e = j + 1;
      while (e < s.size() && s[e] != '"') e += s[e] == '\\' ? 2 : 1;
      return s.substr(j + 1, std::min(e, s.size()) - j - 1);
    }
    return s.substr(j, std::min(s.find(' ', j), s.size()) - j);
  }
  return std::nullopt;
}

LinePrefix logfmt_record_prefix(std::string_view s, LinePrefix (*message_prefix)(std::string_view)) {
  LinePrefix p;
  for (std::string_view key : {"hostname", "host", "nodename", "node_name", "node"})
    if (auto h = logfmt_field(s, key); h && host_like(*h)) {
      p.host = *h;
      break;
    }
  for (std::string_view key : {"time", "ts", "timestamp"})
    if (auto t = logfmt_field(s, key)) {
      size_t used = 0;
      if (auto iso = parse_iso8601(*t, &used)) p.civil = *iso;
      break;
    }
  if (auto m = logfmt_field(s, "msg"); m && !m->empty()) fill_from_message(p, message_prefix(*m));
  return p;
}

}  // namespace attribution

#include "core/scan/json_record.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>

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

// The closing quote of the string opened at s[open], escapes skipped (s.size() when it never closes).
size_t closing_quote(std::string_view s, size_t open) {
  size_t e = open + 1;
  while (e < s.size() && s[e] != '"') e += s[e] == '\\' ? 2 : 1;
  return std::min(e, s.size());
}

// The keys a record names its machine by, in the order they are looked for (a Loki label set adds
// Prometheus' "instance").
constexpr std::string_view kHostKeys[] = {"hostname", "host", "nodename", "node_name", "node"};

using Field = std::optional<std::string_view> (*)(std::string_view, std::string_view);

// A structured record's machine and time from its fields (JSON or logfmt, `field` reads one), else
// what its message's own prefix says (an NCCL "host:pid:tid" inside it). In a JSON record, a message
// that is itself JSON is skipped for the next message key.
LinePrefix record_fields(std::string_view s, Field field, std::initializer_list<std::string_view> time_keys,
                         std::initializer_list<std::string_view> message_keys, bool skip_json_message,
                         LinePrefix (*message_prefix)(std::string_view)) {
  LinePrefix p;
  for (std::string_view key : kHostKeys)
    if (auto h = field(s, key); h && host_like(*h)) {
      p.host = *h;
      break;
    }
  for (std::string_view key : time_keys)
    if (auto t = field(s, key)) {
      size_t used = 0;
      if (auto iso = parse_iso8601(*t, &used)) p.civil = *iso;
      break;
    }
  for (std::string_view key : message_keys)
    if (auto m = field(s, key); m && !m->empty() && !(skip_json_message && m->front() == '{')) {
      fill_from_message(p, message_prefix(*m));
      break;
    }
  return p;
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
    return s.substr(j + 1, closing_quote(s, j) - j - 1);
  }
  return std::nullopt;
}

LinePrefix json_record_prefix(std::string_view s, LinePrefix (*message_prefix)(std::string_view)) {
  LinePrefix p;
  if (s.find('"') == std::string_view::npos) return p;  // no field can be read (a Python dict's repr): one look, not fourteen
  std::string_view rt = json_field(s, "__REALTIME_TIMESTAMP").value_or(std::string_view());
  size_t k = 0;
  int64_t us;
  if (!rt.empty() && read_number(rt, k, &us) && k == rt.size()) p.epoch = us;
  p.host = json_field(s, "_HOSTNAME").value_or(std::string_view());
  // docker's json-file ({"log": ..., "time": ...}), a log shipper's or a program's JSON lines.
  if (!p.epoch && p.host.empty())
    p = record_fields(s, json_field, {"time", "timestamp", "@timestamp", "ts"}, {"log", "message", "msg", "MESSAGE"},
                      true, message_prefix);
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
    size_t e = closing_quote(s, k + 1);
    if (e >= s.size()) return i;
    std::string_view key = s.substr(j, k - j), value = s.substr(k + 2, e - k - 2);
    const bool instance = key == "instance";
    if (instance) value = value.substr(0, value.rfind(':') == std::string_view::npos ? value.size() : value.rfind(':'));
    if (found.empty() && (instance || std::find(std::begin(kHostKeys), std::end(kHostKeys), key) != std::end(kHostKeys)) &&
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
  if (s.empty() || (s[0] != 't' && s[0] != 'l')) return false;  // asked of every line: the first byte decides most
  return s.substr(0, 5) == "time=" || s.substr(0, 3) == "ts=" || s.substr(0, 6) == "level=";
}

std::optional<std::string_view> logfmt_field(std::string_view s, std::string_view key) {
  for (size_t k = s.find(key); k != std::string_view::npos; k = s.find(key, k + 1)) {
    if ((k > 0 && s[k - 1] != ' ') || k + key.size() >= s.size() || s[k + key.size()] != '=') continue;
    size_t j = k + key.size() + 1;
    if (j < s.size() && s[j] == '"') return s.substr(j + 1, closing_quote(s, j) - j - 1);
    return s.substr(j, std::min(s.find(' ', j), s.size()) - j);
  }
  return std::nullopt;
}

LinePrefix logfmt_record_prefix(std::string_view s, LinePrefix (*message_prefix)(std::string_view)) {
  return record_fields(s, logfmt_field, {"time", "ts", "timestamp"}, {"msg"}, false, message_prefix);
}

}  // namespace attribution

#pragma once
// A line that is a whole structured record (JSON, or logfmt's key=value pairs). A whole JSON record: journald's export (__REALTIME_TIMESTAMP, _HOSTNAME), docker's
// json-file ({"log": ..., "time": ...}), a log shipper's or a program's JSON lines ({"hostname": ...,
// "timestamp": ..., "message": ...}). Its machine and time are its fields, else what the prefix of its
// message says.
#include <optional>
#include <string_view>

#include "core/scan/line_prefix.hpp"

namespace attribution {

// A string field of a one-line JSON record ("key": "value"), or nothing when the key is absent or
// its value is not a string. The value as written (escapes kept), up to its closing quote.
std::optional<std::string_view> json_field(std::string_view s, std::string_view key);

// The prefix of the JSON record `s`; `message_prefix` reads the prefix of its message text.
LinePrefix json_record_prefix(std::string_view s, LinePrefix (*message_prefix)(std::string_view));

// A logfmt record: Go's logrus text format (NVIDIA's container toolkit, device plugin, GPU and network
// operators, DCGM exporter), Vector's and Loki's logfmt: `time="2024-03-14T09:41:07Z" level=error
// msg="..." host=gpu-7`. Whether `s` is one (it starts with time=, ts= or level=).
bool logfmt_record(std::string_view s);

// A key's value in a logfmt record, without its quotes (escapes kept), or nothing.
std::optional<std::string_view> logfmt_field(std::string_view s, std::string_view key);

// The prefix of the logfmt record `s`: its time and host fields, else what its msg's prefix says.
LinePrefix logfmt_record_prefix(std::string_view s, LinePrefix (*message_prefix)(std::string_view));

// A Loki/Prometheus label set before a line's message, as Grafana and logcli print a stream's lines:
// `{host="gpu-7", job="varlogs"} `. At s[i] == '{': the offset after it and its blanks (its machine in
// *host, from the record host keys or instance), or i when it is not one.
size_t label_set(std::string_view s, size_t i, std::string_view* host);

}  // namespace attribution

#pragma once
// A line that is a whole JSON record: journald's export (__REALTIME_TIMESTAMP, _HOSTNAME), docker's
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

}  // namespace attribution

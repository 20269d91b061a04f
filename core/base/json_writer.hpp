#pragma once
// A small pretty-printing JSON writer: deterministic output, valid UTF-8 guaranteed
// (invalid bytes in log text become U+FFFD), no floating point.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attribution {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(int64_t n);
  JsonWriter& value(int n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(size_t n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  // Writes null for an empty string: optional text fields.
  JsonWriter& string_or_null(std::string_view s) { return s.empty() ? null() : value(s); }
  JsonWriter& field(std::string_view k, std::string_view s) { return key(k).value(s); }
  std::string take();

 private:
  void before_value();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
};

// Appends `s` as the inside of a JSON string (no quotes), replacing invalid UTF-8 with U+FFFD.
void append_json_escaped(std::string& out, std::string_view s);
// Returns `s` with invalid UTF-8 sequences and control characters (C0 other than tab, DEL, C1)
// replaced: log text must not drive the reader's terminal.
std::string sanitize_utf8(std::string_view s);

}  // namespace attribution

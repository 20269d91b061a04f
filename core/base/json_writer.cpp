#include "core/base/json_writer.hpp"

#include <fmt/format.h>

namespace attribution {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 if invalid.
size_t utf8_len(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

}  // namespace

// Calls ascii(c) for each ASCII byte and appends valid multi-byte sequences as they are;
// an invalid byte becomes U+FFFD.
template <typename Ascii>
void walk_utf8(std::string& out, std::string_view s, Ascii ascii, bool c1_as_replacement = false) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ascii(c);
      ++i;
    } else if (size_t n = utf8_len(s, i); n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else if (c1_as_replacement && n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      out += '?';  // a C1 control (CSI, OSC, ...) would reach the terminal like ESC does
      i += 2;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
}

void append_json_escaped(std::string& out, std::string_view s) {
  walk_utf8(out, s, [&](unsigned char c) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) out += fmt::format("\\u{:04x}", c);
        else out += static_cast<char>(c);
    }
  });
}

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  walk_utf8(
      out, s, [&](unsigned char c) { out += (c < 0x20 && c != '\t') || c == 0x7f ? '?' : static_cast<char>(c); },
      true);
  return out;
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(first_.size() * 2, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() { return end_object(), out_.back() = ']', *this; }

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  out_ += '"';
  append_json_escaped(out_, k);
  out_ += "\": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += '"';
  append_json_escaped(out_, s);
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n) {
  before_value();
  out_ += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

std::string JsonWriter::take() {
  out_ += '\n';
  return std::move(out_);
}

}  // namespace attribution

#include "core/scan/shown_text.hpp"

#include <array>
#include <cstring>

#include "core/rules/literal_search.hpp"
#include "core/scan/written_time.hpp"

namespace attribution {

namespace {

constexpr size_t kWholeCheck = size_t(1) << 20;   // files up to this size are checked whole
constexpr size_t kSampleCheck = size_t(64) << 10;  // larger ones by their head: a viewer marks every line

struct Marks {
  bool escapes = false;    // ESC '[' or U+FFFD '[' (a colour code whose ESC a copy replaced)
  bool bare_sgr = false;   // "[0m" with no ESC: a colour reset whose ESC a copy dropped
  bool typography = false; // U+2018/2019/201C/201D quotes, U+00A0, U+200B
  bool entities = false;   // &lt; &gt; &quot; &#39; &#x27; &apos; &amp;
  bool doubled = false;    // "couldn''t": an apostrophe a YAML single-quoted scalar (kubectl -o yaml) doubled
  bool any() const { return escapes || bare_sgr || typography || entities || doubled; }
};

constexpr std::array<std::string_view, 7> kEntities = {"&lt;", "&gt;", "&quot;", "&#39;", "&#x27;", "&apos;", "&amp;"};
constexpr std::array<char, 7> kEntityChars = {'<', '>', '"', '\'', '\'', '\'', '&'};

// The 3-byte UTF-8 sequences E2 80 xx read as ASCII: the quotes and the zero-width space ('\0': dropped).
char typographic(unsigned char third) {
  switch (third) {
    case 0x98: case 0x99: return '\'';
    case 0x9C: case 0x9D: return '"';
    case 0x8B: return '\0';
    default: return 1;  // not one of them
  }
}

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// "''" at s[i] inside a word ("couldn''t", "Pod''s"): YAML's escape of one apostrophe. Between other
// bytes it is code or an empty string ("''.join", "x = ''") and stays.
bool doubled_apostrophe(std::string_view s, size_t i) {
  return i > 0 && i + 2 < s.size() && s[i] == '\'' && s[i + 1] == '\'' && is_letter(s[i - 1]) && is_letter(s[i + 2]);
}

// The doubled apostrophes in `s` read once (see doubled_apostrophe); `s` itself when there are none.
std::string undoubled(std::string s) {
  if (find_byte_pair(s, '\'', '\'') == std::string_view::npos) return s;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == '\'' && doubled_apostrophe(s, i)) ++i;
  }
  return out;
}

// Each byte that can start a mark is looked for with memchr (most files hold none of them).
Marks marks_in(std::string_view s) {
  Marks m;
  if (s.empty()) return m;  // an empty view's data() may be null, which memchr must not get
  auto each = [&](char byte, auto&& check) {
    for (const char* p = s.data(); (p = static_cast<const char*>(std::memchr(p, byte, s.data() + s.size() - p)));) {
      check(s.substr(static_cast<size_t>(p - s.data())));
      ++p;
    }
  };
  each('\x1b', [&](std::string_view r) { m.escapes = m.escapes || (r.size() > 1 && r[1] == '['); });
  each('\xef', [&](std::string_view r) { m.escapes = m.escapes || r.substr(0, 4) == "\xef\xbf\xbd["; });
  each('\xc2', [&](std::string_view r) { m.typography = m.typography || (r.size() > 1 && static_cast<unsigned char>(r[1]) == 0xa0); });
  each('\xe2', [&](std::string_view r) {
    m.typography = m.typography || (r.size() > 2 && static_cast<unsigned char>(r[1]) == 0x80 && typographic(static_cast<unsigned char>(r[2])) != 1);
  });
  each('&', [&](std::string_view r) {
    for (std::string_view e : kEntities) m.entities = m.entities || r.substr(0, e.size()) == e;
  });
  for (size_t i = 0; !m.escapes && !m.bare_sgr && (i = find_byte_pair(s, '[', '0', i)) != std::string_view::npos; ++i)
    m.bare_sgr = i + 2 < s.size() && s[i + 2] == 'm';
  for (size_t i = 0; !m.doubled && (i = find_byte_pair(s, '\'', '\'', i)) != std::string_view::npos; ++i)
    m.doubled = doubled_apostrophe(s, i);
  return m;
}

// A colour code's parameters and final 'm' from s[i] (just after its '['): its end, or i when none.
size_t sgr_end(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && j - i < 16 && (is_digit(s[j]) || s[j] == ';')) ++j;
  return j < s.size() && s[j] == 'm' ? j + 1 : i;
}

// Any CSI sequence from s[i] (just after ESC '['): parameters, intermediates, a final byte.
size_t csi_end(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && j - i < 32 && static_cast<unsigned char>(s[j]) >= 0x30 && static_cast<unsigned char>(s[j]) <= 0x3f) ++j;
  while (j < s.size() && j - i < 32 && static_cast<unsigned char>(s[j]) >= 0x20 && static_cast<unsigned char>(s[j]) <= 0x2f) ++j;
  return j < s.size() && static_cast<unsigned char>(s[j]) >= 0x40 && static_cast<unsigned char>(s[j]) <= 0x7e ? j + 1 : i;
}

}  // namespace

std::optional<std::string> printed_text(std::string_view shown) {
  const Marks m = marks_in(shown.size() <= kWholeCheck ? shown : shown.substr(0, kSampleCheck));
  if (!m.any()) return std::nullopt;
  std::string out;
  out.reserve(shown.size());
  for (size_t i = 0; i < shown.size();) {
    const std::string_view r = shown.substr(i);
    const auto c = static_cast<unsigned char>(r[0]);
    if (m.escapes && c == 0x1b && r.size() > 1 && r[1] == '[') {
      if (size_t e = csi_end(shown, i + 2); e > i + 2) { i = e; continue; }
    } else if (m.escapes && c == 0xef && r.substr(0, 4) == "\xef\xbf\xbd[") {
      if (size_t e = sgr_end(shown, i + 4); e > i + 4) { i = e; continue; }
    } else if (m.bare_sgr && c == '[') {
      if (size_t e = sgr_end(shown, i + 1); e > i + 1 && e - i > 2) { i = e; continue; }
    } else if (m.typography && c == 0xc2 && r.size() > 1 && static_cast<unsigned char>(r[1]) == 0xa0) {
      out += ' ';
      i += 2;
      continue;
    } else if (m.typography && c == 0xe2 && r.size() > 2 && static_cast<unsigned char>(r[1]) == 0x80) {
      if (char a = typographic(static_cast<unsigned char>(r[2])); a != 1) {
        if (a) out += a;
        i += 3;
        continue;
      }
    } else if (m.entities && c == '&') {
      size_t k = 0;
      while (k < kEntities.size() && r.substr(0, kEntities[k].size()) != kEntities[k]) ++k;
      if (k < kEntities.size()) {
        out += kEntityChars[k];
        i += kEntities[k].size();
        continue;
      }
    }
    out += r[0];
    ++i;
  }
  // Apostrophes are undoubled last, in one pass: a YAML-doubled apostrophe a web page shows as
  // typography or entities ("couldn\u2019\u2019t", "couldn&#39;&#39;t") is a pair only once those are read.
  if (m.doubled || m.typography || m.entities) return undoubled(std::move(out));
  return out;
}

}  // namespace attribution

#include "sources/transport/kube_yaml.hpp"

#include <fmt/format.h>
#include <simdjson.h>

namespace attribution {

YamlNode::YamlNode() = default;

const YamlNode* YamlNode::get(std::string_view key) const {
  if (kind != Kind::map) return nullptr;
  for (const auto& [k, v] : map)
    if (k == key) return &v;
  return nullptr;
}

std::string YamlNode::str(std::string_view key) const {
  const YamlNode* n = get(key);
  return n && n->kind == Kind::scalar ? n->scalar : std::string();
}

namespace {

struct Line {
  size_t indent = 0;
  std::string text;  // without indentation and trailing blanks
  long number = 0;
};

bool blank(char c) { return c == ' ' || c == '\t'; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::vector<Line> lines, std::string file) : lines_(std::move(lines)), file_(std::move(file)) {}

  Result<YamlNode> document() {
    if (lines_.empty()) return YamlNode{};
    auto n = block(lines_[0].indent);
    if (!n) return n;
    if (i_ < lines_.size()) return fail(lines_[i_].number, "a line that fits no mapping or sequence above it (check its indentation)");
    return n;
  }

 private:
  Error fail(long line, std::string message) const {
    return make_error(ErrorKind::config, "kubeconfig: " + std::move(message), file_, line, {},
                      "write kubeconfig as `kubectl config view --raw` does: block mappings and sequences, "
                      "plain or quoted one-line values");
  }

  static bool is_item(const std::string& t) { return t == "-" || (t.size() > 1 && t[0] == '-' && t[1] == ' '); }

  Result<YamlNode> block(size_t indent) {
    return is_item(lines_[i_].text) ? sequence(indent) : mapping(indent);
  }

  // What follows "key:" or "-" with nothing after it on the line.
  Result<YamlNode> nested(size_t indent, bool key_context, long line) {
    if (i_ < lines_.size() && lines_[i_].indent > indent) return block(lines_[i_].indent);
    if (key_context && i_ < lines_.size() && lines_[i_].indent == indent && is_item(lines_[i_].text))
      return sequence(indent);  // "key:\n- item": kubectl writes sequences unindented
    YamlNode n;
    n.line = line;
    return n;
  }

  Result<YamlNode> mapping(size_t indent) {
    YamlNode m;
    m.kind = YamlNode::Kind::map;
    m.line = lines_[i_].number;
    while (i_ < lines_.size() && lines_[i_].indent == indent && !is_item(lines_[i_].text)) {
      const Line& l = lines_[i_];
      size_t pos = 0;
      std::string key;
      if (l.text[0] == '"' || l.text[0] == '\'') {
        auto k = quoted(l.text, pos, l.number);
        if (!k) return k.error();
        key = *k;
        while (pos < l.text.size() && blank(l.text[pos])) ++pos;
        if (pos >= l.text.size() || l.text[pos] != ':') return fail(l.number, "expected ':' after a quoted key");
      } else {
        size_t c = l.text.find(": ");
        if (c == std::string::npos && l.text.back() == ':') c = l.text.size() - 1;
        if (c == std::string::npos) return fail(l.number, "expected 'key: value' (a value cannot continue on another line)");
        key = l.text.substr(0, c);
        while (!key.empty() && blank(key.back())) key.pop_back();
        pos = c;
        if (key.empty() || key[0] == '?' || key[0] == '&' || key[0] == '*' || key[0] == '!')
          return fail(l.number, "complex keys, anchors, aliases and tags are not supported");
      }
      for (const auto& [k, v] : m.map)
        if (k == key) return fail(l.number, fmt::format("key '{}' appears twice in one mapping", key));
      ++pos;  // the ':'
      std::string rest = l.text.substr(pos);
      size_t b = 0;
      while (b < rest.size() && blank(rest[b])) ++b;
      rest = rest.substr(b);
      ++i_;
      Result<YamlNode> v = YamlNode{};
      if (rest.empty() || rest[0] == '#') v = nested(indent, true, l.number);
      else v = inline_value(rest, l.number);
      if (!v) return v.error();
      m.map.emplace_back(std::move(key), std::move(v.value()));
    }
    if (i_ < lines_.size() && lines_[i_].indent > indent)
      return fail(lines_[i_].number, "unexpected indentation (a value cannot continue on another line)");
    return m;
  }

  Result<YamlNode> sequence(size_t indent) {
    YamlNode s;
    s.kind = YamlNode::Kind::seq;
    s.line = lines_[i_].number;
    while (i_ < lines_.size() && lines_[i_].indent == indent && is_item(lines_[i_].text)) {
      Line& l = lines_[i_];
      size_t b = 1;
      while (b < l.text.size() && l.text[b] == ' ') ++b;
      std::string rest = l.text.substr(b);
      Result<YamlNode> v = YamlNode{};
      if (rest.empty() || rest[0] == '#') {
        ++i_;
        v = nested(indent, false, l.number);
      } else if (is_item(rest) || starts_mapping(rest)) {
        // "- key: value" opens a mapping whose keys line up with `key`: re-read this line there.
        l.indent += b;
        l.text = rest;
        v = block(l.indent);
      } else {
        ++i_;
        v = inline_value(rest, l.number);
        if (v && i_ < lines_.size() && lines_[i_].indent > indent)
          return fail(lines_[i_].number, "unexpected indentation (a value cannot continue on another line)");
      }
      if (!v) return v.error();
      s.seq.push_back(std::move(v.value()));
    }
    if (i_ < lines_.size() && lines_[i_].indent > indent)
      return fail(lines_[i_].number, "unexpected indentation");
    return s;
  }

  static bool starts_mapping(const std::string& t) {
    if (t[0] == '"' || t[0] == '\'') {
      char q = t[0];
      size_t e = t.find(q, 1);
      while (e != std::string::npos && q == '"' && t[e - 1] == '\\') e = t.find(q, e + 1);
      return e != std::string::npos && t.find(':', e) == t.find_first_not_of(' ', e + 1);
    }
    if (t[0] == '{' || t[0] == '[') return false;
    return t.find(": ") != std::string::npos || t.back() == ':';
  }

  // A scalar or a one-line flow collection, then nothing but a comment.
  Result<YamlNode> inline_value(const std::string& t, long line) {
    char c = t[0];
    if (c == '&' || c == '*' || c == '!') return fail(line, "anchors, aliases and tags are not supported");
    if (c == '|' || c == '>') return fail(line, "block scalars (| or >) are not supported; write the value on one line");
    if (c == '"' || c == '\'' || c == '{' || c == '[') {
      size_t pos = 0;
      auto v = flow(t, pos, line);
      if (!v) return v;
      while (pos < t.size() && blank(t[pos])) ++pos;
      if (pos < t.size() && t[pos] != '#') return fail(line, "unexpected text after a value");
      return v;
    }
    YamlNode n;
    n.line = line;
    std::string s = t;
    if (size_t h = s.find(" #"); h != std::string::npos) s.resize(h);
    while (!s.empty() && blank(s.back())) s.pop_back();
    if (s == "null" || s == "~" || s == "Null" || s == "NULL") return n;
    n.kind = YamlNode::Kind::scalar;
    n.scalar = s;
    return n;
  }

  Result<std::string> quoted(const std::string& t, size_t& pos, long line) {
    char q = t[pos++];
    std::string out;
    while (pos < t.size()) {
      char c = t[pos++];
      if (q == '\'' && c == '\'') {
        if (pos < t.size() && t[pos] == '\'') {
          out += '\'';
          ++pos;
          continue;
        }
        return out;
      }
      if (q == '"' && c == '"') return out;
      if (q == '"' && c == '\\') {
        if (pos >= t.size()) break;
        char e = t[pos++];
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case '0': out += '\0'; break;
          case '"': case '\\': case '/': case ' ': out += e; break;
          case 'x': case 'u': case 'U': {
            size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            if (pos + n > t.size()) return fail(line, "a truncated escape in a quoted value");
            uint32_t cp = 0;
            for (size_t k = 0; k < n; ++k) {
              char h = t[pos + k];
              int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
              if (d < 0) return fail(line, "a bad hexadecimal escape in a quoted value");
              cp = cp * 16 + static_cast<uint32_t>(d);
            }
            pos += n;
            append_utf8(out, cp);
            break;
          }
          default: return fail(line, "an unsupported escape in a double-quoted value");
        }
        continue;
      }
      out += c;
    }
    return fail(line, "a quoted value does not end on its line");
  }

  // Flow values: quoted scalars, {k: v, ...}, [a, ...], plain scalars up to , ] } (or : in keys).
  Result<YamlNode> flow(const std::string& t, size_t& pos, long line, bool key = false) {
    while (pos < t.size() && blank(t[pos])) ++pos;
    YamlNode n;
    n.line = line;
    if (pos >= t.size()) return fail(line, "a flow collection does not end on its line");
    char c = t[pos];
    if (c == '"' || c == '\'') {
      auto s = quoted(t, pos, line);
      if (!s) return s.error();
      n.kind = YamlNode::Kind::scalar;
      n.scalar = *s;
      n.quoted = true;
      return n;
    }
    if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      n.kind = c == '{' ? YamlNode::Kind::map : YamlNode::Kind::seq;
      ++pos;
      for (bool first = true;; first = false) {
        while (pos < t.size() && blank(t[pos])) ++pos;
        if (pos >= t.size()) return fail(line, "a flow collection does not end on its line");
        if (t[pos] == close) {
          ++pos;
          return n;
        }
        if (!first) {
          if (t[pos] != ',') return fail(line, "expected ',' in a flow collection");
          ++pos;
        }
        if (n.kind == YamlNode::Kind::seq) {
          auto v = flow(t, pos, line);
          if (!v) return v;
          n.seq.push_back(std::move(v.value()));
          continue;
        }
        auto k = flow(t, pos, line, true);
        if (!k) return k;
        while (pos < t.size() && blank(t[pos])) ++pos;
        if (pos >= t.size() || t[pos] != ':') return fail(line, "expected 'key: value' in a flow mapping");
        ++pos;
        auto v = flow(t, pos, line);
        if (!v) return v;
        n.map.emplace_back(k->scalar, std::move(v.value()));
      }
    }
    size_t b = pos;
    while (pos < t.size() && t[pos] != ',' && t[pos] != ']' && t[pos] != '}' && !(key && t[pos] == ':')) ++pos;
    std::string s = t.substr(b, pos - b);
    while (!s.empty() && blank(s.back())) s.pop_back();
    if (s != "null" && s != "~") {
      n.kind = YamlNode::Kind::scalar;
      n.scalar = s;
    }
    return n;
  }

  std::vector<Line> lines_;
  std::string file_;
  size_t i_ = 0;
};

YamlNode from_json(simdjson::dom::element e) {
  YamlNode n;
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT:
      n.kind = YamlNode::Kind::map;
      for (auto [k, v] : simdjson::dom::object(e)) n.map.emplace_back(std::string(k), from_json(v));
      break;
    case simdjson::dom::element_type::ARRAY:
      n.kind = YamlNode::Kind::seq;
      for (auto v : simdjson::dom::array(e)) n.seq.push_back(from_json(v));
      break;
    case simdjson::dom::element_type::STRING:
      n.kind = YamlNode::Kind::scalar;
      n.scalar = std::string(std::string_view(e));
      n.quoted = true;
      break;
    case simdjson::dom::element_type::BOOL:
      n.kind = YamlNode::Kind::scalar;
      n.scalar = bool(e) ? "true" : "false";
      break;
    case simdjson::dom::element_type::NULL_VALUE: break;
    default:
      n.kind = YamlNode::Kind::scalar;
      n.scalar = simdjson::minify(e);
  }
  return n;
}

}  // namespace

Result<YamlNode> parse_kube_yaml(std::string_view text, const std::string& file) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::element doc;
    if (auto err = parser.parse(padded).get(doc))
      return make_error(ErrorKind::config, fmt::format("kubeconfig: not valid JSON ({})", simdjson::error_message(err)), file);
    return from_json(doc);
  }
  std::vector<Line> lines;
  bool started = false;
  long number = 0;
  for (size_t a = 0; a <= text.size();) {
    size_t b = text.find('\n', a);
    if (b == std::string_view::npos) b = text.size();
    std::string_view raw = text.substr(a, b - a);
    a = b + 1;
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    size_t ind = 0;
    while (ind < raw.size() && raw[ind] == ' ') ++ind;
    std::string_view rest = raw.substr(ind);
    while (!rest.empty() && blank(rest.back())) rest.remove_suffix(1);
    if (rest.empty() || rest[0] == '#') continue;
    if (rest[0] == '\t')
      return make_error(ErrorKind::config, "kubeconfig: a tab in indentation (YAML indents with spaces)", file, number);
    if (ind == 0 && (rest == "---" || rest.substr(0, 4) == "--- ")) {
      if (started) return make_error(ErrorKind::config, "kubeconfig: several YAML documents in one file", file, number);
      started = true;
      continue;
    }
    if (ind == 0 && rest == "...") break;
    if (ind == 0 && rest[0] == '%')
      return make_error(ErrorKind::config, "kubeconfig: YAML directives are not supported", file, number);
    started = true;
    lines.push_back(Line{ind, std::string(rest), number});
  }
  return Parser(std::move(lines), file).document();
}

}  // namespace attribution

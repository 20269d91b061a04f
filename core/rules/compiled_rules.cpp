#include "core/rules/compiled_rules.hpp"

#include <charconv>
#include <fmt/format.h>
#include <type_traits>

namespace attribution {
namespace {

// Each field list is written once and walked by both the writer and the reader, so the two
// cannot disagree. A field added to Rule must be added here: the size check below is the
// reminder (encode_ruleset's round-trip test then proves the new list).
static_assert(sizeof(void*) != 8 || sizeof(Rule) == 560,
              "Rule changed: add the new field to rule_fields in compiled_rules.cpp, then update this size");

template <class A, class E>
void explain_fields(A& a, E& e) {
  a.io(e.what).io(e.scope).io(e.within).io(e.first);
}

template <class A, class C>
void condition_fields(A& a, C& c) {
  a.io(c.left).io(c.op).io(c.right);
}

template <class A, class R>
void repeated_fields(A& a, R& r) {
  a.io(r.processes).io(r.category).io(r.family).io(r.blame).io(r.confidence).io(r.action);
}

template <class A, class R>
void rule_fields(A& a, R& r) {
  a.io(r.id).io(r.title).io(r.pattern).io(r.category).io(r.family).io(r.blame).io(r.confidence);
  a.io(r.action).io(r.literals).io(r.streams).io(r.role).io(r.priority).io(r.lines).io(r.burst);
  a.io(r.explains).io(r.repeated).io(r.when).io(r.fallback).io(r.generic).io(r.tail).io(r.signal).io(r.file).io(r.line);
}

template <class A, class M>
void metric_fields(A& a, M& m) {
  a.io(m.id).io(m.selector).io(m.condition).io(m.threshold).io(m.file).io(m.line);
}

// Strings as "<length>:<bytes>", numbers (enums, flags) as "<decimal>;", lists as their length
// then their items, optionals as a flag then the value.
class Writer {
 public:
  std::string out;
  Writer& io(const std::string& s) {
    fmt::format_to(std::back_inserter(out), "{}:", s.size());
    out += s;
    return *this;
  }
  Writer& io(double d) {  // fmt's shortest form reads back to the same double
    fmt::format_to(std::back_inserter(out), "{};", d);
    return *this;
  }
  template <class N>
    requires std::is_integral_v<N> || std::is_enum_v<N>
  Writer& io(N n) {
    fmt::format_to(std::back_inserter(out), "{};", static_cast<long long>(n));
    return *this;
  }
  template <class T>
  Writer& io(const std::optional<T>& o) {
    io(o.has_value());
    if (o) io(*o);
    return *this;
  }
  template <class T>
  Writer& io(const std::vector<T>& v) {
    io(v.size());
    for (const auto& x : v) io(x);
    return *this;
  }
  Writer& io(const Explain& e) { return explain_fields(*this, e), *this; }
  Writer& io(const Condition& c) { return condition_fields(*this, c), *this; }
  Writer& io(const Repeated& r) { return repeated_fields(*this, r), *this; }
  Writer& io(const Rule& r) { return rule_fields(*this, r), *this; }
  Writer& io(const MetricSpec& m) { return metric_fields(*this, m), *this; }
};

class Reader {
 public:
  explicit Reader(std::string_view text) : in_(text) {}
  bool failed() const { return failed_; }
  size_t offset() const { return pos_; }
  bool at_end() const { return pos_ == in_.size(); }

  Reader& io(std::string& s) {
    long long n = number(':');
    if (failed_ || n < 0 || static_cast<size_t>(n) > in_.size() - pos_) return fail();
    s.assign(in_.substr(pos_, static_cast<size_t>(n)));
    pos_ += static_cast<size_t>(n);
    return *this;
  }
  Reader& io(double& d) {
    std::string_view t = token();
    if (failed_ || std::from_chars(t.data(), t.data() + t.size(), d).ptr != t.data() + t.size()) return fail();
    return *this;
  }
  template <class N>
    requires std::is_integral_v<N> || std::is_enum_v<N>
  Reader& io(N& n) {
    long long v = number(';');
    n = static_cast<N>(v);
    return *this;
  }
  template <class T>
  Reader& io(std::optional<T>& o) {
    bool has = false;
    io(has);
    if (has && !failed_) io(o.emplace());
    return *this;
  }
  template <class T>
  Reader& io(std::vector<T>& v) {
    long long n = number(';');
    // Every item takes at least one byte: a corrupt count fails instead of allocating.
    if (failed_ || n < 0 || static_cast<size_t>(n) > in_.size() - pos_) return fail();
    v.resize(static_cast<size_t>(n));
    for (auto& x : v)
      if (!failed_) io(x);
    return *this;
  }
  Reader& io(Explain& e) { return explain_fields(*this, e), *this; }
  Reader& io(Condition& c) { return condition_fields(*this, c), *this; }
  Reader& io(Repeated& r) { return repeated_fields(*this, r), *this; }
  Reader& io(Rule& r) {
    rule_fields(*this, r);
    r.re = std::make_shared<RulePattern>(r.pattern);
    return *this;
  }
  Reader& io(MetricSpec& m) { return metric_fields(*this, m), *this; }

 private:
  Reader& fail() {
    failed_ = true;
    return *this;
  }
  std::string_view token() {
    size_t end = in_.find(';', pos_);
    if (failed_ || end == std::string_view::npos) {
      fail();
      return {};
    }
    std::string_view t = in_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return t;
  }
  long long number(char end_mark) {
    size_t end = failed_ ? std::string_view::npos : in_.find(end_mark, pos_);
    long long v = 0;
    if (end == std::string_view::npos ||
        std::from_chars(in_.data() + pos_, in_.data() + end, v).ptr != in_.data() + end) {
      fail();
      return 0;
    }
    pos_ = end + 1;
    return v;
  }

  std::string_view in_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace

std::string encode_ruleset(const std::vector<Rule>& rules, const std::vector<MetricSpec>& metrics) {
  Writer w;
  w.io(rules).io(metrics);
  return std::move(w.out);
}

Result<CompiledRuleset> decode_ruleset(std::string_view text, const std::string& file) {
  Reader r(text);
  CompiledRuleset out;
  r.io(out.rules).io(out.metrics);
  if (r.failed() || !r.at_end())
    return make_error(ErrorKind::rules, fmt::format("compiled ruleset is malformed at byte {}", r.offset()), file, 0, {},
                      "rebuild the binary: the built-in rules are compiled into it");
  return out;
}

}  // namespace attribution

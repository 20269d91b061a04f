#include "core/rules/matcher.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

namespace attribution {

struct Matcher::SetHolder {
  RE2::Set set;
  SetHolder(const RE2::Options& o) : set(o, RE2::UNANCHORED) {}
};

Matcher::Matcher(const RuleSet& rules) : rules_(rules) {}
Matcher::~Matcher() = default;

Result<std::shared_ptr<Matcher>> Matcher::build(const RuleSet& rules) {
  std::shared_ptr<Matcher> m(new Matcher(rules));
  RE2::Options opt;
  opt.set_log_errors(false);
  opt.set_max_mem(64 << 20);
  // Tail rules stay out of the forward prefilter: their lines are many and only the last ones count.
  for (const auto& r : rules.rules)
    if (!r.tail) m->literals_.insert(m->literals_.end(), r.literals.begin(), r.literals.end());
  for (const auto& l : m->literals_) m->longest_literal_ = std::max(m->longest_literal_, l.size());
  m->prefilter_ = std::make_unique<LiteralSearch>(m->literals_);
  m->set_ = std::make_unique<SetHolder>(opt);
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    const Rule& r = rules.rules[i];
    if (r.tail) {
      m->tail_rules_.push_back(static_cast<int>(i));
      continue;
    }
    if (r.lines > 1) {
      m->block_rules_.push_back(static_cast<int>(i));
      continue;
    }
    std::string err;
    if (m->set_->set.Add(r.pattern, &err) < 0)
      return make_error(ErrorKind::rules, fmt::format("rule {}: {}", r.id, err), r.file, r.line, r.id);
    m->set_to_rule_.push_back(static_cast<int>(i));
  }
  if (!m->set_->set.Compile()) return make_error(ErrorKind::rules, "cannot compile the rule set (out of memory?)");
  return m;
}

std::unique_ptr<LiteralSearch> Matcher::tuned_prefilter(std::string_view sample) const {
  return std::make_unique<LiteralSearch>(literals_, sample);
}

size_t Matcher::next_candidate_line(std::string_view buf, size_t from, const LiteralSearch* search) const {
  if (from >= buf.size()) return std::string_view::npos;
  size_t pos = (search ? search : prefilter_.get())->find(buf, from);
  if (pos == std::string_view::npos) return pos;
  size_t nl = buf.rfind('\n', pos);
  size_t start = nl == std::string_view::npos ? 0 : nl + 1;
  return start < from ? from : start;
}

bool Matcher::has_literal(int index, std::string_view line) const {
  for (const auto& l : rules_.rules[index].literals)
    if (line.find(l) != std::string_view::npos) return true;
  return false;
}

void Matcher::match_line(std::string_view line, Stream stream, std::vector<int>* hits) const {
  hits->clear();
  thread_local std::vector<int> set_hits;  // reused: no allocation per candidate line
  set_hits.clear();
  if (!set_->set.Match(re2::StringPiece(line.data(), line.size()), &set_hits)) return;
  for (int h : set_hits) {
    int idx = set_to_rule_[h];
    if (rules_.rules[idx].reads_stream(stream) && has_literal(idx, line)) hits->push_back(idx);
  }
  std::sort(hits->begin(), hits->end());
}

void Matcher::block_triggers(std::string_view line, Stream stream, std::vector<int>* hits) const {
  hits->clear();
  for (int idx : block_rules_)
    if (rules_.rules[idx].reads_stream(stream) && has_literal(idx, line)) hits->push_back(idx);
}

void Matcher::tail_hits(std::string_view line, Stream stream, std::vector<int>* hits) const {
  hits->clear();
  for (int idx : tail_rules_) {
    std::map<std::string, std::string> caps;
    if (rules_.rules[idx].reads_stream(stream) && has_literal(idx, line) && captures(idx, line, &caps)) hits->push_back(idx);
  }
}

void Matcher::line_rules(std::string_view line, Stream stream, std::vector<int>* hits, std::vector<int>* blocks) const {
  match_line(line, stream, hits);
  block_triggers(line, stream, blocks);
  for (int r : *hits)
    if (rules_.rules[r].role == Role::benign) {
      *hits = {r};
      blocks->clear();
      return;
    }
}

bool Matcher::captures(int index, std::string_view text, std::map<std::string, std::string>* out) const {
  return rule_captures(rules_.rules[index], text, out);
}

}  // namespace attribution

#pragma once
// Rules as data: the model, the TOML loader and the sample checks (docs/rules.md).
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/captures.hpp"
#include "core/base/enums.hpp"
#include "core/base/result.hpp"
#include "core/base/time.hpp"

namespace re2 {
class RE2;
class StringPiece;
}

namespace attribution {

enum class Role { cause, symptom, context, benign };
enum class Scope { gpu, host, job, peer };

std::string_view to_string(Role r);
std::string_view to_string(Scope s);

struct Explain {
  std::string what;  // rule id or glob, "category:X", "family:X", "role:symptom"
  Scope scope = Scope::job;
  Micros within = 0;
  // Only when the explaining line came first: earlier in time, or, where a time is inferred, earlier in
  // the same file (srun's "task N: Killed" before the step's CANCELLED line is why srun cancelled it;
  // after it, the cancel's teardown).
  bool first = false;
};

struct Sample {
  std::string line;
  std::map<std::string, std::string> captures;  // expected named groups
  long source_line = 0;
};

// NVIDIA's catalogue reads some Xids by how they repeat: one process hitting Xid 13/31/43 is an
// application fault, while the same Xid from several processes (restarts, other jobs) on one GPU
// that no other GPU of the job shows points at that GPU. What the root cause becomes then.
struct Repeated {
  int processes = 2;  // distinct processes (pids) that hit it on the one GPU
  std::string category, family;
  Blame blame = Blame::unknown;
  Confidence confidence = Confidence::high;
  std::string action;
};

// How a symptom reads when no cause is found (precedence): a rank that gave up waiting for its
// peers (a collective or barrier timeout), a process ending after an error elsewhere, or a
// communication library reporting an error of its own (a system, internal or CUDA error) that names
// no peer and no device fault.
enum class Signal { error, timeout, teardown, library };

// A rule's compiled pattern. A built-in ruleset as compiled in was checked when the binary was
// built, so its patterns compile on first use: most rules meet no candidate line in a given job,
// and compiling them all is most of a small diagnosis's start-up. Thread-safe.
class RulePattern {
 public:
  explicit RulePattern(std::shared_ptr<const re2::RE2> compiled);  // compiled and checked now
  explicit RulePattern(std::string deferred);                      // compiled on first use
  ~RulePattern();
  const re2::RE2& get() const;
  // The text every match starts with (RE2's own range of what the pattern can match; empty when
  // nothing is fixed, as for "a|b" or (?i)): a search tries the pattern only where it stands.
  std::string_view lead() const;
  // Whether the pattern matches `text` (as an unanchored RE2 match would say, with the same
  // submatches): tried anchored at each place the lead stands, the leftmost that matches winning,
  // which spares RE2 its search of the text for the match's bounds before it reads the submatches.
  bool search(std::string_view text, re2::StringPiece* groups, int n) const;

 private:
  std::string pattern_;
  mutable std::once_flag once_;
  mutable std::shared_ptr<const re2::RE2> re_;
  mutable std::string lead_;
};

struct Rule {
  std::string id, title, pattern, category, family;
  std::optional<Blame> blame;  // required of causes
  Confidence confidence = Confidence::medium;  // default: high for causes, medium otherwise
  std::string action;
  std::vector<std::string> literals;
  std::vector<Stream> streams;  // empty: every stream
  Role role = Role::symptom;
  int priority = 50;
  int lines = 1;
  Micros burst = 60 * kMicrosPerSecond;
  std::vector<Explain> explains;
  std::optional<Repeated> repeated;
  std::vector<Condition> when;  // all must hold for a match
  // A cause that is one only when nothing stronger is there (a row-remap-pending Xid, one RDMA
  // completion error): the root cause, at low confidence, only when no other cause exists.
  bool fallback = false;
  // A reading of any line of a kind (any Python RuntimeError) that yields, on a line, to a cause or
  // symptom rule reading the same line more closely: one line is one fault, told by the rule that knows it.
  bool generic = false;
  // A per-call trace (a line per collective): the forward scan skips it, and only each process's
  // last matching line near the end of a file is read (how far it got). Single-line rules only.
  bool tail = false;
  Signal signal = Signal::error;
  std::vector<Sample> match, no_match;
  std::string file;  // where it was defined, for messages
  long line = 0;
  // The compiled pattern (shared by copies of the rule); see RulePattern.
  std::shared_ptr<const RulePattern> re;
  const re2::RE2& regex() const;
  bool reads_stream(Stream stream) const;
};

// A metric to evaluate (docs/metrics.md): the source queries `selector` for the job's hosts over the
// window and states each series whose `condition` holds as a line in the "metrics" stream;
// ordinary rules read those lines (so metric findings have samples and roles like log findings).
struct MetricSpec {
  std::string id, selector;
  std::string condition = "increase";  // increase | changed | above
  double threshold = 0;                // increase/above: must exceed it; changed: ignored
  std::string file;
  long line = 0;
};

struct RuleSet {
  std::vector<Rule> rules;  // sorted by id
  std::vector<MetricSpec> metrics;  // sorted by id
  std::string digest;       // SHA-256 over the rule sources used
  const Rule* find(std::string_view id) const;
};

// Parses one ruleset file's text; compiles patterns; does not run samples. `metrics` gets the
// file's [[metric]] tables when non-null (they are an error otherwise).
// `checked`: the text is a built-in ruleset as compiled in (its patterns were checked at build
// time): patterns compile on first use. Without `samples` the rules carry none (the text's were
// blanked) and none is required.
Result<std::vector<Rule>> parse_rules(std::string_view text, const std::string& file,
                                      std::vector<MetricSpec>* metrics = nullptr, bool checked = false,
                                      bool samples = true);
// Errors from the shared TOML helpers are config errors; about rules, they are rules errors.
Error as_rules_error(Error e);
// The rule's named captures on `text` (repeated names merged, the first that took part wins);
// false unless the pattern matches and every `when` condition holds.
bool rule_captures(const Rule& rule, std::string_view text, std::map<std::string, std::string>* out);
// The two halves of rule_captures: whether the pattern matches `text` (as RE2::PartialMatch says),
// with its named captures; and whether a match's captures meet the rule's `when` conditions.
bool rule_groups(const Rule& rule, std::string_view text, std::map<std::string, std::string>* out);
bool when_holds(const Rule& rule, const std::map<std::string, std::string>& captures);
// Runs one rule's samples through the prefilter + pattern path that scanning uses (the scan may
// first ask a PatternSet, which answers as the pattern does).
Status check_samples(const Rule& rule);
// A selector of an `explains` entry matches a rule.
bool selector_matches(std::string_view selector, const Rule& rule);

}  // namespace attribution

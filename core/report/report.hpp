#pragma once
// Pass 7: the one report model every renderer reads (docs/report.md, schema attribution.report/1).
#include <optional>
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "core/analysis/precedence.hpp"
#include "core/rules/rules.hpp"
#include "core/analysis/timeline.hpp"

namespace attribution {

constexpr const char* kSchemaVersion = "attribution.report/1";

struct ReportEvidence {
  std::string id;
  Micros time = 0;
  bool time_inferred = false;
  std::string source, host;
  int rank = -1;
  std::string location, text;
  bool cut = false;  // text cut at Limits::evidence_text_bytes, with a "[... N more bytes]" marker
  std::map<std::string, std::string> captures;  // the matching rule's named groups on this line
};

// The bounds that keep a report and the tool's memory small (docs/reliability.md), and how often
// this run hit them. Always present, so consumers see the bounds a report was made under.
struct Limits {
  int64_t evidence_text_bytes = 0;   // longest evidence text kept per line
  int64_t evidence_per_finding = 2;  // first and last line of a folded burst (count says how many)
  int64_t evidence_per_symptom = 0;  // evidence lines listed per symptom
  int64_t findings = 0;              // distinct findings kept in all, shared out over the files
  int64_t findings_per_file = 0;     // this run's share per file
  int64_t texts_cut = 0;             // evidence and unread-line texts cut in this report
  int64_t lines_not_kept = 0;        // matching lines past the findings bound: counted, not kept
};

struct ReportRootCause {
  std::string id, rule, title, category, family;
  Blame blame = Blame::unknown;
  Confidence confidence = Confidence::low;
  std::string action;
  std::string host, pci;
  int gpu = -1, rank = -1;
  int64_t pid = -1;     // the process the line names or that printed it
  std::string process;  // its name, where the line gives it (the OOM killer's victim)
  std::string message;  // the first evidence line's own words (the exception and its text)
  Micros first_seen = 0, last_seen = 0;
  bool time_inferred = false;
  int64_t count = 0;
  int64_t explains = 0;  // symptoms and secondary causes attached
  bool localised = false;  // residual localisation, not a matched fault signature
  std::string detail;
  std::vector<std::string> evidence;
};

struct ReportSymptom {
  std::string rule, title, role;  // role: symptom, or cause when a secondary cause
  std::vector<std::string> hosts;
  std::vector<int> ranks;
  int64_t count = 0;
  Micros first_seen = 0;
  bool time_inferred = false;
  std::string explained_by;  // root cause id, empty for none
  std::string why;
  std::vector<std::string> evidence;
};

struct AffectedNode {
  std::string host, role;  // root_cause | symptomatic | clean | no_data
  std::vector<std::string> gpus;
  std::vector<int> ranks;
  int64_t findings = 0;
};

struct Outcome {
  std::string category, family;
  Blame blame = Blame::unknown;
  std::string summary;
  Confidence confidence = Confidence::low;
  std::string action;
  std::vector<std::string> exclude_nodes;
  // Why the confidence is lower than the top root cause's rule gives: gaps in the evidence (a
  // source that failed or gave nothing, nodes without data, an inferred year).
  std::vector<std::string> caveats;
};

struct Report {
  std::string tool_version;
  Workload workload;
  Outcome outcome;
  std::vector<ReportRootCause> root_causes;
  std::vector<ReportSymptom> symptoms;
  std::vector<AffectedNode> affected_nodes;
  std::vector<ReportEvidence> evidence;
  // With no root cause: the lines that read like errors and that no rule read (U1..Un, in the
  // logs' order), where an SRE starts when the tool does not know the failure.
  std::vector<ReportEvidence> unread;
  std::vector<SourceCoverage> sources;
  Limits limits;
  size_t rule_count = 0;
  std::string ruleset_digest, inputs_digest;
  int64_t benign_lines = 0, other_host_lines = 0;
  bool usable_data = true;  // false when no source produced any bytes
};

// What the scan learnt about the evidence as a whole, beyond its findings.
struct EvidenceFacts {
  bool year_inferred = false;  // year-less stamps with nothing in the job to give their year
  std::vector<std::string> unmatched_hosts;  // the node list names none of these hosts the logs name
  std::vector<Evidence> unread;  // pasted excerpts' lines that read like errors and no rule read
};

Report build_report(const Workload& workload, const Timeline& timeline, const Diagnosis& diagnosis,
                    const RuleSet& rules, std::vector<SourceCoverage> sources, const EvidenceFacts& facts = {});

// Shared by renderers: "node03 GPU 5 (0000:b9:00.0)" or "node03".
std::string where(const std::string& host, int gpu, const std::string& pci, int rank);
// A root cause's place with its process: "node03 rank 5 pid 4242 (python3)".
std::string where(const ReportRootCause& rc);

}  // namespace attribution

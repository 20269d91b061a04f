#include "core/scan/evidence.hpp"

#include <fmt/format.h>

#include "core/base/limits.hpp"
#include "core/base/json_writer.hpp"

namespace attribution {

std::string evidence_text(std::string_view line) {
  if (line.size() <= kMaxEvidenceText) return sanitize_utf8(line);
  // Cut on a UTF-8 boundary so the kept prefix stays valid.
  size_t cut = kMaxEvidenceText;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return sanitize_utf8(line.substr(0, cut)) + fmt::format(" [... {} more bytes]", line.size() - cut);
}

Evidence make_evidence(const PendingEvidence& p, const std::string& source, const std::string& path) {
  Evidence e;
  e.time = p.time;
  e.time_inferred = p.time_inferred;
  e.source = source;
  e.host = p.host;
  e.rank = p.rank;
  e.location = fmt::format("{}:{}", path, p.line_no);
  // Every capture goes into the evidence (what a rule author reads in the report); the finding
  // keeps only those later passes read.
  for (const auto& [k, v] : p.captures) e.captures.emplace(k, sanitize_utf8(std::string_view(v).substr(0, kMaxEvidenceText)));
  e.cut = p.line.size() > kMaxEvidenceText;
  if (p.block.empty()) {
    e.text = evidence_text(p.line);
  } else {  // a block: its lines joined by " | "
    std::string_view text = p.block;
    for (size_t a = 0; a <= text.size();) {
      size_t b = text.find('\n', a);
      if (b == std::string_view::npos) b = text.size();
      e.text += (a ? " | " : "") + evidence_text(text.substr(a, b - a));
      e.cut |= b - a > kMaxEvidenceText;
      a = b + 1;
    }
  }
  return e;
}

}  // namespace attribution

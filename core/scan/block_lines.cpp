#include "core/scan/block_lines.hpp"

#include <algorithm>

#include "core/base/limits.hpp"
#include "core/scan/line_prefix.hpp"
#include "core/scan/paste_markers.hpp"

namespace attribution {

std::string join_block_lines(std::string_view buf, size_t start, int lines, std::vector<size_t>* starts, bool messages) {
  std::string out;
  size_t pos = start;
  for (int i = 0; i < lines && pos < buf.size(); ++i) {
    if (starts) starts->push_back(pos);
    size_t eol = buf.find('\n', pos);
    std::string_view l = buf.substr(pos, eol == std::string_view::npos ? buf.npos : eol - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    l.remove_prefix(paste_markers(l));
    std::string_view msg = messages ? printed_part(l, true) : l;
    if (!messages)
      if (LinePrefix p = parse_line_prefix(l); !p.civil && !p.mono && !p.epoch) msg = l.substr(std::min(l.size(), p.message_offset));
    if (i) out += '\n';
    out.append(msg.substr(0, kMaxEvidenceText));
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  return out;
}

std::optional<std::string> without_common_indent(std::string_view block) {
  auto each_line = [&](auto&& f) {
    for (size_t pos = 0; pos <= block.size();) {
      const size_t eol = std::min(block.find('\n', pos), block.size());
      f(pos, block.substr(pos, eol - pos));
      pos = eol + 1;
    }
  };
  size_t common = std::string_view::npos;
  each_line([&](size_t, std::string_view l) {
    if (size_t lead = l.find_first_not_of(" \t"); lead != std::string_view::npos) common = std::min(common, lead);
  });
  if (common == 0 || common == std::string_view::npos) return std::nullopt;
  std::string out;
  out.reserve(block.size());
  each_line([&](size_t pos, std::string_view l) {
    if (pos) out += '\n';
    out.append(l.substr(std::min(common, l.size())));
  });
  return out;
}

}  // namespace attribution

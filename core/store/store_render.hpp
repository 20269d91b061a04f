#pragma once
// Views of the store's lists: the JSON the REST API and `history/nodes --format json` answer
// with, and the text tables the CLI prints. One implementation each, shared by both.
#include <string>
#include <vector>

#include "core/store/store.hpp"

namespace attribution {

std::string render_reports_json(const std::vector<StoredReport>& reports);
std::string render_nodes_json(const std::vector<NodeRecord>& nodes);
std::string render_reports_text(const std::vector<StoredReport>& reports);
std::string render_nodes_text(const std::vector<NodeRecord>& nodes);

}  // namespace attribution

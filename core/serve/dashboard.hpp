#pragma once
// GET /: the dashboard page, one self-contained HTML document (inline CSS and SVG, no script):
// recent diagnoses with their filters, the repeat-offender nodes, the outcome mix over time.
#include <string>
#include <vector>

#include "core/store/store.hpp"

namespace attribution {

struct DashboardView {
  std::string store;                  // where the reports come from
  std::string family, host, since;    // the filters as asked ("" for none)
  std::vector<std::string> families;  // every family in the store, for the filter
  std::vector<StoredReport> reports;  // newest first, filtered
  std::vector<StoredReport> mix;      // the reports the outcome-mix chart counts
  std::vector<NodeRecord> offenders;
  Micros now = 0;
  int chart_days = 14;
};

std::string render_dashboard(const DashboardView& view);

}  // namespace attribution

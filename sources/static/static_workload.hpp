#pragma once
// A workload declared in a TOML file (scheduler = "static"): id, name, user, nodes (a Slurm
// hostlist or a list), start, end, state, exit_code.
#include <string>

#include "core/base/model.hpp"
#include "core/base/result.hpp"

namespace attribution {

Result<Workload> read_static_workload(const std::string& path, const TimeZone& tz);
Result<Workload> parse_static_workload(std::string_view text, const std::string& file, const TimeZone& tz);

}  // namespace attribution

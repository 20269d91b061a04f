#pragma once
// Slurm hostlist expressions: "node[001-004,007],gpu-a05", "rack[1-2]-node[01-02]".
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"

namespace attribution {

// Expands in Slurm's order (bracket groups as a product, left group outermost), zero padding kept.
Result<std::vector<std::string>> expand_hostlist(std::string_view expr);

}  // namespace attribution

#pragma once
// The machine a log file's name or directory names, in a flat directory of excerpts or a --logs tree:
// the words of a file name (log kinds, counters, dates, what happened) peeled off until a machine is left.
#include <set>
#include <string>
#include <string_view>

namespace attribution {

// The machine a file's name names, in a flat directory of excerpts: "dmesg-node12.txt",
// "node12.log", "syslog_gpu-a-07_2025-03-14.log". With `nodes`, a name token equal to a node;
// without, a token left after the log kind, dates and counters are removed that looks like a host
// name (letters and digits, not a common word). Empty when the name names no machine.
std::string host_from_file_name(const std::string& path, const std::set<std::string>& nodes);

// Whether the immediate subdirectory of a --logs tree names the machine of the files under it
// ("logs/node03/dmesg.log"): not a number, a counter or a word for what the logs are (torchrun's
// "attempt_0/3/stderr.log", mpirun's "output/1/rank.3/stderr").
bool directory_names_machine(std::string_view dir);

}  // namespace attribution

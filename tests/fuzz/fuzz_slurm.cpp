// Every Slurm answer parser: sacct/squeue/slurmrestd JSON, scontrol text, sinfo -R, sacctmgr events.
// The first byte picks the parser so one corpus covers them all.
#include "sources/slurm/slurm_parse.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string_view body = fuzz::text(data + 1, size - 1);
  static const TimeZone plus8 = *TimeZone::parse("+08:00");
  switch (data[0] % 5) {
    case 0:
      if (auto jobs = parse_slurm_json(body, "fuzz"))
        for (const auto& j : *jobs) (void)expand_slurm_path("%x-%j-%A_%a-%u-%N-%n-%t-%s-%%.out", j);
      break;
    case 1:
      if (auto jobs = parse_scontrol_text(body, plus8))
        for (const auto& j : *jobs) (void)expand_slurm_path(j.std_out, j);
      break;
    case 2: (void)parse_sinfo_reasons(body, TimeZone::utc()); break;
    case 3: (void)parse_slurm_nodes_json(body); break;
    case 4: (void)parse_node_events(body, plus8); break;
  }
  return 0;
}

#pragma once
// What a log line says about itself before its message: time, host, rank, device, pid.
// Handles srun --label "N: ", PyTorch "[rankN]:", "[defaultN]:", Ray "(Worker pid=N) ",
// collector ISO stamps, RFC 3164 syslog with or without hostname, journal short-iso,
// dmesg "[mono]" and "[Sun Feb 23 16:24:18 2025]", NCCL "[%F %T] host:pid:tid [dev] ",
// glog "[E1218 20:27:21.426415540 file:line]" and elastic "E0813 08:21:22.980000 pid file:line]",
// journald JSON records (__REALTIME_TIMESTAMP, _HOSTNAME), raw syslog ("<13>" before RFC 3164, RFC 5424
// whole), UCX's "[unix.micros]", vLLM's "LEVEL MM-DD HH:MM:SS", SGLang's "[date time TPn]" and Ray's
// "[date time,ms L pid tid]".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/time.hpp"
#include "core/scan/host_word.hpp"
#include "core/scan/paste_markers.hpp"
#include "core/scan/written_time.hpp"

namespace attribution {

struct LinePrefix {
  std::optional<CivilTime> civil;  // wall clock as written (maybe without year or zone)
  std::optional<Micros> epoch;     // an absolute instant (journald)
  std::optional<Micros> mono;      // dmesg seconds since boot
  std::string_view host;           // empty when the line does not name one
  int rank = -1;                   // global rank ([rankN]:, OpenMPI's tag)
  int task = -1;                   // srun --label's task id ("12: "): a rank only where the layout says so
  int local_rank = -1;             // [defaultN]:
  int gpu = -1;                    // NCCL [cudaDev]
  int64_t pid = -1;
  size_t message_offset = 0;       // where the text after all known prefixes starts
  size_t paste_markers = 0;        // paste_markers(line): the quote markers / line number the line starts with
};

LinePrefix parse_line_prefix(std::string_view line);

// The line after its prefixes (a quote's markers, a launcher's label, a viewer's column, a stamp, a
// host): what the program printed. `keep_indent`: the blanks after one separating blank stay (a
// block's or a header's layout); else none do. The whole line when it has no prefix.
std::string_view printed_part(std::string_view line, bool keep_indent);

// Where a line's time comes from when its prefix is not absolute.
struct TimeContext {
  TimeZone zone;                  // for local wall-clock times without zone
  Micros year_anchor = 0;         // year-less times go to the year nearest this instant,
  std::optional<Micros> boot;     // boot instant, for dmesg seconds since boot
  std::optional<Micros> year_cap; // year-less times never land after this instant
  std::optional<Micros> year_floor;  // nor before this one
};

// The UTC time a prefix gives, if it gives one.
std::optional<Micros> resolve_time(const LinePrefix& p, const TimeContext& ctx);

}  // namespace attribution

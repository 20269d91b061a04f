#pragma once
// Which words name machines: the test every reader of a line's prefix, a file's name or a prompt puts
// to a word before it takes the word as a host.
#include <string_view>

namespace attribution {

// The bytes of a host name as logs print it: letters, digits, '-', '_', '.'.
// ASCII only, inline: libc's isalnum is a call through the locale's table, made for every byte of
// every prefix the scan reads.
inline bool ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

inline bool host_char(char c) { return ascii_alnum(c) || c == '-' || c == '_' || c == '.'; }

// Where the run of host_char bytes starting at s[i] ends (i when there is none).
inline size_t host_word_end(std::string_view s, size_t i) {
  while (i < s.size() && host_char(s[i])) ++i;
  return i;
}

// A machine's name where only a machine can stand (a prompt's user@host, ssh's target, a file's name):
// any case, as gethostname gives it ("HGX-H100-11").
bool any_case_host(std::string_view w);

// any_case_host in lower case only: where a word could also be a program's or a logger's name.
bool lower_host(std::string_view w);

// A word that can be a machine's name: letters, digits, '-', '_', '.', with at least one digit or
// '-' or '.' (node12, gpu-a-3, ip-10-0-0-7, 10.0.0.7) so that "RuntimeError:" or "kernel:" is not.
bool host_like(std::string_view w);

// A paste's stand-in for a machine it hid ("xxx", "node-xx", "hostname", a template's "SERVER_NAME"):
// no machine.
bool redacted_host(std::string_view w);

// "gpu0", "gpu-3", "gpu_12": a GPU's index, not a machine. GPUs per node are counted below 16 and
// written without leading zeros; "gpu042", "gpu-049", "gpu01" and "gpu17" are machines' names.
bool gpu_index_word(std::string_view w);

// A word of running prose ("with", "the", "and", "is"): a stamped continuation line ("<stamp> with
// err: rpc error ...") reads like "<stamp> host tag:", but no machine is called that.
bool prose_word(std::string_view w);

// Whether a word before a label's ':' or a syslog tag can be a machine's name: host_like, and not a
// Python module, a program, a GPU's index or a counter ("rank3", "step_100").
bool could_name_machine(std::string_view w);

// A program's or a GPU operator container's name that has a host name's shape ("python3", "nvidia-smi",
// "nvidia-container-cli", "nvidia-driver-ctr"), as a line's label or a log file's name.
bool names_program(std::string_view w);

}  // namespace attribution

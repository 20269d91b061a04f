#pragma once
// The closed sets of the tool, parsed once where text comes in (config, rules, bundles) and printed
// once where text goes out (renderers); everything between compares enums, never strings. Source
// kinds and schedulers are open sets: they are registry entries (sources/registry.hpp), resolved
// once when the config is read.
#include <optional>
#include <string_view>

namespace attribution {

// Which rules read a source's lines.
enum class Stream { applog, syslog, scheduler, metrics };
// Who should act on a fault.
enum class Blame { unknown, infrastructure, application, scheduler };
// How sure the diagnosis is, lowest first (so a step down is a decrement).
enum class Confidence { low, medium, high };

std::string_view to_string(Stream s);
std::string_view to_string(Blame b);
std::string_view to_string(Confidence c);
std::optional<Stream> parse_stream_name(std::string_view text);
constexpr Stream kAllStreams[] = {Stream::applog, Stream::syslog, Stream::scheduler, Stream::metrics};
std::optional<Blame> parse_blame(std::string_view text);
std::optional<Confidence> parse_confidence(std::string_view text);

}  // namespace attribution

#include "core/base/enums.hpp"

#include <array>
#include <utility>

namespace attribution {
namespace {

template <typename E, size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& names, E e) {
  for (const auto& [v, n] : names)
    if (v == e) return n;
  return "?";
}

template <typename E, size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view text) {
  for (const auto& [v, n] : names)
    if (n == text) return v;
  return std::nullopt;
}

constexpr std::array<std::pair<Stream, std::string_view>, 4> kStreams{
    {{Stream::applog, "applog"}, {Stream::syslog, "syslog"}, {Stream::scheduler, "scheduler"}, {Stream::metrics, "metrics"}}};
constexpr std::array<std::pair<Blame, std::string_view>, 4> kBlames{{{Blame::unknown, "unknown"},
                                                                     {Blame::infrastructure, "infrastructure"},
                                                                     {Blame::application, "application"},
                                                                     {Blame::scheduler, "scheduler"}}};
constexpr std::array<std::pair<Confidence, std::string_view>, 3> kConfidences{
    {{Confidence::low, "low"}, {Confidence::medium, "medium"}, {Confidence::high, "high"}}};

}  // namespace

std::string_view to_string(Stream s) { return name_of(kStreams, s); }
std::string_view to_string(Blame b) { return name_of(kBlames, b); }
std::string_view to_string(Confidence c) { return name_of(kConfidences, c); }
std::optional<Stream> parse_stream_name(std::string_view text) { return value_of(kStreams, text); }
std::optional<Blame> parse_blame(std::string_view text) { return value_of(kBlames, text); }
std::optional<Confidence> parse_confidence(std::string_view text) { return value_of(kConfidences, text); }

}  // namespace attribution

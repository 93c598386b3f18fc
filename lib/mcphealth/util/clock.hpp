#pragma once
// Time as the rest of the core sees it: a seam so backoff and TTL tests advance time instead of sleeping.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::util {

/// Milliseconds since the Unix epoch, the unit of every timestamp in the state file.
using EpochMs = std::int64_t;

/// A source of wall-clock time and of waiting; tests substitute a fake that moves only when told.
class Clock {
public:
  virtual ~Clock() = default;
  /// Returns the current time in epoch milliseconds.
  virtual EpochMs now_ms() const = 0;
  /// Waits for about `ms` milliseconds.
  virtual void sleep_ms(std::int64_t ms) = 0;
};

/// The real clock: the system's wall clock and a real sleep.
class SystemClock final : public Clock {
public:
  EpochMs now_ms() const override;
  void sleep_ms(std::int64_t ms) override;
};

/// Formats epoch milliseconds as ISO-8601 UTC with milliseconds, e.g. `2026-11-30T18:07:45.123Z`.
std::string format_iso8601_ms(EpochMs ms);

/// Reads a UTC time as format_iso8601_ms writes it (`2026-12-03T14:49:34.937Z`; the fraction may have 0 to 9
/// digits); nothing for anything else.
std::optional<EpochMs> parse_iso8601_ms(std::string_view text);

/// Formats a duration as a short human string: `850ms`, `42s`, `8m12s`, `3h5m`.
std::string format_duration_short(std::int64_t ms);

} // namespace mcphealth::util

#pragma once
// The variables file of what runs unattended, `~/.config/mcphealth/env`: the service's settings and the variables
// its servers' definitions reference. Three programs read it, so it has one syntax they all read alike: systemd's
// `EnvironmentFile=`, the launchd agent's `/bin/sh` (`set -a; . FILE`), and mcphealth itself (a `probe` from cron,
// `watch`), which takes from it what its own environment does not set.
//
//   # a comment, and blank lines
//   KEY=value             a value of letters, digits and _./:@%+,=- alone
//   KEY='any text'        in single quotes; a ' inside is written '\''
//
// No `export`, no double quotes, no newline in a value: a line outside this syntax is kept as it is and not read.
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::config {

/// Where the file is: `~/.config/mcphealth/env` (the same for the systemd unit and the launchd agent).
std::filesystem::path variables_file(const std::filesystem::path& home);

/// One line of the file, and what it sets when it is of the syntax.
struct VariableLine {
  std::string raw;
  std::optional<std::string> key = std::nullopt;
  std::string value = {};
};
std::vector<VariableLine> read_variable_lines(std::string_view text);

/// What the file sets, each key once (the last line wins, as every reader takes it).
std::map<std::string, std::string> variables_in(std::string_view text);

/// The line that sets `key` to `value`, quoted when the value needs it; nothing for a value no line can hold (a
/// newline, or another control character) or a key that is not a variable's name.
std::optional<std::string> variable_line(std::string_view key, std::string_view value);

/// `text` (the file as it is, or empty) with a line for each of `wanted` it does not set yet, appended; the lines
/// already there are kept byte for byte (a key the file sets keeps its line, whatever `wanted` says).
struct MergedVariables {
  std::string text;
  std::vector<std::string> added;
  /// Keys the file sets already, to another value than `wanted`'s.
  std::vector<std::string> kept_other;
};
MergedVariables merge_variables(std::string_view text, const std::vector<std::pair<std::string, std::string>>& wanted);

/// The variables the file at `file` sets that `env` does not set itself (or sets empty): what an unattended probe
/// takes from it. Nothing when there is no such file.
std::map<std::string, std::string> variables_to_take(const util::Environment& env, const std::filesystem::path& file);

} // namespace mcphealth::config

#pragma once
// Options' values checked at the edge: a word of a list becomes its enum (CLI11 transforms it), a path or a number
// is checked for what the command needs; what is refused gets one plain sentence, not CLI11's wording, and --help
// shows the option's type name alone.
#include <mcphealth/util/text.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace mcphealth::cli {

/// The words, comma-separated, in the order given: `json, exit-code, passthrough`.
inline std::string words_of(const std::vector<std::string>& words) { return util::join(words, ", "); }

/// A transform from one of `names` (any case) to its enum value; any other word is refused as "X is not one of a,
/// b, c". The option's text must list the words: --help shows only its type name.
template <typename Enum>
CLI::Validator one_of(std::vector<std::pair<std::string, Enum>> names) {
  std::vector<std::string> words;
  for (const auto& n : names) words.push_back(n.first);
  const std::string list = words_of(words);
  return CLI::Validator(
      [names = std::move(names), list](std::string& value) -> std::string {
        std::string lower = value;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        for (const auto& [word, e] : names) {
          if (word == lower) {
            value = std::to_string(static_cast<int>(e));
            return {};
          }
        }
        return value + " is not one of " + list;
      },
      ""); // the option's own text lists the words: said once in --help, not again after its type name
}

/// A check that the word is one of `words` (exactly): "X is not one of a, b, c" otherwise.
inline CLI::Validator one_of_words(std::vector<std::string> words) {
  const std::string list = words_of(words);
  return CLI::Validator(
      [words = std::move(words), list](std::string& value) -> std::string {
        if (std::find(words.begin(), words.end(), value) != words.end()) return {};
        const std::optional<std::string> meant = util::closest_match(value, words);
        return value + " is not one of " + list + (meant ? " (did you mean " + *meant + "?)" : std::string());
      },
      ""); // as above
}

/// A folder that exists: "no folder X" otherwise.
inline CLI::Validator existing_folder() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::error_code ec;
        if (std::filesystem::is_directory(value, ec)) return {};
        return std::filesystem::exists(value, ec) ? value + " is not a folder" : "no folder " + value;
      },
      "");
}

/// A file that exists: "no file X" otherwise.
inline CLI::Validator existing_file() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::error_code ec;
        if (std::filesystem::is_regular_file(value, ec)) return {};
        return std::filesystem::exists(value, ec) ? value + " is not a file" : "no file " + value;
      },
      "");
}

/// A path whose folder exists (the file itself may not yet): a file the command can create.
inline CLI::Validator in_existing_folder() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::filesystem::path folder = std::filesystem::absolute(value).parent_path();
        std::error_code ec;
        if (std::filesystem::is_directory(folder, ec)) return {};
        return "no folder " + folder.string() + " to keep " + value + " in";
      },
      "");
}

/// A whole number from `lo` to `hi`: "X is not a whole number from LO to HI" otherwise.
inline CLI::Validator whole_number(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec == std::errc() && end == value.data() + value.size() && n >= lo && n <= hi) return {};
        return value + " is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
      },
      "");
}

} // namespace mcphealth::cli

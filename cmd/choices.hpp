#pragma once
// Options that take one word of a list: the word becomes its enum at the edge (CLI11 transforms it), and a word
// not in the list gets one plain sentence, not CLI11's rendering of the map.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace mcphealth::cli {

/// The words, comma-separated, in the order given: `json, exit-code, passthrough`.
inline std::string words_of(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

/// A transform from one of `names` (any case) to its enum value; any other word is refused as "X is not one of a,
/// b, c".
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
      "one of " + list);
}

/// A check that the word is one of `words` (exactly): "X is not one of a, b, c" otherwise.
inline CLI::Validator one_of_words(std::vector<std::string> words) {
  const std::string list = words_of(words);
  return CLI::Validator(
      [words = std::move(words), list](std::string& value) -> std::string {
        if (std::find(words.begin(), words.end(), value) != words.end()) return {};
        return value + " is not one of " + list;
      },
      "one of " + list);
}

} // namespace mcphealth::cli

#include <mcphealth/util/diff.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mcphealth::util {

std::string unified_diff(const std::string& before, const std::string& after, const std::string& name) {
  if (before == after) return {};
  auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t nl = text.find('\n', start);
      out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    return out;
  };
  const std::vector<std::string> a = lines(before), b = lines(after);
  // Longest common subsequence over lines: settings files are small (a cap keeps a huge one from costing much).
  if (a.size() * b.size() > 25'000'000) return "--- " + name + "\n+++ " + name + "\n(too large to diff)\n";
  std::vector<std::vector<std::uint32_t>> lcs(a.size() + 1, std::vector<std::uint32_t>(b.size() + 1, 0));
  for (std::size_t i = a.size(); i-- > 0;) {
    for (std::size_t j = b.size(); j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  struct Op { char kind; std::size_t ai, bi; };
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) ops.push_back({' ', i++, j++});
    // On a tie the removal comes first, as diff and git print a changed line: `-old` then `+new`.
    else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push_back({'-', i++, j});
    else ops.push_back({'+', i, j++});
  }
  std::string out = "--- " + name + "\n+++ " + name + " (after)\n";
  constexpr std::size_t k_context = 3;
  std::size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].kind == ' ') {
      ++k;
      continue;
    }
    // A hunk: from 3 lines before this change to 3 lines after the last change within reach.
    std::size_t begin = k >= k_context ? k - k_context : 0;
    std::size_t end = k;
    std::size_t quiet = 0;
    while (end < ops.size() && quiet <= 2 * k_context) {
      quiet = ops[end].kind == ' ' ? quiet + 1 : 0;
      ++end;
    }
    end = std::min(ops.size(), end - (quiet > k_context ? quiet - k_context : 0));
    std::size_t a_count = 0, b_count = 0;
    for (std::size_t x = begin; x < end; ++x) {
      if (ops[x].kind != '+') ++a_count;
      if (ops[x].kind != '-') ++b_count;
    }
    out += "@@ -" + std::to_string(ops[begin].ai + (a_count ? 1 : 0)) + "," + std::to_string(a_count) + " +" +
           std::to_string(ops[begin].bi + (b_count ? 1 : 0)) + "," + std::to_string(b_count) + " @@\n";
    for (std::size_t x = begin; x < end; ++x) {
      out += ops[x].kind;
      out += ops[x].kind == '+' ? b[ops[x].bi] : a[ops[x].ai];
      out += '\n';
    }
    k = end;
  }
  return out;
}

} // namespace mcphealth::util

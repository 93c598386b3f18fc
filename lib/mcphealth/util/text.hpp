#pragma once
// Text helpers every layer uses: trimming, cutting to a byte budget without splitting a character, and making text
// from outside safe to print on one line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

namespace mcphealth::util {

/// Cuts `text` to at most `max_bytes` bytes without splitting a UTF-8 sequence.
std::string cap_utf8(std::string_view text, std::size_t max_bytes);

/// Removes leading and trailing white space.
std::string trim(std::string_view text);

/// Returns `text` with every control character written as an escape (`\n`, `\r`, `\t`, `\x1b`, ...), so a name or
/// an error from outside can never split a log line or drive a terminal: the C0 controls and DEL, the C1 controls
/// (`\u009b` is a terminal's CSI), the characters that reorder or split what is shown (bidi overrides and isolates,
/// `\u202e`; line and paragraph separators), and bytes that are not UTF-8 (`\xff`). Other text passes unchanged.
/// The one rule for every line a person reads.
std::string escape_control(std::string_view text);

/// `text` without the terminal's escape sequences a command's colours are made of (`\x1b[31m`, and any other
/// sequence that begins with ESC), every other control character escaped as escape_control does: a program's
/// coloured error as one plain line.
std::string strip_terminal_escapes(std::string_view text);

/// The word after `prefix` in `text` (up to a space, a quote or `}:;,`), or nothing: the `API_KEY` of
/// `... ${API_KEY} is not set`, the command of `spawn foo ENOENT`.
std::string_view word_after(std::string_view text, std::string_view prefix);

/// `text` as well-formed UTF-8: every byte that does not belong to a valid sequence becomes U+FFFD, so what is
/// written as JSON for another program is JSON to every parser.
std::string valid_utf8(std::string_view text);

/// `url` fit to show: userinfo becomes `***@`, every query value and the fragment `***`
/// (`http://u:pw@h/mcp?token=s&x` -> `http://***@h/mcp?token=***&x`), as env and header values are never shown.
/// Text that is not a URL is returned as it is.
std::string redact_url(std::string_view url);

/// Whether two URLs name one endpoint as a client compares them: the scheme and host in any case, a trailing `/`
/// or none (`HTTP://H/mcp/` is `http://h/mcp`).
bool same_url(std::string_view a, std::string_view b);

/// The candidate `word` most likely meant, for "did you mean" in usage errors: the one candidate it starts (3
/// characters or more), else the closest by edit distance if close enough (at most 2 edits, or a third of the
/// word for long words).
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// The lines of `text`, without their newlines (a last line without one counts; nothing for empty text).
std::vector<std::string> split_lines(std::string_view text);

/// `items` joined by `separator`: `a, b, c`; empty for none.
std::string join(const std::vector<std::string>& items, std::string_view separator);

/// The one wording every command uses for a name it does not know: `unknown server 'svcc' (did you mean svc?);
/// known: a, b` (`what` is `server`; `known` in name order, each once, `none` when empty).
std::string unknown_name(std::string_view what, std::string_view name, std::vector<std::string> known);

/// True when `text` matches `pattern`, where `*` matches any run of characters and everything else itself.
bool glob_match(std::string_view pattern, std::string_view text);

/// Quotes `text` for `/bin/sh` with single quotes (for showing a command, never for building one).
std::string shell_quote(std::string_view text);

/// `text` as one `/bin/sh` word: as it is when every character is plain (letters, digits, `/._+-=:,@%`), else
/// `shell_quote`d. Safe to run (a hook command's program), and what a person would type.
std::string shell_word(std::string_view text);

/// Splits a command line into words as /bin/sh would for plain commands: spaces separate, single and double quotes
/// group, a backslash outside quotes escapes the next character. No expansion of any kind.
std::vector<std::string> shell_words(std::string_view command);

/// The line of a multi-line error worth showing in one row: the last one that says something, skipping blank
/// lines, stack frames (indented lines: Python's `  File ...`, Node's `    at ...`), carets and braces, and Node's
/// closing `Node.js v20.1.0`. For a Python traceback that is `ModuleNotFoundError: No module named 'x'`. Text
/// with one line comes back trimmed.
std::string last_meaningful_line(std::string_view text);

/// Where a parser stopped, for a person: ` near `…"ttl": 5000,}…` (line 3)` with up to 30 characters each side of
/// `column` (1-based) of `line`; empty when the text has no such line.
std::string text_at(std::string_view text, std::size_t line, std::size_t column);

/// The first `N.N.N` in a program's `--version` text (`2.1.197 (Claude Code)`, `codex-cli 0.171.0`, `GitHub Copilot
/// CLI 1.0.102.`); nothing when there is none.
std::optional<std::string> version_in(std::string_view text);

/// Compares dotted versions number by number (`2.1.1000` > `2.1.332`): negative, zero or positive.
int compare_versions(std::string_view a, std::string_view b);

/// The 64-bit FNV-1a hash of `text`: stable across runs, builds and platforms (unlike std::hash), for keys and
/// file names; not a digest that keeps anything secret.
constexpr std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

/// fnv1a(text) as 16 hex digits.
std::string fnv1a_hex(std::string_view text);

} // namespace mcphealth::util

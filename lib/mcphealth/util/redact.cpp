#include <mcphealth/util/redact.hpp>

#include <mcphealth/util/text.hpp>

#include <algorithm>
#include <cctype>

namespace mcphealth::util {

namespace {

constexpr std::string_view k_hidden = "***";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_delimiter(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0 || c == '"' || c == '\'' || c == '`' || c == '<' ||
         c == '>' || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == ',' || c == ';';
}

bool only_separators(std::string_view t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c == ':' || c == '=' || c == '>'; });
}

/// An authorization scheme whose next word is the credential (`Bearer x`, `Basic x`, `token x`).
bool auth_scheme(std::string_view t) {
  const std::string l = lower(t);
  return l == "bearer" || l == "basic" || l == "digest" || l == "token" || l == "apikey" || l == "api-key";
}

/// The table of token shapes: a prefix, and how many characters at least follow it.
struct TokenPrefix {
  std::string_view prefix;
  std::size_t min_rest;
};
constexpr TokenPrefix k_token_prefixes[] = {
    {"ghp_", 16},     {"gho_", 16},     {"ghs_", 16},     {"ghu_", 16},    {"ghr_", 16},    {"github_pat_", 16},
    {"sk-ant-", 12},  {"sk-proj-", 12}, {"sk-", 16},      {"sk_live_", 8}, {"sk_test_", 8}, {"rk_live_", 8},
    {"rk_test_", 8},  {"xoxb-", 8},     {"xoxp-", 8},     {"xoxa-", 8},    {"xoxr-", 8},    {"xoxs-", 8},
    {"glpat-", 12},   {"npm_", 20},     {"hf_", 20},      {"AIza", 30},    {"shpat_", 16},  {"pypi-", 16},
    {"dop_v1_", 16},  {"SG.", 20},
};

/// Whether a word is shaped like a well-known token (a row of the table, an AWS key id, a JWT).
bool token_shaped(std::string_view w) {
  for (const TokenPrefix& p : k_token_prefixes) {
    if (w.size() >= p.prefix.size() + p.min_rest && w.substr(0, p.prefix.size()) == p.prefix) return true;
  }
  // AWS access key ids: AKIA (long-term) or ASIA (temporary) and 16 capitals or digits.
  if (w.size() == 20 && (w.substr(0, 4) == "AKIA" || w.substr(0, 4) == "ASIA")) {
    return std::all_of(w.begin(), w.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c)); });
  }
  // A JWT: three base64url parts, the first a JSON object (`eyJ`).
  if (w.size() > 30 && w.substr(0, 3) == "eyJ" && std::count(w.begin(), w.end(), '.') == 2) return true;
  return false;
}

/// Trailing punctuation a sentence puts after a word (`... ghp_xxx.`), kept outside the word.
std::size_t trailing_punctuation(std::string_view w) {
  std::size_t n = 0;
  while (n < w.size() && std::string_view(".:!?").find(w[w.size() - 1 - n]) != std::string_view::npos) ++n;
  return n;
}

/// What the scanner expects next after a word.
enum class Expect {
  nothing,
  separator,     // a secret's name: a `:` or `=` makes the next word its value
  value,         // the next word is a secret
  scheme_value,  // the word after an authorization scheme (`Bearer x`): a secret, unless it is a word of prose
};

/// A word of prose: lower-case letters alone (`challenge`, `the`). No credential a scheme introduces looks so.
bool prose_word(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

/// Redacts one word (a run without delimiters); `expect` carries over to the next word.
std::string redact_word(std::string_view t, Expect& expect) {
  if (expect == Expect::scheme_value) {
    if (only_separators(t)) return std::string(t);
    expect = Expect::nothing;
    if (prose_word(t.substr(0, t.size() - trailing_punctuation(t)))) return std::string(t);
    return std::string(k_hidden);
  }
  if (expect == Expect::value) {
    if (only_separators(t)) return std::string(t);
    if (auth_scheme(t)) {
      expect = Expect::scheme_value;
      return std::string(t);
    }
    expect = Expect::nothing;
    return std::string(k_hidden);
  }
  if (expect == Expect::separator) {
    expect = Expect::nothing;
    if (only_separators(t)) {
      expect = Expect::value;
      return std::string(t);
    }
  }
  if (t.find("://") != std::string_view::npos) {
    // A URL, or `NAME=scheme://...`: the URL's own parts, and a secret name's whole value.
    const std::size_t eq = t.find('=');
    if (eq != std::string_view::npos && eq < t.find("://") && secret_name(t.substr(0, eq))) {
      return std::string(t.substr(0, eq + 1)) + std::string(k_hidden);
    }
    return redact_url(t);
  }
  if (const std::size_t at = t.rfind('@'); at != std::string_view::npos && t.substr(0, at).find(':') != std::string_view::npos) {
    // `user:password@host` without a scheme (a URL typed wrong, quoted by a client), or `NAME=` before it.
    const std::size_t eq = t.substr(0, at).find('=');
    const std::size_t start = eq == std::string_view::npos ? 0 : eq + 1;
    return std::string(t.substr(0, start)) + "***@" + std::string(t.substr(at + 1));
  }
  const std::size_t sep = t.find_first_of("=:");
  if (sep != std::string_view::npos && sep > 0) {
    std::string_view name = t.substr(0, sep);
    while (!name.empty() && name.front() == '-') name.remove_prefix(1);
    std::size_t value_at = sep + 1;
    while (value_at < t.size() && only_separators(t.substr(value_at, 1))) ++value_at;
    const std::string_view value = t.substr(value_at);
    if (secret_name(name)) {
      if (value.empty()) {
        expect = Expect::value;
        return std::string(t);
      }
      // `Authorization:Bearer TOKEN`, `Authorization=Token TOKEN`: the scheme is no secret, the word after it is.
      if (auth_scheme(value)) {
        expect = Expect::scheme_value;
        return std::string(t);
      }
      return std::string(t.substr(0, value_at)) + std::string(k_hidden);
    }
    if (!value.empty()) {
      Expect inner = Expect::nothing;
      return std::string(t.substr(0, value_at)) + redact_word(value, inner);
    }
    return std::string(t);
  }
  // `Bearer x` in any case; `Basic x` capitalized only (the word is common in prose).
  if (lower(t) == "bearer" || t == "Basic") {
    expect = Expect::scheme_value;
    return std::string(t);
  }
  const std::size_t punct = trailing_punctuation(t);
  if (token_shaped(t.substr(0, t.size() - punct))) return std::string(k_hidden) + std::string(t.substr(t.size() - punct));
  // `--password VALUE` takes its value as the next word; a bare name (`token`) needs a `:` or `=` first.
  if (secret_name(t)) expect = t.size() > 1 && t[0] == '-' ? Expect::value : Expect::separator;
  return std::string(t);
}

} // namespace

bool secret_name(std::string_view name) {
  const std::string l = lower(name);
  for (std::string_view word : {"token", "secret", "passw", "apikey", "auth", "credential", "cookie", "privatekey",
                                "accesskey", "signature", "bearer"}) {
    if (l.find(word) != std::string::npos) return true;
  }
  // Short words count as a whole part of the name only (`API_KEY`, `X-Api-Key`, `GITHUB_PAT`), so `PATH` and
  // `monkey` are not secrets.
  std::size_t start = 0;
  for (std::size_t i = 0; i <= l.size(); ++i) {
    if (i == l.size() || !std::isalnum(static_cast<unsigned char>(l[i]))) {
      const std::string_view part = std::string_view(l).substr(start, i - start);
      for (std::string_view word : {"key", "pat", "pwd", "pass", "sig", "jwt"}) {
        if (part == word) return true;
      }
      start = i + 1;
    }
  }
  return false;
}

const std::vector<SecretShape>& secret_shapes() {
  static const std::vector<SecretShape> shapes = {
      {"URL userinfo", "invalid URL http://deploy:S3CR3Tpw@127.0.0.1:9/mcp", "S3CR3Tpw"},
      {"URL query value", "GET https://h.example/mcp?access_token=QV3RYs3cret failed", "QV3RYs3cret"},
      {"user:password@host", "connect deploy:UsErPa55@10.0.0.1:5432 refused", "UsErPa55"},
      {"NAME=value", "fatal: GITHUB_TOKEN=abc123notashape is invalid", "abc123notashape"},
      {"NAME=value (lower case)", "using api_key=lowerKEY987 for requests", "lowerKEY987"},
      {"header", "X-Api-Key: hdrSECRET4242 rejected", "hdrSECRET4242"},
      {"Authorization header", "Authorization: Bearer authHDRtok77 expired", "authHDRtok77"},
      {"Bearer", "sent Bearer bearerTOK55 and got 401", "bearerTOK55"},
      {"Basic", "sent Basic dXNlcjpzZWNyZXRwYXNz and got 401", "dXNlcjpzZWNyZXRwYXNz"},
      {"JSON field", R"(config {"token":"jsonTOKval1","user":"x"})", "jsonTOKval1"},
      {"JSON field, spaced", R"(bad {"api_key": "jsonKEYval2"})", "jsonKEYval2"},
      {"GitHub token", "auth failed for ghp_0123456789abcdefABCDEF0123456789abcd", "ghp_0123456789abcdefABCDEF0123456789abcd"},
      {"GitHub fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"},
      {"Anthropic key", "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 refused", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"},
      {"OpenAI key", "sk-proj-abcdefghijklmnop0123456789 is not valid", "sk-proj-abcdefghijklmnop0123456789"},
      {"Stripe key", "sk_live_51Habcdefghijklmnop rejected", "sk_live_51Habcdefghijklmnop"},
      {"AWS key id", R"({"aws":"AKIAIOSFODNN7EXAMPLE"})", "AKIAIOSFODNN7EXAMPLE"},
      {"Slack token", "slack said xoxb-123456789012-abcdefghijkl.", "xoxb-123456789012-abcdefghijkl"},
      {"GitLab token", "glpat-abcdefghij0123456789 expired", "glpat-abcdefghij0123456789"},
      {"Google API key", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234 denied", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234"},
      {"npm token", "npm_abcdefghijklmnopqrstuvwxyz0123456789 revoked", "npm_abcdefghijklmnopqrstuvwxyz0123456789"},
      {"Hugging Face token", "hf_abcdefghijklmnopqrstuvwxyzABCD invalid", "hf_abcdefghijklmnopqrstuvwxyzABCD"},
      {"JWT", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU rejected", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU"},
  };
  return shapes;
}

std::string redact(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  Expect expect = Expect::nothing;
  for (std::size_t i = 0; i < text.size();) {
    if (is_delimiter(text[i])) {
      // A secret's name waits for its `:` across spaces and quotes (`"token": "x"`), not past the end of a line or
      // of what brackets it (`(... oauth-authorization-server): the client`).
      if (expect == Expect::separator && std::string_view("\n()[]{},;<>").find(text[i]) != std::string_view::npos)
        expect = Expect::nothing;
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !is_delimiter(text[end])) ++end;
    out += redact_word(text.substr(i, end - i), expect);
    i = end;
  }
  return out;
}

std::vector<std::string> redact_args(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  bool value_next = false;
  for (const std::string& a : args) {
    const bool option = a.size() > 1 && a[0] == '-';
    if (value_next && !option) {
      out.emplace_back(k_hidden);
      value_next = false;
      continue;
    }
    value_next = option && a.find('=') == std::string::npos && secret_name(std::string_view(a).substr(a.rfind("--", 0) == 0 ? 2 : 1));
    out.push_back(redact(a));
  }
  return out;
}

} // namespace mcphealth::util

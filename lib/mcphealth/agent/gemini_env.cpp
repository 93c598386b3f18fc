// How Gemini CLI starts a stdio server: what it passes of its own environment, what it refuses, where (agent/
// gemini_env.hpp).
#include <mcphealth/agent/gemini_env.hpp>

#include <mcphealth/util/json.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::agent {

namespace {

// How Gemini CLI 0.61.0 builds a stdio server's environment from its own: it redacts what may be a secret (always,
// whatever `security.environmentVariableRedaction.enabled` says), sets GEMINI_CLI=1 beneath, refuses `env` keys that
// change how a runtime starts, and reads each `env` value again against what is left, where an unset variable
// becomes "". Seen from a server that printed its environment under `gemini mcp list` (the allowed and blocked
// lists of that setting changed nothing there, so they are not read here).

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_word(char c) { return is_alnum(c) || c == '_'; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

/// How many characters from `at` on satisfy `in_class`, at most `most`.
template <class Pred> std::size_t run_of(std::string_view s, std::size_t at, Pred in_class, std::size_t most = std::string_view::npos) {
  std::size_t n = 0;
  while (at + n < s.size() && n < most && in_class(s[at + n])) ++n;
  return n;
}

/// Whether some `prefix` in `s` is followed by at least `count` characters of `in_class`.
template <class Pred> bool prefix_then(std::string_view s, std::string_view prefix, Pred in_class, std::size_t count) {
  for (std::size_t at = s.find(prefix); at != std::string_view::npos; at = s.find(prefix, at + 1)) {
    if (run_of(s, at + prefix.size(), in_class, count) >= count) return true;
  }
  return false;
}

/// Whether an upper-cased value looks like a secret to Gemini CLI: a private key or certificate, credentials in a
/// URL, or a GitHub, Google, AWS, JWT, Stripe or Slack token.
bool value_looks_secret(std::string_view v) {
  for (std::string_view marker : {"-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----",
                                  "-----BEGIN EC PRIVATE KEY-----", "-----BEGIN PGP PRIVATE KEY-----",
                                  "-----BEGIN CERTIFICATE-----"}) {
    if (v.find(marker) != std::string_view::npos) return true;
  }
  // scheme://user:password@
  for (std::string_view scheme : {"HTTP://", "HTTPS://", "FTP://", "SMTP://"}) {
    for (std::size_t at = v.find(scheme); at != std::string_view::npos; at = v.find(scheme, at + 1)) {
      std::size_t i = at + scheme.size();
      const std::size_t user = run_of(v, i, [](char c) { return c != ':' && !is_space(c); }, 1024);
      if (user == 0 || i + user >= v.size() || v[i + user] != ':') continue;
      i += user + 1;
      const std::size_t password = run_of(v, i, [](char c) { return c != '@' && !is_space(c); }, 1024);
      if (password > 0 && i + password < v.size() && v[i + password] == '@') return true;
    }
  }
  for (std::string_view p : {"GHP_", "GHO_", "GHU_", "GHS_", "GHR_", "GITHUB_PAT_"}) {
    if (prefix_then(v, p, is_word, 36)) return true;
  }
  if (prefix_then(v, "AIZASY", [](char c) { return is_word(c) || c == '-' || c == '\\'; }, 33)) return true;
  if (prefix_then(v, "AKIA", is_alnum, 16)) return true;
  for (std::string_view p : {"SK_LIVE_", "SK_TEST_", "RK_LIVE_", "RK_TEST_"}) {
    if (prefix_then(v, p, is_alnum, 24)) return true;
  }
  for (std::string_view p : {"XOXA-", "XOXB-", "XOXP-", "XOXR-"}) {
    if (prefix_then(v, p, [](char c) { return is_alnum(c) || c == '-'; }, 1)) return true;
  }
  // A JWT: eyJ, then two dots between runs of base64url characters (any of them may be empty).
  const auto b64url = [](char c) { return is_word(c) || c == '-'; };
  for (std::size_t at = v.find("EYJ"); at != std::string_view::npos; at = v.find("EYJ", at + 1)) {
    std::size_t i = at + 3 + run_of(v, at + 3, b64url);
    if (i >= v.size() || v[i] != '.') continue;
    i += 1 + run_of(v, i + 1, b64url);
    if (i < v.size() && v[i] == '.') return true;
  }
  return false;
}

/// Whether Gemini CLI passes one of its variables on to a stdio server; `strict` in a GitHub Action (GITHUB_SHA
/// set, or SURFACE=Github), where only the few it always passes go.
bool gemini_passes(std::string_view name, std::string_view value, bool strict) {
  static const std::vector<std::string_view> always = {
      "PATH", "SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR", "TEMP", "TMP", "USERPROFILE", "SYSTEMDRIVE", "HOME",
      "LANG", "SHELL", "TMPDIR", "USER", "LOGNAME", "TERM", "COLORTERM", "ADDITIONAL_CONTEXT", "AVAILABLE_LABELS",
      "BRANCH_NAME", "DESCRIPTION", "EVENT_NAME", "GITHUB_ENV", "IS_PULL_REQUEST", "ISSUES_TO_TRIAGE", "ISSUE_BODY",
      "ISSUE_NUMBER", "ISSUE_TITLE", "PULL_REQUEST_NUMBER", "REPOSITORY", "TITLE", "TRIGGERING_ACTOR"};
  static const std::vector<std::string_view> never = {
      "CLIENT_ID", "DB_URI", "CONNECTION_STRING", "AWS_DEFAULT_REGION", "AZURE_CLIENT_ID", "AZURE_TENANT_ID",
      "SLACK_WEBHOOK_URL", "TWILIO_ACCOUNT_SID", "DATABASE_URL", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_ACCOUNT",
      "FIREBASE_PROJECT_ID"};
  static const std::vector<std::string_view> secret_words = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY",
                                                             "AUTH", "CREDENTIAL", "CREDS", "PRIVATE", "CERT"};
  const std::string key = upper(name);
  const auto listed = [&](const std::vector<std::string_view>& list) {
    return std::find(list.begin(), list.end(), key) != list.end();
  };
  if (key.rfind("GEMINI_CLI_", 0) == 0) return true;
  if (value_looks_secret(upper(value))) return false;
  if (key.rfind("GIT_CONFIG_", 0) == 0 || listed(always)) return true;
  if (listed(never) || strict) return false;
  return std::none_of(secret_words.begin(), secret_words.end(),
                      [&](std::string_view w) { return key.find(w) != std::string::npos; });
}

/// The `env` keys Gemini CLI refuses to set for a server: they change how a runtime or the loader starts.
bool gemini_refuses(std::string_view name) {
  static const std::vector<std::string_view> refused = {
      "NODE_OPTIONS", "NODE_CLI_FLAGS", "_FORCE_NODE_OPTIONS", "NODE_PATH", "ELECTRON_RUN_AS_NODE", "PYTHONPATH",
      "PYTHONSTARTUP", "RUBYOPT", "RUBYLIB", "PERL5OPT", "PERL5LIB", "LD_PRELOAD", "LD_AUDIT", "LD_DEBUG",
      "LD_PROFILE", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_FORCE_FLAT_NAMESPACE", "DYLD_LIBRARY_PATH",
      "DYLD_FRAMEWORK_PATH", "DYLD_FALLBACK_LIBRARY_PATH", "DYLD_FALLBACK_FRAMEWORK_PATH", "BASH_ENV", "ENV",
      "PERL5DB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "CLASSPATH", "DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER_PATH",
      "CORECLR_ENABLE_PROFILING"};
  return std::find(refused.begin(), refused.end(), upper(name)) != refused.end();
}

} // namespace

void start_as_gemini(config::ServerDefinition& def, const util::Environment& env) {
  def.expansion = config::VarExpansion::braces_and_bare;
  def.cwd = util::get_string(def.raw, "cwd").value_or("");
  const bool strict = !env.get("GITHUB_SHA").value_or("").empty() || env.get("SURFACE") == "Github";
  def.env_rule.passes = [strict](std::string_view name, std::string_view value) {
    return gemini_passes(name, value, strict);
  };
  def.env_rule.beneath = {{"GEMINI_CLI", "1"}};
  def.env_rule.refuses = gemini_refuses;
  def.env_rule.unset_in_env = config::UnsetVar::empty;
}

} // namespace mcphealth::agent

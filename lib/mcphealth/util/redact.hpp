#pragma once
// The one redactor: every text from outside (a server's stderr, a client's failure text, a tool's error, a URL, a
// command's arguments) passes through it before it is kept (the state file, the history, the capture file) or shown
// (the model's text, status, report, explain-config, --json). It knows credentials by their shapes, one row each in
// its table (redact.cpp); what it replaces becomes `***`.
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::util {

/// One shape of credential the redactor knows, for docs and tests: its name and an example it redacts.
struct SecretShape {
  std::string_view name;
  /// A text holding that shape (fake, never a live secret), and the secret part of it, which must not survive.
  std::string_view example;
  std::string_view secret;
};

/// Every shape redact() knows, one row each.
const std::vector<SecretShape>& secret_shapes();

/// `text` with every credential-shaped part as `***`:
/// - URLs: userinfo as `***@`, query values and the fragment as `***` (redact_url), and `user:password@host`;
/// - `NAME=value` and `name: value` where the name says it holds a secret (token, key, secret, password, auth,
///   credential, cookie, ...), bare or quoted as JSON (`"api_key":"..."`) or as a header (`X-Api-Key: ...`);
/// - the value after an authorization scheme (`Bearer x`, `Basic x`, `token x` after `Authorization:`);
/// - words shaped like a known token, wherever they stand: `ghp_…`, `github_pat_…`, `sk-…`, `sk-ant-…`,
///   `sk_live_…`, `AKIA…`, `xox?-…`, `glpat-…`, `AIza…`, `npm_…`, `hf_…`, a JWT.
/// Other text passes unchanged. Over-redacting costs a word of a message; under-redacting leaks a secret.
std::string redact(std::string_view text);

/// A command's arguments fit to show: each redact()ed, and the argument after an option whose name holds a secret
/// (`--api-key VALUE`, `--password VALUE`) as `***`.
std::vector<std::string> redact_args(const std::vector<std::string>& args);

/// Whether a name (an option's, a variable's, a JSON key's, a header's) says its value is a secret.
bool secret_name(std::string_view name);

} // namespace mcphealth::util

#pragma once
// A definition turned into something to probe: a stdio command with its resolved executable and environment, an
// HTTP endpoint with its headers, or the reason it is neither. `${VAR}` expansion happens here.
#include <mcphealth/util/secret_url.hpp>
#include <mcphealth/config/discovery.hpp>
#include <mcphealth/util/env.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace mcphealth::config {

/// A local server spoken to over stdin/stdout.
struct StdioServer {
  /// The `command` as configured, after expansion.
  std::string command;
  /// The file to execute: `command` itself when it has a `/`, else found on the merged PATH; empty if not found.
  std::filesystem::path executable;
  std::vector<std::string> args;
  /// The hook's environment (what of it the agent passes on) with the definition's `env` merged over it, as
  /// `NAME=value`.
  std::vector<std::string> environment;
  /// The folder it starts in, as the agent starts it there: the session's, or the one the definition names.
  std::filesystem::path cwd;
  /// The names the definition's `env` sets (values are secrets and never shown).
  std::vector<std::string> env_names;
};

/// A remote server spoken to over HTTP (Streamable HTTP or legacy SSE).
struct HttpServer {
  /// Shown only redacted (it may carry credentials).
  util::SecretUrl url;
  /// `http` (also for `streamable-http` and a bare `url`) or `sse`.
  std::string type;
  std::vector<std::pair<std::string, std::string>> headers;
  /// True when the definition sets its own `Authorization` header: a 401 then refuses those credentials, and the
  /// client does not fall back to OAuth (Claude Code 2.1.332 says so), so it is down, not waiting for /mcp.
  bool sends_authorization() const;
};

/// A definition's parts, each named with a short digest of its value (config::definition_shape).
using DefinitionShape = std::vector<std::pair<std::string, std::string>>;

/// A definition that is neither.
struct UnsupportedServer {
  std::string reason;
};

/// What a definition resolves to.
using Transport = std::variant<StdioServer, HttpServer, UnsupportedServer>;

/// A definition with its transport and the variables it references that are unset here.
struct ResolvedServer {
  ServerDefinition definition;
  Transport transport;
  std::vector<std::string> unset_vars;
};

/// A transport as output names it: `stdio`, `http`, `sse`, or `unsupported`.
std::string transport_name(const Transport& transport);

/// Resolves a definition against `env` (the hook's environment), for a session in `session_folder` (empty: this
/// process's folder); a stdio command is looked up on its PATH through `files`.
ResolvedServer resolve_server(const ServerDefinition& def, const util::Environment& env,
                              const std::filesystem::path& session_folder, util::FileReader& files);

/// The files a stdio server's code and settings are read from, as far as its definition names them: the file it
/// executes, and each argument that names a file of code or settings by its extension (`dist/index.js`,
/// `server.py`, `config.yaml`; relative ones from its folder), at most k_most_code_files. A change of one
/// after a crash loop was proven is a fix deployed: the next call may try it (gate/decide.hpp). A log file's name
/// is not among them: it changes with every start.
std::vector<std::string> code_files(const StdioServer& server);
inline constexpr std::size_t k_most_code_files = 8;

/// Looks `command` up in the `PATH` of `environment` (`NAME=value` entries), each candidate tested with
/// `files.executable`; returns empty when not found. A relative `PATH` entry (`node_modules/.bin`, or an empty one)
/// is taken from `base`, the folder the command will run in, as exec does once the child is there; empty `base`:
/// this process's folder.
std::filesystem::path find_on_path(const std::string& command, const std::vector<std::string>& environment,
                                   const std::filesystem::path& base, util::FileReader& files);

} // namespace mcphealth::config

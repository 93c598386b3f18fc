#pragma once
// The names of a server entry's fields in the state file, spelled here and nowhere else (ccache's one field
// table). The file is shared with the JS hook, so these are its names; a new field is one line here, one member of
// ServerEntry or ProbeDetails (state/entry.hpp), and its read and write in state/entry.cpp.
#include <string_view>

namespace mcphealth::state::field {

// A server entry (`servers.<name>`, and a definition's verdict).
inline constexpr std::string_view status = "status";
inline constexpr std::string_view checked_at = "checkedAt";
inline constexpr std::string_view expires_at = "expiresAt";
inline constexpr std::string_view next_retry_at = "nextRetryAt";
inline constexpr std::string_view last_restored_at = "lastRestoredAt";
inline constexpr std::string_view down_since = "downSince";
inline constexpr std::string_view failure_count = "failureCount";
inline constexpr std::string_view last_error = "lastError";
inline constexpr std::string_view last_failure_code = "lastFailureCode";
inline constexpr std::string_view source = "source";
inline constexpr std::string_view restored_by = "restoredBy";
inline constexpr std::string_view updated_by = "updatedBy";
inline constexpr std::string_view probe = "probe";
// The definition (fingerprint) an entry, a binding or a history line is about.
inline constexpr std::string_view definition = "definition";
// Failed calls in a row, across recoveries (mcphealth's own: a passing handshake does not clear them; a call that
// succeeds does): how many, when the last failed, and its tool.
inline constexpr std::string_view failed_calls = "failedCalls";
inline constexpr std::string_view last_failed_call_at = "lastFailedCallAt";
inline constexpr std::string_view last_failed_tool = "lastFailedTool";
// Set with the failed calls when each was a tool's upstream error (outage words in its text, the server alive):
// true. Their outage is the upstream's, and its breaker keeps the look cap, not a crash loop's.
inline constexpr std::string_view upstream = "upstream";
// The files a stdio server's code and settings are read from (config::code_files), kept with its failed calls: a
// crash loop waits for them to change (a fix deployed), not only for its backoff.
inline constexpr std::string_view code_files = "codeFiles";
// The files the agent keeps its OAuth tokens in (agent::Catalogue::credential_files), kept with the failed calls of
// a server that refused the agent's token: it waits for one of them to change (a login, a refresh).
inline constexpr std::string_view credential_files = "credentialFiles";
// What those files were (each one's modification time, size and inode, digested) when the outage last looked at
// them: a change is a change of that, never a date compared with the clock (a file dated in the future, a share
// whose clock runs ahead).
inline constexpr std::string_view files_stamp = "filesStamp";
// The memory of recent outages (mcphealth's own): the failure count of the outage the server last came back from,
// kept until it has stayed up one TTL, and how many outages in a row began within a TTL of a recovery (flapping).
inline constexpr std::string_view recent_failures = "recentFailures";
inline constexpr std::string_view flaps = "flaps";
// The last reconnect command run for the server (mcphealth's own): `{at, command, ok, exit, line, by}`.
inline constexpr std::string_view last_reconnect = "lastReconnect";

/// Every field of a server entry above, in the order written: the marks' round trip test (tests/unit/test_entry.cpp)
/// holds each to what every kind of mark does with it, so a field missing here, or from its table, fails there.
inline constexpr std::string_view entry_fields[] = {
    status,          checked_at,      expires_at,    next_retry_at,   last_restored_at, down_since,
    failure_count,   last_error,      last_failure_code, source,      restored_by,      updated_by,
    probe,           definition,      failed_calls,  last_failed_call_at, last_failed_tool, upstream, code_files,
    credential_files, files_stamp, recent_failures, flaps, last_reconnect};

// The entry's `probe` object: what the last probe saw.
inline constexpr std::string_view probe_kind = "kind";
inline constexpr std::string_view latency_ms = "latencyMs";
inline constexpr std::string_view http_status = "httpStatus";
inline constexpr std::string_view exit_status = "exit";
inline constexpr std::string_view protocol_version = "protocolVersion";
inline constexpr std::string_view server_name = "serverName";
inline constexpr std::string_view server_version = "serverVersion";
inline constexpr std::string_view tools = "tools";
inline constexpr std::string_view via = "via";
// The CPU time (ms) the probed stdio server's start used: what a look at it costs (gate::cache_rules spaces them).
inline constexpr std::string_view cpu_ms = "cpuMs";
/// In a probe's details: how the server's declared check went (`passed`, `failed`), when it has one.
inline constexpr std::string_view check = "check";

} // namespace mcphealth::state::field

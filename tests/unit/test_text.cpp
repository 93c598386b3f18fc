#include <mcphealth/util/secret_url.hpp>
#include <mcphealth/util/redact.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <catch2/catch.hpp>

using namespace mcphealth;

TEST_CASE("the last meaningful line of a Python traceback is the exception", "[text]") {
  CHECK(util::last_meaningful_line("Traceback (most recent call last):\n"
                                   "  File \"/srv/server.py\", line 3, in <module>\n"
                                   "    import nosuchmod\n"
                                   "ModuleNotFoundError: No module named 'nosuchmod'\n") ==
        "ModuleNotFoundError: No module named 'nosuchmod'");
}

TEST_CASE("the last meaningful line of a Node crash skips frames, braces and the version", "[text]") {
  CHECK(util::last_meaningful_line("node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\n"
                                   "Error: Cannot find module '/srv/x.js'\n"
                                   "    at Module._resolveFilename (node:internal/modules/cjs/loader:1077:15)\n"
                                   "    at node:internal/main/run_main_module:23:47 {\n"
                                   "  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v18.19.0\n") ==
        "Error: Cannot find module '/srv/x.js'");
}

TEST_CASE("a heading with its words indented under it keeps its first line: Codex CLI's cause", "[text]") {
  // Codex CLI 0.171.0's rollout, a stdio server that died during the call.
  CHECK(util::last_meaningful_line("tool call error: tool call failed for `svc/echo`\n\nCaused by:\n    Transport closed") ==
        "Caused by: Transport closed");
  CHECK(util::last_meaningful_line("Error: x\nCaused by:\n\n    0: connection refused\n    1: os error 111\n") ==
        "Caused by: 0: connection refused");
  CHECK(util::last_meaningful_line("nothing under it:") == "nothing under it:");
}

TEST_CASE("where a parser stopped reads as the text there", "[text]") {
  CHECK(util::text_at("{\n  \"a\": 1,\n}", 3, 1) == " near `}`");
  const std::string long_line = std::string(50, 'a') + "X" + std::string(50, 'b');
  CHECK(util::text_at(long_line, 1, 51) == " near `…" + std::string(30, 'a') + "X" + std::string(29, 'b') + "…`");
  CHECK(util::text_at("one line", 2, 1).empty());
  CHECK(util::text_at("x\x1b[31m", 1, 1) == " near `x\\x1b[31m`");
}

TEST_CASE("one line comes back trimmed: nothing meaningful falls back to the first line", "[text]") {
  CHECK(util::last_meaningful_line("  HTTP 503  ") == "HTTP 503");
  CHECK(util::last_meaningful_line("spawn nosuch ENOENT") == "spawn nosuch ENOENT");
  CHECK(util::last_meaningful_line("first\r\nsecond\r\n") == "second");
  CHECK(util::last_meaningful_line("  ^^^\n}") == "^^^");
  CHECK(util::last_meaningful_line("").empty());
}

TEST_CASE("did you mean: the closest candidate, only when it is close", "[text]") {
  const std::vector<std::string> options{"--json", "--statusline", "--names", "--quiet", "--cwd"};
  CHECK(util::closest_match("--jsn", options) == std::optional<std::string>("--json"));
  CHECK(util::closest_match("--statusln", options) == std::optional<std::string>("--statusline"));
  CHECK(util::closest_match("--frobnicate", options) == std::nullopt);
  const std::vector<std::string> commands{"hook", "probe", "status", "reset", "explain-config", "watch"};
  CHECK(util::closest_match("stauts", commands) == std::optional<std::string>("status"));
  CHECK(util::closest_match("explain", commands) == std::optional<std::string>("explain-config"));
  CHECK(util::closest_match("zzz", commands) == std::nullopt);
}

TEST_CASE("shell words split like sh, without expanding anything", "[text]") {
  using W = std::vector<std::string>;
  CHECK(util::shell_words("mcphealth hook") == W{"mcphealth", "hook"});
  CHECK(util::shell_words("  '/opt/my tools/mcphealth'   hook ") == W{"/opt/my tools/mcphealth", "hook"});
  CHECK(util::shell_words("'it'\\''s' \"a b\" c\\ d") == W{"it's", "a b", "c d"});
  CHECK(util::shell_words("'' x") == W{"", "x"});
  CHECK(util::shell_words("$HOME/bin/x ~/y").front() == "$HOME/bin/x");
}

TEST_CASE("a shell word is quoted only when it needs it, and splits back to itself", "[text]") {
  CHECK(util::shell_word("/usr/local/bin/mcphealth") == "/usr/local/bin/mcphealth");
  CHECK(util::shell_word("--port=8080") == "--port=8080");
  CHECK(util::shell_word("/opt/my tools/mcphealth") == "'/opt/my tools/mcphealth'");
  CHECK(util::shell_word("$HOME") == "'$HOME'");
  CHECK(util::shell_word("{server}") == "'{server}'");
  CHECK(util::shell_word("") == "''");
  for (const std::string word : {"it's", "a;b", "x`y`", "plain"}) {
    CHECK(util::shell_words(util::shell_word(word)) == std::vector<std::string>{word});
  }
}

TEST_CASE("URLs are shown without userinfo, query values or fragment", "[text]") {
  CHECK(util::redact_url("http://user:pw@host:8080/mcp?token=s3cret&debug&x=1#frag") ==
        "http://***@host:8080/mcp?token=***&debug&x=***#***");
  CHECK(util::redact_url("https://host/mcp") == "https://host/mcp");
  CHECK(util::redact_url("https://a@b@host?") == "https://***@host?");
  CHECK(util::redact_url("--db=postgresql://u:pw@db/app") == "--db=postgresql://***@db/app");
  CHECK(util::redact_url("not a url") == "not a url");
}

TEST_CASE("terminal controls of every kind are escaped and other text passes", "[text]") {
  CHECK(util::escape_control("a\x1b]0;title\x07") == "a\\x1b]0;title\\x07");
  CHECK(util::escape_control("csi \xc2\x9b" "2J") == "csi \\u009b2J");             // C1 CSI
  CHECK(util::escape_control("evil\xe2\x80\xaegnp.exe") == "evil\\u202egnp.exe");     // bidi override
  CHECK(util::escape_control("iso\xe2\x81\xa6x\xe2\x81\xa9") == "iso\\u2066x\\u2069"); // isolates
  CHECK(util::escape_control("bad \xff\xc3") == "bad \\xff\\xc3");                   // not UTF-8
  CHECK(util::escape_control("\xed\xa0\x80") == "\\xed\\xa0\\x80");                  // a surrogate
  CHECK(util::escape_control("✔ café 名前") == "✔ café 名前");
}

TEST_CASE("text splits into its lines, a last one without a newline included", "[text]") {
  CHECK(util::split_lines("a\nb\n") == std::vector<std::string>{"a", "b"});
  CHECK(util::split_lines("a\n\nb") == std::vector<std::string>{"a", "", "b"});
  CHECK(util::split_lines("").empty());
}

TEST_CASE("every URL in a text loses its credentials, wherever it stands", "[text]") {
  CHECK(util::redact("invalid URL: http://deploy:S3CR3T@127.0.0.1:99999/mcp") ==
        "invalid URL: http://***@127.0.0.1:99999/mcp");
  CHECK(util::redact("a (https://u:p/w@h/x?token=abc) and ws://h/ok") == "a (https://***@h/x?token=***) and ws://h/ok");
  CHECK(util::redact("no url here") == "no url here");
  CHECK(util::redact("\"http://a:b@h\"") == "\"http://***@h\"");
  CHECK(util::SecretUrl("deploy:S3CR3T@h:1/mcp").shown() == "***@h:1/mcp");
  CHECK(util::SecretUrl("http://u:p@h/x").shown() == "http://***@h/x");
  CHECK(util::SecretUrl("http://u:p@h/x").for_transport() == "http://u:p@h/x");
}

TEST_CASE("userinfo without a scheme is redacted in a text too", "[text]") {
  CHECK(util::redact("connect ECONNREFUSED htp//deploy:pw@127.0.0.1:1/mcp") == "connect ECONNREFUSED ***@127.0.0.1:1/mcp");
  CHECK(util::redact("mail me@example.com at 10:30") == "mail me@example.com at 10:30");
}

TEST_CASE("a command's token-like arguments are shown redacted", "[text]") {
  const std::vector<std::string> args = {"--access-token=abc123", "--api-key", "k-1", "--verbose", "--port", "8080",
                                         "ghp_0123456789abcdef", "--db=postgresql://u:pw@h/db", "-p", "x"};
  const std::vector<std::string> want = {"--access-token=***", "--api-key", "***", "--verbose", "--port", "8080",
                                         "***", "--db=postgresql://***@h/db", "-p", "x"};
  CHECK(util::redact_args(args) == want);
}

TEST_CASE("two spellings of one URL are the same endpoint", "[text]") {
  CHECK(util::same_url("HTTP://H.example:9/mcp/", "http://h.example:9/mcp"));
  CHECK(util::same_url("http://h/", "http://h"));
  CHECK_FALSE(util::same_url("http://h/MCP", "http://h/mcp"));
  CHECK_FALSE(util::same_url("http://h/a", "http://h/b"));
}

TEST_CASE("every credential shape the redactor knows is hidden and the text around it kept", "[text][redact]") {
  for (const util::SecretShape& shape : util::secret_shapes()) {
    INFO(shape.name << ": " << shape.example);
    const std::string out = util::redact(shape.example);
    CHECK(out.find(shape.secret) == std::string::npos);
    CHECK(out.find("***") != std::string::npos);
    // The words around it survive: the first word of the example is never the secret.
    const std::string first(shape.example.substr(0, shape.example.find(' ')));
    if (first.find(shape.secret) == std::string::npos) CHECK(out.rfind(first, 0) == 0);
  }
}

TEST_CASE("every spelling of a header, a key=value and a URL credential is hidden, and mcphealth's own words survive",
          "[text][redact]") {
  // The secret in each spelling is `S3cr3tV4lue`: `:` / `=` / space, with and without a scheme word, quoted, in
  // JSON, in a URL.
  for (const char* spelled : {"Authorization: Bearer S3cr3tV4lue",
                              "Authorization:Bearer S3cr3tV4lue",
                              "Authorization=Token S3cr3tV4lue",
                              "Authorization = Bearer S3cr3tV4lue",
                              "authorization:bearer S3cr3tV4lue",
                              "Authorization: S3cr3tV4lue",
                              "Authorization:S3cr3tV4lue",
                              "'Authorization: Bearer S3cr3tV4lue'",
                              "\"Authorization: Basic S3cr3tV4lue\"",
                              R"({"Authorization":"Bearer S3cr3tV4lue"})",
                              R"({"headers": {"Authorization": "Bearer S3cr3tV4lue"}})",
                              "X-Api-Key: S3cr3tV4lue",
                              "X-Api-Key=S3cr3tV4lue",
                              "PGPASSWORD=S3cr3tV4lue psql -h db",
                              "--password S3cr3tV4lue",
                              "--token=S3cr3tV4lue",
                              "https://deploy:S3cr3tV4lue@host.example/mcp",
                              "https://host.example/mcp?access_token=S3cr3tV4lue&x=1",
                              "curl -H 'Authorization: Bearer S3cr3tV4lue' https://h.example",
                              "Bearer S3cr3tV4lue",
                              "sent bearer S3cr3tV4lue."}) {
    INFO(spelled);
    CHECK(util::redact(spelled).find("S3cr3tV4lue") == std::string::npos);
  }
  // mcphealth's own sentences, as the model and status read them.
  for (const char* own :
       {"HTTP 401 with a Bearer challenge but no OAuth metadata to log in with (no resource_metadata, and no "
        "/.well-known/oauth-protected-resource or oauth-authorization-server): the client cannot connect; set "
        "headers.Authorization in the definition",
        "the server asks for a token (HTTP 401 with a Bearer challenge): ask the user to run /mcp",
        "reconnect `pm2 restart wiki` failed (exit 1): [PM2][ERROR] Process or Namespace wiki not found"}) {
    CHECK(util::redact(own) == own);
  }
}

TEST_CASE("text without credentials passes the redactor unchanged", "[text][redact]") {
  for (const std::string text :
       {"MCP error -32000: Connection closed", "spawn notes-mcp ENOENT", "PATH=/usr/bin:/bin is short",
        "the token expired at 10:30", "Error POSTing to endpoint: Service temporarily down for maintenance",
        "HTTP 503 Service Unavailable", "mail me@example.com at 10:30", "a monkey ate the keyboard",
        R"({"status":503,"message":"overloaded"})"}) {
    CHECK(util::redact(text) == text);
  }
}

TEST_CASE("a secret name's value is hidden whether it is joined, spaced or quoted", "[text][redact]") {
  CHECK(util::redact("GITHUB_TOKEN=ghp_x env") == "GITHUB_TOKEN=*** env");
  CHECK(util::redact("DATABASE_PASSWORD=postgres://u:p@h/db") == "DATABASE_PASSWORD=***");
  CHECK(util::redact("DB_URL=postgres://u:p@h/db") == "DB_URL=postgres://***@h/db");
  CHECK(util::redact(R"({"token": "abc", "user": "x"})") == R"({"token": "***", "user": "x"})");
  CHECK(util::redact("Authorization: Bearer abc.def") == "Authorization: Bearer ***");
  CHECK(util::redact("X-Api-Key:sk_live_abcdefgh1") == "X-Api-Key:***");
  CHECK(util::redact("--password hunter2") == "--password ***");
}

TEST_CASE("JSON for a terminal writes C1 controls, bidi marks and line separators as escapes", "[text]") {
  CHECK(util::escape_invisible("{\"a\":\"x\xc2\x85y\"}") == "{\"a\":\"x\\u0085y\"}");
  CHECK(util::escape_invisible("\xe2\x80\xae\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8f\xe2\x80\xa8\xd8\x9c") ==
        "\\u202e\\u2066\\u2069\\u200f\\u2028\\u061c");
  // Printable text, other marks and non-Latin letters pass as they are.
  CHECK(util::escape_invisible("caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5") == "caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5");
  CHECK(util::escape_invisible("\xc2") == "\xc2"); // cut short: left as it is
}

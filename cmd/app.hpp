#pragma once
// The command line's entry point: root options, the subcommand table, and exit codes for parse errors.

namespace mcphealth::cli {

/// Parses the command line, runs one subcommand and returns the process exit code.
int mcphealth_main(int argc, char** argv);

} // namespace mcphealth::cli

#pragma once
// `mcphealth doctor`: the evening question, is the gate on?
#include "common.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcphealth::cli {

/// Options of `mcphealth doctor`.
struct DoctorOptions {
  std::vector<std::string> agents;
  std::optional<std::string> cwd;
  bool json = false;
};

/// Adds `doctor` to `app`.
void register_doctor(CLI::App& app, CommandLine& command_line);

/// Checks every agent on this machine (or those named); returns 0 when each is gated and the state can be kept, 1
/// when one is not (or none was found), 2 on a usage error.
int run_doctor(const DoctorOptions& options, const GlobalOptions& globals);

} // namespace mcphealth::cli

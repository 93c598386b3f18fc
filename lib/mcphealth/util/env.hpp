#pragma once
// The process environment behind a seam, and the two spellings of every mcphealth variable.
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcphealth::util {

/// Read access to environment variables; tests pass a map instead of mutating the real environment.
class Environment {
public:
  virtual ~Environment() = default;
  /// Returns the value of `name`, or nothing when it is unset.
  virtual std::optional<std::string> get(std::string_view name) const = 0;
  /// Returns every variable as `NAME=value`, for building a child's environment.
  virtual std::vector<std::string> entries() const = 0;
};

/// The real environment of this process.
class ProcessEnvironment final : public Environment {
public:
  std::optional<std::string> get(std::string_view name) const override;
  std::vector<std::string> entries() const override;
};

/// An environment held in a map, for tests and for environments built from a config's `env`.
class MapEnvironment final : public Environment {
public:
  MapEnvironment() = default;
  MapEnvironment(std::initializer_list<std::pair<const std::string, std::string>> vars) : m_vars(vars) {}
  std::optional<std::string> get(std::string_view name) const override;
  std::vector<std::string> entries() const override;
  /// Sets `name` to `value`.
  void set(std::string name, std::string value) { m_vars[std::move(name)] = std::move(value); }

private:
  std::map<std::string, std::string> m_vars;
};

/// Another environment with some variables set to other values (the PATH an agent starts its servers with).
class OverlayEnvironment final : public Environment {
public:
  OverlayEnvironment(const Environment& base, std::map<std::string, std::string> over)
      : m_base(base), m_over(std::move(over)) {}
  std::optional<std::string> get(std::string_view name) const override;
  std::vector<std::string> entries() const override;

private:
  const Environment& m_base;
  std::map<std::string, std::string> m_over;
};

/// Returns the `MCPHEALTH_` spelling of a JS-hook variable: `ECC_MCP_HEALTH_TTL_MS` -> `MCPHEALTH_TTL_MS`,
/// `ECC_MCP_CONFIG_PATH` -> `MCPHEALTH_CONFIG_PATH`, `ECC_HOOK_INPUT_MAX_BYTES` -> `MCPHEALTH_INPUT_MAX_BYTES`.
std::string mcphealth_spelling(std::string_view ecc_name);

/// A variable's value together with the name it was found under.
struct FoundVariable {
  std::string value;
  std::string name;
};

/// Looks a setting up under both spellings; the `MCPHEALTH_` one wins when both are set. Empty values count as unset.
std::optional<FoundVariable> lookup_setting(const Environment& env, std::string_view ecc_name);

/// True for 1/true/yes in any case, the JS hook's notion of a switched-on flag.
bool is_truthy(std::string_view value);

/// Returns the home directory: `$HOME`, or the passwd entry only when HOME is unset.
std::filesystem::path home_dir(const Environment& env);

/// This user's home in the passwd database, or nothing. In a file of its own (util/passwd.cpp), so that the static
/// front (cmd/front.cpp), which never asks without HOME, links its own answer and not glibc's NSS, which a static
/// binary can only load from the very glibc it was built with.
std::optional<std::string> passwd_home();


} // namespace mcphealth::util

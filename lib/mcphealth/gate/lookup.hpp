#pragma once
// A fact a step looks up: not asked yet, asked and nothing there, or found. The three states a rule tells apart
// (ask for it; go on without it; use it), each by its name.
#include <optional>
#include <utility>

namespace mcphealth::gate {

template <typename T>
class Lookup {
public:
  /// Not asked yet.
  Lookup() = default;
  /// Asked: what was found, or nothing.
  Lookup(std::optional<T> found) : m_asked(true), m_found(std::move(found)) {}
  Lookup(T found) : m_asked(true), m_found(std::move(found)) {}
  /// Asked, and nothing there.
  static Lookup none() { return Lookup(std::optional<T>()); }

  bool asked() const { return m_asked; }
  bool found() const { return m_found.has_value(); }
  /// What was found (found() first).
  const T& operator*() const { return *m_found; }
  const T* operator->() const { return &*m_found; }
  /// What was found, or nothing: also before it was asked.
  const std::optional<T>& answer() const { return m_found; }

private:
  bool m_asked = false;
  std::optional<T> m_found;
};

} // namespace mcphealth::gate

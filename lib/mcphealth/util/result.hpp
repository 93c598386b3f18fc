#pragma once
// The one result type of the core: an operation that can fail returns its value or why it failed, never an empty
// string for success, an error out-parameter or a status out-parameter. (std::expected would do, but it needs
// C++23 and the compilers of Debian 12 build this project as C++20.)
#include <cassert>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace mcphealth::util {

/// Why an operation failed, in words for the user: `mkdir /x/y: EACCES`, `libcurl.so.4: cannot open ...`.
struct Error {
  std::string message;
};

/// Why an operation failed, where callers act on the kind of failure (a missing file is normal, a held lock is
/// waited out): the kind, and words for the user (empty where the kind says it all).
template <class Kind>
struct KindedError {
  Kind kind{};
  std::string message;

  bool is(Kind k) const { return kind == k; }
};

/// Wraps an error so it converts to any `Result<T, E>`: `return util::fail(Error{"..."});`.
template <class E>
struct Failure {
  E error;
};

/// The failure of a `Result` with the error type deduced (text goes to the overload below).
template <class E, class = std::enable_if_t<!std::is_convertible_v<E, std::string>>>
Failure<std::decay_t<E>> fail(E&& error) {
  return {std::forward<E>(error)};
}

/// The failure of a `Result<T>` (or `Result<T, Error>`) from a message.
inline Failure<Error> fail(std::string message) { return {Error{std::move(message)}}; }

/// A value of `T`, or an `E` saying why there is none. Reading the side that is not there is a programmer error
/// (asserted). `[[nodiscard]]`: a failure must be looked at, or thrown away on purpose.
template <class T, class E = Error>
class [[nodiscard]] Result {
public:
  Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
  template <class F, class = std::enable_if_t<std::is_convertible_v<F, E>>>
  Result(Failure<F> failure) : m_v(std::in_place_index<1>, E(std::move(failure.error))) {}

  /// True when there is a value.
  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(m_v);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(m_v);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(m_v));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  /// Why there is no value.
  const E& error() const {
    assert(!ok());
    return std::get<1>(m_v);
  }

private:
  std::variant<T, E> m_v;
};

/// An operation that returns nothing when it succeeds: `Result<void>{}` is success.
template <class E>
class [[nodiscard]] Result<void, E> {
public:
  Result() = default;
  template <class F, class = std::enable_if_t<std::is_convertible_v<F, E>>>
  Result(Failure<F> failure) : m_error(E(std::move(failure.error))) {}

  bool ok() const { return !m_error.has_value(); }
  explicit operator bool() const { return ok(); }

  const E& error() const {
    assert(!ok());
    return *m_error;
  }

private:
  std::optional<E> m_error;
};

/// Success of a `Result<void>`, for a return statement that reads as one.
inline Result<void> ok() { return {}; }

} // namespace mcphealth::util

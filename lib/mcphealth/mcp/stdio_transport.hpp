#pragma once
// MCP over a child's stdin/stdout: one JSON message per line. The child's stderr is kept for the reason.
#include <mcphealth/mcp/transport.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/proc/child.hpp>

#include <memory>
#include <optional>
#include <string>

namespace mcphealth::mcp {

/// The CPU allowance's rule, from two readings of a child's group `look_ms` apart at a deadline: busy (on a CPU, or
/// waiting for one) for at least a quarter of the look, it is owed the longest time one of its processes waited for
/// a CPU since it started, up to `most_ms`; asleep (a silent server), nothing. Returns the new total allowance when
/// it is more than `granted_ms`, nothing otherwise.
std::optional<std::int64_t> cpu_wait_owed(const platform::GroupCpu& before, const platform::GroupCpu& after,
                                          std::int64_t look_ms, std::int64_t granted_ms, std::int64_t most_ms);

/// A started stdio server.
class StdioTransport final : public Transport {
public:
  StdioTransport(std::unique_ptr<proc::Child> child, util::Clock& clock) : m_child(std::move(child)), m_clock(clock) {}
  ~StdioTransport() override { close(); }

  CallOutcome call(std::string_view method, const boost::json::object& params, util::EpochMs deadline) override;
  std::optional<CallOutcome> late_answer(std::string_view method) override;
  void notify(std::string_view method, const boost::json::object& params, util::EpochMs deadline) override;
  void close() override;

  /// The child's stderr so far (at most 4,000 characters), trimmed.
  std::string stderr_text() const;
  /// The child's process id (its group's too), or -1 once it is gone.
  pid_t pid() const { return m_child ? m_child->pid() : -1; }
  /// The CPU time the server's own process used, once closed (proc::Child::cpu_ms).
  std::optional<std::int64_t> cpu_ms() const { return m_child ? m_child->cpu_ms() : std::nullopt; }
  /// True while the child runs.
  bool running();
  /// How the child ended (`1`, `SIGKILL`), once it has; nothing while it runs.
  std::optional<std::string> exit_status();
  /// Why the child is gone: its stderr, else `process exited before handshake (<code or signal>)`.
  std::string exit_reason();
  /// Time the child spent waiting for a CPU it could not get does not count against a call's deadline, up to
  /// `most_ms` in all: when a deadline passes while the child is still busy (a batch's starts share the cores), the
  /// deadlines move by the time it was kept from running since it started. A child asleep at its deadline (a silent
  /// server) gets nothing. 0 (the default): deadlines as given.
  void allow_cpu_wait(std::int64_t most_ms) { m_cpu_wait_most_ms = most_ms; }

private:
  /// Writes `line` and a newline; false when the child no longer reads.
  bool send(const std::string& line, util::EpochMs deadline);
  /// Reads what is available until `deadline` or until a whole line arrives; handles each line.
  void pump(util::EpochMs deadline);
  /// At a deadline: true, and the deadlines moved, when the child is still busy and is owed time it waited for a
  /// CPU.
  bool waiting_for_cpu();

  std::unique_ptr<proc::Child> m_child;
  util::Clock& m_clock;
  std::int64_t m_next_id = 1;
  /// The id of the last request of each method that timed out: late_answer() looks for its answer.
  std::vector<std::pair<std::string, std::int64_t>> m_timed_out;
  std::string m_out_buffer;
  std::string m_err;
  std::vector<boost::json::value> m_messages;
  bool m_closed = false;
  std::int64_t m_cpu_wait_most_ms = 0;
  /// How far every deadline has been moved for the child's waits for a CPU.
  std::int64_t m_cpu_wait_granted_ms = 0;
};

} // namespace mcphealth::mcp

#include <mcphealth/mcp/stdio_transport.hpp>

#include <mcphealth/mcp/jsonrpc.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/util/json.hpp>

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <unistd.h>

namespace mcphealth::mcp {

namespace json = boost::json;

namespace {
constexpr std::size_t k_max_stderr = 4000;
constexpr std::size_t k_max_line = 16 * 1024 * 1024;
/// How long a look at whether the child is still busy takes.
constexpr std::int64_t k_cpu_wait_look_ms = 20;
} // namespace

bool StdioTransport::running() { return !m_child->poll_exit().has_value(); }

std::optional<std::string> StdioTransport::exit_status() {
  auto status = m_child->poll_exit();
  return status ? std::optional(status->describe()) : std::nullopt;
}

std::string StdioTransport::stderr_text() const { return util::trim(m_err); }

std::string StdioTransport::exit_reason() {
  // Read what the child wrote before it went.
  if (m_child->stderr_fd() >= 0) proc::drain_fd(m_child->stderr_fd(), m_err, k_max_stderr);
  std::string text = stderr_text();
  if (!text.empty()) return text;
  auto status = m_child->poll_exit();
  return "process exited before handshake (" + (status ? status->describe() : std::string("unknown")) + ")";
}

bool StdioTransport::send(const std::string& line, util::EpochMs deadline) {
  const std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const int fd = m_child->stdin_fd();
    if (fd < 0) return false;
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const std::int64_t left = deadline - m_clock.now_ms();
      if (left <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left, 50)));
      continue;
    }
    return false; // EPIPE: the child closed its stdin
  }
  return true;
}

void StdioTransport::pump(util::EpochMs deadline) {
  const std::int64_t left = std::max<std::int64_t>(0, deadline - m_clock.now_ms());
  pollfd fds[2];
  nfds_t n = 0;
  for (int fd : {m_child->stdout_fd(), m_child->stderr_fd()}) {
    if (fd >= 0) fds[n++] = {fd, POLLIN, 0};
  }
  // Wake up regularly: the child may exit while a grandchild holds its pipes open.
  ::poll(fds, n, static_cast<int>(std::min<std::int64_t>(left, 20)));
  for (nfds_t i = 0; i < n; ++i) {
    if (fds[i].revents == 0) continue;
    if (fds[i].fd == m_child->stderr_fd()) {
      if (!proc::drain_fd(fds[i].fd, m_err, k_max_stderr)) m_child->close_output(fds[i].fd);
      continue;
    }
    const bool open = proc::drain_fd(fds[i].fd, m_out_buffer, k_max_line);
    std::size_t start = 0;
    for (std::size_t nl; (nl = m_out_buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view text(m_out_buffer.data() + start, nl - start);
      util::JsonParse parsed = util::parse_json(text);
      if (!parsed) continue; // servers print banners; only JSON lines are messages
      switch (classify(*parsed)) {
      case MessageKind::server_request:
        send(reply_to_server_request(parsed->get_object()), deadline);
        break;
      case MessageKind::response: m_messages.push_back(std::move(*parsed)); break;
      case MessageKind::notification:
      case MessageKind::invalid: break;
      }
    }
    m_out_buffer.erase(0, start);
    if (!open) m_child->close_output(fds[i].fd);
  }
}

CallOutcome StdioTransport::call(std::string_view method, const json::object& params, util::EpochMs deadline) {
  CallOutcome out;
  const std::int64_t id = m_next_id++;
  if (!running() || !send(request_line(id, method, params), deadline)) {
    out.status = CallOutcome::Status::closed;
    out.reason = exit_reason();
    return out;
  }
  for (;;) {
    for (auto it = m_messages.begin(); it != m_messages.end(); ++it) {
      if (!is_response_to(*it, id)) continue;
      out = outcome_of_response(it->get_object());
      m_messages.erase(it);
      return out;
    }
    if (!running()) {
      // One last read: the answer may have been written just before exiting.
      if (m_child->stdout_fd() >= 0) {
        pump(m_clock.now_ms());
        bool answered = false;
        for (const auto& m : m_messages) answered = answered || is_response_to(m, id);
        if (answered) continue;
      }
      out.status = CallOutcome::Status::closed;
      out.reason = exit_reason();
      return out;
    }
    if (m_clock.now_ms() >= deadline + m_cpu_wait_granted_ms && !waiting_for_cpu()) {
      std::erase_if(m_timed_out, [&](const auto& t) { return t.first == method; });
      m_timed_out.emplace_back(method, id);
      return no_answer_in_time(method);
    }
    pump(deadline + m_cpu_wait_granted_ms);
  }
}

bool StdioTransport::waiting_for_cpu() {
  if (m_cpu_wait_granted_ms >= m_cpu_wait_most_ms || !running()) return false;
  // Two looks a moment apart. A child still busy (on a CPU, or waiting for one) gets back the time it was kept from
  // running since it started; one asleep (a silent server) gets nothing, whatever it waited while it started: its
  // silence is its own.
  const auto before = platform::group_cpu(pid());
  if (!before) return false; // not known here: deadlines as given
  pump(m_clock.now_ms() + k_cpu_wait_look_ms); // reading meanwhile
  const auto after = platform::group_cpu(pid());
  if (!after) return false;
  const std::optional<std::int64_t> owed =
      cpu_wait_owed(*before, *after, k_cpu_wait_look_ms, m_cpu_wait_granted_ms, m_cpu_wait_most_ms);
  if (!owed) return false;
  m_cpu_wait_granted_ms = *owed;
  return true;
}

std::optional<std::int64_t> cpu_wait_owed(const platform::GroupCpu& before, const platform::GroupCpu& after,
                                          std::int64_t look_ms, std::int64_t granted_ms, std::int64_t most_ms) {
  const std::int64_t busy = (after.on_cpu_ms - before.on_cpu_ms) + (after.longest_wait_ms - before.longest_wait_ms);
  if (busy * 4 < look_ms) return std::nullopt;
  const std::int64_t owed = std::min(most_ms, after.longest_wait_ms);
  if (owed <= granted_ms) return std::nullopt; // it had its time
  return owed;
}

std::optional<CallOutcome> StdioTransport::late_answer(std::string_view method) {
  const auto timed_out = std::find_if(m_timed_out.begin(), m_timed_out.end(), [&](const auto& t) { return t.first == method; });
  if (timed_out == m_timed_out.end()) return std::nullopt;
  if (m_child->stdout_fd() >= 0) pump(m_clock.now_ms()); // what has arrived by now, without waiting
  for (auto it = m_messages.begin(); it != m_messages.end(); ++it) {
    if (!is_response_to(*it, timed_out->second)) continue;
    CallOutcome out = outcome_of_response(it->get_object());
    m_messages.erase(it);
    m_timed_out.erase(timed_out);
    return out;
  }
  return std::nullopt;
}

void StdioTransport::notify(std::string_view method, const json::object& params, util::EpochMs deadline) {
  if (running()) send(notification_line(method, params), deadline);
}

void StdioTransport::close() {
  if (m_closed) return;
  m_closed = true;
  // As the MCP spec says: close stdin, give the server a moment to leave, then SIGTERM and SIGKILL the group. What
  // it moved out of its group is noted first, while it still runs: once it leaves, those are PID 1's.
  m_child->note_strays();
  m_child->close_stdin();
  const util::EpochMs deadline = m_clock.now_ms() + 200;
  while (running() && m_clock.now_ms() < deadline) m_clock.sleep_ms(5);
  m_child->terminate_group(500, m_clock);
}

} // namespace mcphealth::mcp

#include "watch.hpp"

#include "choices.hpp"
#include "output.hpp"
#include "status.hpp"

#include <mcphealth/config/variables_file.hpp>
#include <mcphealth/agent/agent.hpp>
#include <mcphealth/ops/probe.hpp>
#include <mcphealth/ops/status.hpp>
#include <mcphealth/ops/watch.hpp>
#include <mcphealth/probe/prometheus.hpp>
#include <mcphealth/platform/platform.hpp>
#include <mcphealth/proc/groups.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/log.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <deque>
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <thread>
#include <unistd.h>

namespace mcphealth::cli {

namespace json = boost::json;

void register_watch(CLI::App& app, CommandLine& command_line) {
  auto o = std::make_shared<WatchOptions>();
  CLI::App* sub = app.add_subcommand("watch", "Watch the health cache live; with --probe, also keep it fresh");
  sub->add_flag("--probe", o->probe,
                "Also probe every server the agents would start: an unhealthy one when its retry comes, a healthy one "
                "shortly before its mark expires (with jitter), recovering with the reconnect command");
  sub->add_option("--interval", o->interval_s, "With --probe: re-read the configs every S seconds (default 60)")
      ->type_name("S")
      ->check(whole_number(1, 86'400));
  sub->add_option("--every", o->every_s,
                  "With --probe: re-probe a healthy server at least every S seconds (default: shortly before its mark "
                  "expires, about 108 s with the default TTL)")
      ->type_name("S")
      ->check(whole_number(1, 86'400));
  sub->add_flag("--events", o->events,
                "One JSON object per line for every transition (the default when stdout is not a terminal)");
  sub->add_option("--exec", o->exec, "Run CMD (with /bin/sh -c) for every change (not a still-down re-check), the event's JSON on its stdin, MCPHEALTH_SERVER set")
      ->type_name("CMD");
  sub->add_option("--exec-timeout-ms", o->exec_timeout_ms, "End --exec's process group after MS (default 5000)")
      ->type_name("MS")
      ->check(whole_number(1, 600'000));
  sub->add_flag("--once", o->once,
                "One sweep (with --probe: of every server, as probe --all) or one reading; print the table it saw "
                "(--events: its transitions), then exit with status's exit code");
  sub->add_option("--prometheus", o->prometheus, "Rewrite node_exporter textfile metrics at FILE after each sweep")
      ->type_name("FILE");
  std::vector<std::string> ids;
  for (const agent::Agent* a : agent::agents()) ids.emplace_back(a->id);
  sub->add_option("--agent", o->agent,
                  "Only that agent's servers are probed and shown (" + agent::agent_ids() + "); transitions stay every "
                  "writer's")
      ->type_name("ID")
      ->check(one_of_words(ids));
  sub->add_option("--cwd", o->cwd, "Project dir (default: $CLAUDE_PROJECT_DIR, else the current dir)")->type_name("DIR")->check(existing_folder());
  sub->footer("Exit: 0 after SIGTERM, SIGINT or q; with --once 0 nothing unhealthy, 1 something is; 2 usage error.");
  sub->callback([o, &command_line] { command_line.exit_code = run_watch(*o, command_line.globals); });
}

namespace {

std::atomic<bool> g_stop{false};
int g_wake[2] = {-1, -1};

/// A resized window: wake the loop, which draws the view again to the new size.
extern "C" void window_resized(int) {
  const char byte = 2;
  [[maybe_unused]] ssize_t n = ::write(g_wake[1], &byte, 1);
}

extern "C" void stop_watching(int) {
  g_stop.store(true);
  proc::kill_tracked_groups(); // probes in flight end now; their results are discarded
  const char byte = 1;
  [[maybe_unused]] ssize_t n = ::write(g_wake[1], &byte, 1);
}

/// On a terminal, the keys, read by a thread of their own so that `q` (or Ctrl-C: a byte in raw mode) is heard while
/// a sweep probes a server that hangs: it stops the watch as SIGINT does, ending the probes in flight, instead of
/// after the hung server's timeout. Joined by the destructor.
class WatchKeys {
public:
  WatchKeys() : m_thread([this] { listen(); }) {}
  ~WatchKeys() {
    m_done.store(true);
    m_thread.join();
  }
  WatchKeys(const WatchKeys&) = delete;
  WatchKeys& operator=(const WatchKeys&) = delete;

private:
  void listen() {
    while (!m_done.load() && !g_stop.load()) {
      pollfd key{STDIN_FILENO, POLLIN, 0};
      if (::poll(&key, 1, 100) <= 0) continue;
      char buf[64];
      const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n <= 0) return; // the terminal went away: SIGHUP says the rest
      for (ssize_t i = 0; i < n; ++i) {
        if (buf[i] == 'q' || buf[i] == 'Q' || buf[i] == 3) {
          stop_watching(0);
          return;
        }
      }
    }
  }

  std::atomic<bool> m_done{false};
  std::thread m_thread;
};

/// The terminal in raw mode (keys without Enter, no echo) on the alternate screen, restored by the destructor.
class RawTerminal {
public:
  RawTerminal() {
    if (::tcgetattr(STDIN_FILENO, &m_saved) != 0) return;
    termios raw = m_saved;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    m_active = ::tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
    std::fputs("\033[?1049h\033[?25l", stdout); // alternate screen, no cursor
  }
  ~RawTerminal() {
    std::fputs("\033[?25h\033[?1049l", stdout);
    std::fflush(stdout);
    if (m_active) ::tcsetattr(STDIN_FILENO, TCSANOW, &m_saved);
  }
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

private:
  termios m_saved{};
  bool m_active = false;
};

/// What the front end does with a watch's findings: JSON lines on stdout (events mode), or the live view, drawn to
/// fit the window: the title and the header always, one line per transition, the rows that fit.
class WatchView final : public ops::WatchSink {
public:
  WatchView(bool terminal, bool events, std::string title)
      : m_terminal(terminal), m_events(events), m_title(std::move(title)) {}

  void transition(const ops::WatchEvent& ev) override {
    if (m_events) {
      std::printf("%s\n", json::serialize(ops::event_json(ev)).c_str());
      std::fflush(stdout);
    }
    if (!ev.changes_side()) return; // the events stream has every check; the list only what changed
    // One line each, whatever the reason holds (a traceback's last meaningful line).
    const std::string reason = util::last_meaningful_line(ev.reason);
    // A project's server says which project: two folders may each have a `db`.
    const std::string which = ev.project ? " (" + ops::project_word(*ev.project) + ")" : "";
    remember(util::format_iso8601_ms(ev.ts).substr(11, 8) + "  " + ev.server + which + "  " + ev.event + " (" + ev.from + " -> " +
             ev.to + ", by " + ev.by + ")" + (reason.empty() ? "" : ": " + reason));
  }

  void warning(const std::string& text) override {
    // On the live view stderr is the same screen: the warning goes in the pane, not across the table.
    if (m_terminal) remember("! " + text);
    else util::log::warn(text);
  }

  void status(const ops::StatusReport& report) override {
    m_last = report;
    if (!m_terminal) return;
    const std::size_t width = terminal_width().value_or(100);
    const std::size_t height = terminal_height();
    std::string title = m_title + "   q: quit";
    if (m_sweep) {
      title += "   probing: " + std::to_string(m_sweep->done) + " of " + std::to_string(m_sweep->total) + " done, " +
               std::to_string(m_sweep->elapsed_ms / 1000) + "s";
    }
    std::vector<std::string> head{fit_width(title, width)};
    // The state file's problems (and the servers'), in the header: two lines at most.
    for (std::size_t i = 0; i < report.warnings.size() && i < 2; ++i) {
      const bool more = i == 1 && report.warnings.size() > 2;
      head.push_back(fit_width(more ? "! and " + std::to_string(report.warnings.size() - 1) + " more (mcphealth status)"
                                    : "! " + util::escape_control(report.warnings[i]),
                               width));
    }
    head.emplace_back();
    ops::StatusReport rows = report;
    rows.warnings.clear();
    std::vector<std::string> table = util::split_lines(render_status_table(rows, use_color(stdout), width, false));
    // The transitions get a quarter of the window (two lines at least, when there are any), and every line the
    // table leaves free; the rows the rest.
    const std::size_t spare = height > head.size() + table.size() + 2 ? height - head.size() - table.size() - 2 : 0;
    const std::size_t pane =
        m_recent.empty() ? 0 : std::min(m_recent.size(), std::max({std::size_t{2}, height / 4, spare}));
    const std::size_t used = head.size() + (pane ? pane + 2 : 0);
    const std::size_t room = height > used + 1 ? height - used : 2; // the table's header and one line
    if (table.size() > room) {
      const std::size_t hidden = table.size() - (room - 1);
      table.resize(room - 1);
      table.push_back(fit_width("… " + std::to_string(hidden) + " more (mcphealth status lists them all)", width));
    }
    std::vector<std::string> frame = head;
    frame.insert(frame.end(), table.begin(), table.end());
    if (pane) {
      frame.emplace_back();
      frame.emplace_back("Transitions");
      for (std::size_t i = m_recent.size() - pane; i < m_recent.size(); ++i) {
        frame.push_back(fit_width("  " + util::escape_control(m_recent[i]), width));
      }
    }
    if (frame.size() > height) frame.resize(height);
    // Drawn in place, without a final newline: the screen never scrolls.
    std::string out = "\033[H\033[2J";
    for (std::size_t i = 0; i < frame.size(); ++i) out += (i ? "\n" : "") + frame[i];
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
  }

  void sweeping(const std::optional<ops::SweepProgress>& progress) override { m_sweep = progress; }

  /// The last report the loop handed over (what `--once` prints).
  const std::optional<ops::StatusReport>& last() const { return m_last; }

private:
  void remember(std::string line) {
    m_recent.push_back(std::move(line));
    if (m_recent.size() > 50) m_recent.pop_front();
  }


  bool m_terminal;
  bool m_events;
  std::string m_title;
  std::deque<std::string> m_recent; // the view's log pane
  std::optional<ops::StatusReport> m_last;
  std::optional<ops::SweepProgress> m_sweep;
};

} // namespace

namespace {

/// What the watch does to keep the table true, in the header's words: whether it probes, and how often.
std::string cadence_words(const WatchOptions& o, const config::Settings& settings) {
  if (!o.probe) return "(not probing: shows what hooks and probes record; --probe keeps it fresh)";
  const std::int64_t ttl_s = settings.ttl_ms.value / 1000;
  const std::int64_t before_expiry_s = ttl_s - std::max<std::int64_t>(1, ttl_s / 10);
  const std::int64_t every = o.every_s ? std::min(*o.every_s, before_expiry_s) : before_expiry_s;
  return "(probing: each healthy server every ~" + std::to_string(every) + "s, a down one at its retry)";
}

} // namespace

int run_watch(const WatchOptions& o, const GlobalOptions& globals) {
  util::ProcessEnvironment process_env;
  // What a service lacks, the variables file gives (config/variables_file.hpp); the unit's EnvironmentFile= gave
  // it already, the launchd agent's shell too, a watch started by hand takes it here.
  const util::OverlayEnvironment own_env(
      process_env, config::variables_to_take(process_env, config::variables_file(util::home_dir(process_env))));
  util::SystemClock clock;
  const config::Settings settings = config::resolve_settings(own_env, globals.overrides());
  // Servers start as the agent starts them: with the PATH its hook last ran with (a service's PATH is short).
  const ops::ProbePath agent_path = probe_path_for(settings.state_path.value, o.agent, own_env);
  const util::OverlayEnvironment env(own_env, {{"PATH", agent_path.path}});
  warn_all(settings.warnings);
  if (o.prometheus) {
    if (auto usable = probe::check_textfile_path(*o.prometheus); !usable) {
      util::log::error("--prometheus " + *o.prometheus + ": " + usable.error().message);
      return k_exit_usage;
    }
  }
  const config::DiscoveryInputs inputs = discovery_for(env, settings, o.cwd);
  const bool terminal = !o.events && !o.once && ::isatty(STDOUT_FILENO) != 0;

  // SIGTERM/SIGINT end the loop (not the process): the write in progress finishes, probe children end, exit 0.
  if (::pipe(g_wake) != 0) return k_exit_usage;
  for (int fd : g_wake) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  struct sigaction sa {};
  sa.sa_handler = stop_watching;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  if (terminal) {
    struct sigaction resized {};
    resized.sa_handler = window_resized;
    sigemptyset(&resized.sa_mask);
    resized.sa_flags = SA_RESTART;
    ::sigaction(SIGWINCH, &resized, nullptr);
  }

  // Redrawn when the state's folder changes, where the platform can say so; else the loop looks every second.
  const util::UniqueFd watched = platform::watch_folder(
      settings.state_path.value.has_parent_path() ? settings.state_path.value.parent_path() : std::filesystem::path("."));
  const int notify = watched.get();

  ops::WatchPlan plan;
  plan.probe = o.probe;
  plan.interval_ms = o.interval_s * 1000;
  plan.jitter = o.once ? ops::Jitter::no : ops::Jitter::yes;
  plan.exec = o.exec;
  plan.exec_timeout_ms = o.exec_timeout_ms;
  if (o.prometheus) plan.prometheus = *o.prometheus;
  plan.report_status = terminal || o.once;
  plan.agent = o.agent ? agent::find_agent(*o.agent) : nullptr;
  plan.path_origin = agent_path.origin;
  plan.every_ms = o.every_s.value_or(0) * 1000;
  const bool events = !terminal && (o.events || !o.once);
  WatchView view(terminal, events,
                 "mcphealth watch — " + tilde(settings.state_path.value.string()) + "  " + cadence_words(o, settings));
  recover::ShellRunner runner(clock, env);
  ops::WatchLoop loop(settings, inputs, env, clock, runner, plan, view);
  std::optional<RawTerminal> screen;
  if (terminal) screen.emplace();
  std::optional<WatchKeys> keys;
  if (terminal) keys.emplace();
  // Running unattended (a systemd unit, launchd): one line says it started and what it watches, for the journal.
  if (!terminal && !o.once) {
    // A unit's PATH is short: say so when servers start with the one the agent's hook ran with instead.
    const agent::Agent* seen_by = agent_path.seen ? agent::find_agent(agent_path.seen->agent) : nullptr;
    const std::string path_words =
        o.probe && agent_path.differs && seen_by ? ", starting servers with the PATH " + std::string(seen_by->name) + "'s hook ran with" : "";
    std::fprintf(stderr, "mcphealth: watching %s, %s%s%s (pid %d)\n", settings.state_path.value.c_str(),
                 cadence_words(o, settings).c_str(), path_words.c_str(), o.exec ? ", running --exec per transition" : "",
                 static_cast<int>(::getpid()));
  }

  while (!g_stop.load()) {
    const util::EpochMs next = loop.turn(g_stop);
    if (o.once || g_stop.load()) break;

    // Sleep until the next due probe or redraw, a change of the state file, or a stop (a signal, or `q`: WatchKeys).
    pollfd fds[2] = {{g_wake[0], POLLIN, 0}, {notify, POLLIN, 0}};
    const auto wait = std::max<std::int64_t>(0, std::min<std::int64_t>(next - clock.now_ms(), notify >= 0 ? 60'000 : 1000));
    ::poll(fds, 2, static_cast<int>(wait));
    char buf[4096];
    if (fds[0].revents & POLLIN) {
      while (::read(g_wake[0], buf, sizeof buf) > 0) { // a resize (drawn again by the next turn), or a stop
      }
    }
    if (notify >= 0 && (fds[1].revents & POLLIN)) platform::drain_folder_watch(notify);
  }
  if (!o.once) return k_exit_ok;
  // One sweep: what it saw, as status shows it (the events instead with --events).
  if (!o.events && view.last()) {
    ops::StatusReport report = *view.last();
    for (const auto& w : report.warnings) {
      const bool said = std::any_of(settings.warnings.begin(), settings.warnings.end(),
                                    [&](const config::SettingWarning& s) { return s.text() == w; }); // at start-up
      if (!said) util::log::warn(w);
    }
    report.warnings.clear();
    std::fputs(render_status_table(report, use_color(stdout), terminal_width()).c_str(), stdout);
  }
  return loop.something_down() ? k_exit_unhealthy : k_exit_ok;
}

} // namespace mcphealth::cli

#pragma once
// Probing many servers at once: a thread per probe (up to a bound), their starts paced by the machine, so total
// time is about the slowest probe.
#include <mcphealth/probe/probe.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mcphealth::probe {

/// One server to probe.
struct BatchItem {
  std::string name;
  config::ResolvedServer server;
  ProbeSpec spec;
};

/// One finished probe.
struct BatchOutcome {
  std::string name;
  ProbeResult result;
  util::EpochMs started_at = 0;
};

/// Makes a prober for one worker thread.
using ProberFactory = std::function<std::unique_ptr<Prober>()>;

/// How many local servers start at once when nobody says: one per core, and at least 3 (Claude Code 2.1.197 itself
/// starts local servers three at a time: MCP_SERVER_CONNECTION_BATCH_SIZE). Started all at once on a small machine,
/// healthy servers miss their timeout for want of CPU, and a server that dies after its start looks alive.
std::size_t default_parallelism();

/// The most probes a batch runs at once (each on a thread of its own): beyond it, a probe waits for one to end.
inline constexpr std::size_t k_max_probe_threads = 64;
/// The part of the shortest timeout a batch's starts may take together once their cost is known (StartPacer's
/// backlog): the rest is the margin for a start dearer than the dearest seen.
inline constexpr std::int64_t k_backlog_percent = 70;

/// Told after each probe of a batch ends: how many have, of how many, and the one that just did. Called from the
/// batch's threads, one call at a time.
using BatchProgress = std::function<void(std::size_t done, std::size_t total, const std::string& name)>;
/// Called about every k_batch_waiting_ms on the thread that called probe_batch, while the probes run (that thread
/// probes nothing itself then): what a live view redraws with, so that a probe waiting 30 s for a hung server does
/// not freeze the screen.
using BatchWaiting = std::function<void()>;
inline constexpr std::int64_t k_batch_waiting_ms = 1000;

/// Probes every item (as its spec says), results in the items' order. `parallel` local servers at most start, or
/// run busy, at once (0 = all at once): one that has started and waits for nothing but its timeout does not count
/// (probe/pacer.hpp), so servers that never answer cost one timeout together, not one per round.
std::vector<BatchOutcome> probe_batch(const std::vector<BatchItem>& items, std::size_t parallel,
                                      const ProberFactory& make_prober, util::Clock& clock,
                                      const BatchProgress& progress = {}, const BatchWaiting& waiting = {});

} // namespace mcphealth::probe

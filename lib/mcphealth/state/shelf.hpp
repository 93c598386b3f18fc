#pragma once
// A directory of small JSON files, one per key: what the state keeps per folder, so that a hook reads the one file
// its call needs and a write rewrites the one file that changed, however many keys months of use have left (as
// ccache keeps one file per cache entry). Files are `<dir>/<2 hex>/<14 hex>.json`, named by the key's FNV-1a hash
// and holding the key itself (a file of another key, or one that does not parse, reads as none). A shard keeps at
// most `per_shard` files and none older than `keep_ms`: writing one tends its shard, so the whole directory has a
// bound that use never moves (256 × per_shard files; `Tend::no` defers it to the shard's next write, for a batch). A file's modification time is the clock's time of its last
// write, so tending and the tests follow the clock seam.
//
// Files are replaced atomically, and synced when the shelf says (`util::Sync::yes`, for what is learned, not
// read again: verdicts); otherwise a crash may leave one missing or old, never half written (a cache: bindings).
#include <mcphealth/util/clock.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/result.hpp>

#include <boost/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mcphealth::state {

class Shelf {
public:
  /// The largest file a shelf reads back; a larger one reads as none.
  static constexpr std::size_t k_max_file_bytes = 1024 * 1024;
  /// How many shards the keys spread over.
  static constexpr std::size_t k_shards = 256;

  Shelf(std::filesystem::path dir, std::size_t per_shard, std::int64_t keep_ms, util::Sync sync = util::Sync::no)
      : m_dir(std::move(dir)), m_per_shard(per_shard), m_keep_ms(keep_ms), m_sync(sync) {}

  const std::filesystem::path& dir() const { return m_dir; }
  /// The most files the shelf ever holds.
  std::size_t capacity() const { return k_shards * m_per_shard; }
  /// Where `key`'s file is.
  std::filesystem::path file_of(std::string_view key) const;

  /// The object stored under `key` (without the key), when there is one that reads back.
  std::optional<boost::json::object> get(std::string_view key) const;
  /// Stores `value` under `key`, written at `now`; then tends the key's shard: files unwritten for `keep_ms` go,
  /// and the least recently written beyond `per_shard`.
  enum class Tend { yes, no };
  util::Result<void> put(std::string_view key, const boost::json::object& value, util::EpochMs now,
                         Tend tend = Tend::yes);
  /// Removes `key`'s file; true when there was one.
  bool remove(std::string_view key);
  /// Calls `visit` with every key and object that reads back, in no particular order.
  void each(const std::function<void(const std::string& key, const boost::json::object& value)>& visit) const;

  /// How much the shelf holds.
  struct Size {
    std::size_t files = 0;
    std::uintmax_t bytes = 0;
  };
  Size size() const;

private:
  void tend(const std::filesystem::path& shard, const std::filesystem::path& kept, util::EpochMs now) const;

  std::filesystem::path m_dir;
  std::size_t m_per_shard;
  std::int64_t m_keep_ms;
  util::Sync m_sync;
};

} // namespace mcphealth::state

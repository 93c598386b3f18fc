#include <mcphealth/state/shelf.hpp>

#include <mcphealth/platform/platform.hpp>
#include <mcphealth/util/files.hpp>
#include <mcphealth/util/fs.hpp>
#include <mcphealth/util/json.hpp>
#include <mcphealth/util/text.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>
#include <vector>

namespace mcphealth::state {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_key = "key";
constexpr std::string_view k_suffix = ".json";

bool is_entry_name(std::string_view name) { return name.size() > k_suffix.size() && name.ends_with(k_suffix); }
bool is_entry(const fs::path& p) { return is_entry_name(p.filename().string()); }

/// Sets `path`'s modification time to `at` (the clock's), leaving its access time alone.
void stamp(const fs::path& path, util::EpochMs at) {
  struct timespec times[2] {};
  times[0].tv_nsec = UTIME_OMIT;
  times[1].tv_sec = static_cast<time_t>(at / 1000);
  times[1].tv_nsec = static_cast<long>((at % 1000) * 1'000'000);
  (void)::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

std::optional<json::object> read_entry(const fs::path& path, std::string* key_out) {
  const auto text = util::read_file(path, Shelf::k_max_file_bytes);
  if (!text) return std::nullopt;
  util::JsonParse parsed = util::parse_json(*text);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  json::object obj = std::move(parsed->get_object());
  const json::value* key = obj.if_contains(k_key);
  if (key == nullptr || !key->is_string()) return std::nullopt;
  if (key_out != nullptr) *key_out = std::string(key->get_string());
  obj.erase(k_key);
  return obj;
}

} // namespace

fs::path Shelf::file_of(std::string_view key) const {
  // FNV-1a's high bits barely move between keys that differ in their last characters (`task-1`, `task-2`): the
  // shard comes from the hash mixed again (MurmurHash3's finaliser), so sibling folders spread over every shard.
  std::uint64_t h = util::fnv1a(key);
  std::uint64_t m = h;
  m ^= m >> 33;
  m *= 0xff51afd7ed558ccdULL;
  m ^= m >> 33;
  m *= 0xc4ceb9fe1a85ec53ULL;
  m ^= m >> 33;
  static constexpr char k_digits[] = "0123456789abcdef";
  const std::string shard{k_digits[(m >> 4) & 0xF], k_digits[m & 0xF]};
  return m_dir / shard / (util::fnv1a_hex(key) + std::string(k_suffix));
}

std::optional<json::object> Shelf::get(std::string_view key) const {
  std::string stored;
  std::optional<json::object> obj = read_entry(file_of(key), &stored);
  if (!obj || stored != key) return std::nullopt; // another key with the same hash: none stored for this one
  return obj;
}

util::Result<void> Shelf::put(std::string_view key, const json::object& value, util::EpochMs now, Tend tend_shard) {
  json::object stored;
  stored[k_key] = key;
  for (const auto& kv : value) {
    if (kv.key() != k_key) stored[kv.key()] = kv.value();
  }
  const fs::path file = file_of(key);
  // Never through a folder that is not this user's own (a symlink to elsewhere, one others may write in): the
  // shard's tending deletes files there.
  for (const fs::path& folder : {m_dir.parent_path(), m_dir, file.parent_path()}) {
    if (auto why = util::not_ones_own(folder, util::OwnKind::folder))
      return util::fail(*why + "; refusing to write or tend the state's files there");
  }
  if (auto written = util::atomic_replace(file, json::serialize(stored), 0600, util::Folders::create, m_sync);
      !written) {
    return written;
  }
  stamp(file, now);
  if (tend_shard == Tend::yes) tend(file.parent_path(), file, now);
  return util::ok();
}

bool Shelf::remove(std::string_view key) {
  std::error_code ec;
  return fs::remove(file_of(key), ec);
}

void Shelf::tend(const fs::path& shard, const fs::path& kept, util::EpochMs now) const {
  // The shard is opened once, never through a symlink, and its files are looked at and deleted relative to it:
  // a folder swapped in for it meanwhile (a symlink to another folder) is never the one tended.
  const util::UniqueFd dir(::open(shard.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) return;
  const int listing_fd = ::dup(dir.get());
  if (listing_fd < 0) return;
  DIR* listing = ::fdopendir(listing_fd);
  if (listing == nullptr) {
    ::close(listing_fd);
    return;
  }
  std::vector<std::pair<util::EpochMs, std::string>> files;
  const std::string kept_name = kept.filename().string();
  const auto remove = [&](const std::string& name) { (void)::unlinkat(dir.get(), name.c_str(), 0); };
  while (const dirent* d = ::readdir(listing)) {
    const std::string name = d->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    const util::EpochMs at = platform::modified_ns(st) / 1'000'000;
    if (!is_entry_name(name)) {
      // A writer's temp file, left by a crash: gone once it is clearly no one's work in progress.
      if (at + 3'600'000 < now) remove(name);
      continue;
    }
    if (name == kept_name) continue;
    if (at + m_keep_ms < now) {
      remove(name);
      continue;
    }
    files.emplace_back(at, name);
  }
  ::closedir(listing);
  if (files.size() + 1 <= m_per_shard) return;
  std::sort(files.begin(), files.end());
  const std::size_t over = files.size() + 1 - m_per_shard;
  for (std::size_t i = 0; i < over; ++i) remove(files[i].second);
}

void Shelf::each(const std::function<void(const std::string&, const json::object&)>& visit) const {
  std::error_code ec;
  for (fs::directory_iterator shards(m_dir, ec), end; !ec && shards != end; shards.increment(ec)) {
    std::error_code inner;
    for (fs::directory_iterator it(shards->path(), inner), stop; !inner && it != stop; it.increment(inner)) {
      if (!is_entry(it->path())) continue;
      std::string key;
      if (std::optional<json::object> obj = read_entry(it->path(), &key)) visit(key, *obj);
    }
  }
}

Shelf::Size Shelf::size() const {
  Size out;
  std::error_code ec;
  for (fs::directory_iterator shards(m_dir, ec), end; !ec && shards != end; shards.increment(ec)) {
    std::error_code inner;
    for (fs::directory_iterator it(shards->path(), inner), stop; !inner && it != stop; it.increment(inner)) {
      const std::optional<util::FileStamp> st = is_entry(it->path()) ? util::disk().stat(it->path()) : std::nullopt;
      if (!st || !st->regular) continue;
      ++out.files;
      out.bytes += static_cast<std::uintmax_t>(st->size);
    }
  }
  return out;
}

} // namespace mcphealth::state

#include "tools/replay/trace/session_har_cache.h"

#include "tools/replay/trace/recording_reader.h"
#include "tools/replay/trace/trace_file.h"

namespace netstack {

namespace {
constexpr uint64_t kMaxHarFileBytes = 512ull << 20;  // as har_reader.h
}  // namespace

SessionHarCache::SessionHarCache(size_t max_files, uint64_t max_bytes)
    : max_files_(max_files), max_bytes_(max_bytes) {}

std::shared_ptr<const HarPages> SessionHarCache::Get(const std::string& path, std::string* error) {
  for (auto it = lru_.begin(); it != lru_.end(); ++it) {
    if (it->path == path) {
      lru_.splice(lru_.begin(), lru_, it);
      return lru_.front().pages;
    }
  }
  std::string text, problem;
  if (!ReadTraceFile(path, kMaxHarFileBytes, &text, &problem)) {
    *error = path + ": " + problem;
    return nullptr;
  }
  HarFile har;
  if (!ParseRecording(text, path, &har, error)) return nullptr;
  ++reads_;
  auto pages = std::make_shared<HarPages>();
  pages->pages.reserve(har.pages.size());
  for (TracePage& page : har.pages) {
    pages->by_id.emplace(page.id, pages->pages.size());
    pages->pages.push_back(std::make_shared<const TracePage>(std::move(page)));
  }
  lru_.push_front(Slot{path, pages, text.size()});
  bytes_ += text.size();
  // Evict the least recently used files beyond the bounds; the file just read always stays.
  while (lru_.size() > 1 && (lru_.size() > max_files_ || bytes_ > max_bytes_)) {
    bytes_ -= lru_.back().bytes;
    lru_.pop_back();
  }
  return pages;
}

}  // namespace netstack

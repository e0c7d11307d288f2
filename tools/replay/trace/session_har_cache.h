// The HAR files (or DevTools logs: recording_reader.h) a session refers to, each read once and kept
// (most recently used first) within a bound on files and bytes, so a page can be navigated to many
// times without re-reading its file. Pages are shared: an evicted file's pages live on while events
// still hold them. Part of the session reader (session_reader.h).
#ifndef TOOLS_REPLAY_TRACE_SESSION_HAR_CACHE_H_
#define TOOLS_REPLAY_TRACE_SESSION_HAR_CACHE_H_

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/replay/trace/trace.h"

namespace netstack {

struct HarPages {
  std::vector<std::shared_ptr<const TracePage>> pages;  // in page start order
  std::map<std::string, size_t> by_id;
};

class SessionHarCache {
 public:
  SessionHarCache(size_t max_files, uint64_t max_bytes);

  // The pages of the HAR file or DevTools log at `path`: from the cache, else read (and cached).
  // Returns null with the reader's one-line error (which names the path) when it cannot be read or
  // parsed.
  std::shared_ptr<const HarPages> Get(const std::string& path, std::string* error);

  size_t files() const { return lru_.size(); }
  uint64_t bytes() const { return bytes_; }
  int64_t reads() const { return reads_; }  // files read so far (cache misses)

 private:
  struct Slot {
    std::string path;
    std::shared_ptr<const HarPages> pages;
    uint64_t bytes = 0;
  };
  size_t max_files_;
  uint64_t max_bytes_;
  std::list<Slot> lru_;  // most recently used first
  uint64_t bytes_ = 0;
  int64_t reads_ = 0;
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_SESSION_HAR_CACHE_H_

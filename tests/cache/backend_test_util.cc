#include "tests/cache/backend_test_util.h"

#include <optional>

#include "cache/memory_backend.h"
#include "net/base/virtual_scheduler.h"

namespace netstack {
namespace {

class MemoryHarness : public BackendHarness {
 public:
  explicit MemoryHarness(const CacheConfig& config)
      : backend_(std::make_unique<MemoryBackend>(scheduler_, clock_, config)) {}
  CacheBackend& backend() override { return *backend_; }
  bool RunUntil(const std::function<bool()>& done) override { return scheduler_.RunUntil(done); }
  bool is_disk() const override { return false; }

 private:
  VirtualScheduler scheduler_;
  std::unique_ptr<MemoryBackend> backend_;
};

}  // namespace

std::unique_ptr<BackendHarness> MakeMemoryHarness(const CacheConfig& config) {
  return std::make_unique<MemoryHarness>(config);
}

int OpenSync(BackendHarness& h, const std::string& key, std::unique_ptr<CacheEntry>* entry) {
  std::optional<int> result;
  int rv = h.backend().OpenEntry(key, entry, [&](int r, std::unique_ptr<CacheEntry> e) {
    result = r;
    *entry = std::move(e);
  });
  if (rv != ERR_IO_PENDING) return rv;
  if (!h.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
  return *result;
}

int PeekSync(BackendHarness& h, const std::string& key, std::unique_ptr<CacheEntry>* entry) {
  std::optional<int> result;
  int rv = h.backend().PeekEntry(key, entry, [&](int r, std::unique_ptr<CacheEntry> e) {
    result = r;
    *entry = std::move(e);
  });
  if (rv != ERR_IO_PENDING) return rv;
  if (!h.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
  return *result;
}

int CommitSync(BackendHarness& h, CacheEntry& entry) {
  std::optional<int> result;
  entry.Commit([&](int r) { result = r; });
  if (!h.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
  return *result;
}

int ReadAll(BackendHarness& h, CacheEntry& entry, std::string* out, int chunk) {
  out->clear();
  std::string buf(static_cast<size_t>(chunk), '\0');
  for (;;) {
    std::optional<int> result;
    int rv = entry.ReadBody(static_cast<int64_t>(out->size()), buf.data(), chunk,
                            [&](int r) { result = r; });
    if (rv == ERR_IO_PENDING) {
      if (!h.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
      rv = *result;
    }
    if (rv < 0) return rv;
    if (rv == 0) return OK;
    out->append(buf.data(), static_cast<size_t>(rv));
  }
}

int Store(BackendHarness& h, const std::string& key, const std::string& headers,
          const std::string& body, int chunk) {
  std::unique_ptr<CacheEntry> entry = h.backend().CreateEntry(key);
  entry->WriteHeaders(headers);
  for (size_t pos = 0; pos < body.size(); pos += static_cast<size_t>(chunk)) {
    size_t n = std::min(body.size() - pos, static_cast<size_t>(chunk));
    int rv = entry->AppendBody(body.data() + pos, static_cast<int>(n));
    if (rv != OK) return rv;
  }
  return CommitSync(h, *entry);
}

int FlushSync(BackendHarness& h) {
  std::optional<int> result;
  h.backend().Flush([&](int r) { result = r; });
  if (!h.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
  return *result;
}

int DoomAllSync(BackendHarness& h) {
  std::optional<int> result;
  h.backend().DoomAllEntries([&](int r) { result = r; });
  if (!h.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
  return *result;
}

int DoomBetweenSync(BackendHarness& h, Time begin, Time end) {
  std::optional<int> result;
  h.backend().DoomEntriesBetween(begin, end, [&](int r) { result = r; });
  if (!h.RunUntil([&] { return result.has_value(); })) return ERR_TIMED_OUT;
  return *result;
}

std::string MakeBody(size_t size, int seed) {
  std::string body(size, '\0');
  uint32_t x = 2463534242u + static_cast<uint32_t>(seed) * 7919u;
  for (size_t i = 0; i < size; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    body[i] = static_cast<char>(x);
  }
  return body;
}

}  // namespace netstack

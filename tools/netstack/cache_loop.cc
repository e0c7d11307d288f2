#include "tools/netstack/cache_loop.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace netstack {

void RunLoopUntil(uv_loop_t* loop, UvCrossThreadPoster* poster, const LoopSignal& signal) {
  if (signal.is_set()) return;
  poster->Ref();
  // uv_run returns when the signal stops it, or earlier if something else called uv_stop.
  while (!signal.is_set()) uv_run(loop, UV_RUN_DEFAULT);
  poster->Unref();
}

OpenedDiskCache OpenDiskCache(uv_loop_t* loop, UvCrossThreadPoster* poster, const Clock& clock,
                              const std::string& directory, const CacheConfig& config,
                              bool watch_disk_space) {
  // Shared with the callback: if it ever ran after this function returned (it cannot: we wait
  // for it), it would write into live memory rather than a dead frame.
  auto opened = std::make_shared<OpenedDiskCache>();
  auto done = std::make_shared<LoopSignal>(loop);
  DiskBackend::Params params;
  params.directory = directory;
  params.config = config;
  params.clock = &clock;
  params.poster = poster;
  params.watch_disk_space = watch_disk_space;
  DiskBackend::Create(
      params, [opened, done](int rv, std::unique_ptr<DiskBackend> backend, std::string message) {
        opened->result = rv;
        opened->backend = std::move(backend);
        opened->message = std::move(message);
        done->Set();
      });
  RunLoopUntil(loop, poster, *done);
  return std::move(*opened);
}

int PeekEntrySync(uv_loop_t* loop, UvCrossThreadPoster* poster, CacheBackend* backend,
                  const std::string& key, std::unique_ptr<CacheEntry>* entry) {
  auto done = std::make_shared<LoopSignal>(loop);
  auto result = std::make_shared<int>(ERR_IO_PENDING);
  auto opened = std::make_shared<std::unique_ptr<CacheEntry>>();
  int rv =
      backend->PeekEntry(key, entry, [done, result, opened](int r, std::unique_ptr<CacheEntry> e) {
        *result = r;
        *opened = std::move(e);
        done->Set();
      });
  if (rv != ERR_IO_PENDING) return rv;
  RunLoopUntil(loop, poster, *done);
  *entry = std::move(*opened);
  return *result;
}

int ReadBodyChunks(uv_loop_t* loop, UvCrossThreadPoster* poster, CacheEntry* entry,
                   const std::function<bool(std::string_view)>& sink) {
  constexpr int kChunk = 64 * 1024;
  // The buffer outlives any read: it is only freed after the read's callback ran.
  auto buffer = std::make_shared<std::vector<char>>(kChunk);
  int64_t offset = 0;
  while (true) {
    auto done = std::make_shared<LoopSignal>(loop);
    auto result = std::make_shared<int>(ERR_IO_PENDING);
    int rv = entry->ReadBody(offset, buffer->data(), kChunk, [done, result, buffer](int r) {
      *result = r;
      done->Set();
    });
    if (rv == ERR_IO_PENDING) {
      RunLoopUntil(loop, poster, *done);
      rv = *result;
    }
    if (rv <= 0) return rv;
    offset += rv;
    if (!sink(std::string_view(buffer->data(), static_cast<size_t>(rv)))) return OK;
  }
}

int WaitForCompletion(uv_loop_t* loop, UvCrossThreadPoster* poster,
                      const std::function<void(CompletionCallback)>& call) {
  auto done = std::make_shared<LoopSignal>(loop);
  auto result = std::make_shared<int>(ERR_IO_PENDING);
  call([done, result](int r) {
    *result = r;
    done->Set();
  });
  RunLoopUntil(loop, poster, *done);
  return *result;
}

}  // namespace netstack

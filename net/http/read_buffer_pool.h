// ReadBuffer: a 32 KiB body read buffer taken from a small per-thread free list. Every request
// of a replay allocates the same size of buffer (UrlRequest's and HttpCacheTransaction's read
// buffers) and frees it a few simulated milliseconds later; reusing them keeps 32 KiB
// malloc/free pairs (and the heap consolidation they trigger) out of the per-request path.
#ifndef NET_HTTP_READ_BUFFER_POOL_H_
#define NET_HTTP_READ_BUFFER_POOL_H_

#include <cstddef>

namespace netstack {

class ReadBuffer {
 public:
  static constexpr int kBytes = 32 * 1024;
  // At most this many free buffers are kept per thread (1 MiB); more are freed at once.
  static constexpr size_t kMaxPooled = 32;

  // Empty: data() is null until Allocate().
  ReadBuffer() = default;
  // Returns the buffer (if any) to this thread's free list, or frees it if the list is full.
  ~ReadBuffer();
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;

  // Makes data() point at kBytes bytes (not zero-filled; contents of a reused buffer are
  // whatever its last user wrote). No-op if it already holds one.
  void Allocate();
  // Returns the buffer to the pool now (as the destructor would); data() is null after.
  void Release();
  char* data() const { return data_; }
  explicit operator bool() const { return data_ != nullptr; }

  // Free buffers currently held by this thread's list (for tests).
  static size_t PooledForTesting();

 private:
  char* data_ = nullptr;
};

}  // namespace netstack

#endif  // NET_HTTP_READ_BUFFER_POOL_H_

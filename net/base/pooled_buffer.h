// PooledBuffer<kBytes, kMaxPooled>: a fixed-size byte buffer taken from, and given back to, a
// bounded per-thread free list. For buffers that are allocated and freed once per request or
// per read on one thread (a socket's read buffer, a request's body buffer): reusing them keeps
// large malloc/free pairs, their page faults and the heap consolidation they trigger off the
// hot path, and an owner that gives its buffer back while idle holds no memory.
//
// Per thread, so no lock: a buffer must be released on the thread that allocated it (the
// loop's). Each <kBytes, kMaxPooled> pair has its own list of at most kMaxPooled buffers; more
// are freed at once. A buffer released during thread exit, after its list is gone, is freed
// directly.
#ifndef NET_BASE_POOLED_BUFFER_H_
#define NET_BASE_POOLED_BUFFER_H_

#include <cstddef>
#include <vector>

namespace netstack {

template <size_t kBufferBytes, size_t kMaxPooledBuffers>
class PooledBuffer {
 public:
  static constexpr size_t kBytes = kBufferBytes;
  static constexpr size_t kMaxPooled = kMaxPooledBuffers;

  // Empty: data() is null until Allocate().
  PooledBuffer() = default;
  // Gives the buffer (if any) back, as Release() does.
  ~PooledBuffer() { Release(); }
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;

  // Makes data() point at kBytes bytes, not zero-filled: a reused buffer holds whatever its last
  // user wrote. No-op if it already holds one.
  void Allocate() {
    if (data_) return;
    if (gone_ || List().buffers.empty()) {
      data_ = new char[kBytes];
      return;
    }
    data_ = List().buffers.back();
    List().buffers.pop_back();
  }

  // Gives the buffer back to this thread's list (or frees it when the list is full or gone);
  // data() is null after.
  void Release() {
    if (!data_) return;
    char* data = data_;
    data_ = nullptr;
    if (!gone_ && List().buffers.size() < kMaxPooled) {
      List().buffers.push_back(data);
    } else {
      delete[] data;
    }
  }

  char* data() const { return data_; }
  explicit operator bool() const { return data_ != nullptr; }

  // Free buffers this thread's list holds now (for tests).
  static size_t PooledForTesting() { return gone_ ? 0 : List().buffers.size(); }

 private:
  struct FreeList {
    // Reserved once, so giving a buffer back never allocates.
    FreeList() { buffers.reserve(kMaxPooled); }
    ~FreeList() {
      gone_ = true;
      for (char* b : buffers) delete[] b;
    }
    std::vector<char*> buffers;
  };
  static FreeList& List() {
    thread_local FreeList list;
    return list;
  }
  // Trivially destructible, so still readable while the thread's other thread_locals go.
  static inline thread_local bool gone_ = false;

  char* data_ = nullptr;
};

}  // namespace netstack

#endif  // NET_BASE_POOLED_BUFFER_H_

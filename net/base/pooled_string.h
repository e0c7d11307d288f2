// PooledString<kMaxCapacity, kMaxPooled>: std::string buffers kept in a bounded per-thread free
// list. For a growable buffer that an object fills and drops once per request (the HTTP/2
// stream's received-body buffer): a new owner takes a buffer that already has the capacity an
// earlier one grew to, so filling it neither allocates nor copies what it holds while it grows.
//
// Bounds: at most kMaxPooled strings per thread, each kept only if its capacity is at most
// kMaxCapacity (a larger one is freed at once), so the list holds at most
// kMaxPooled * kMaxCapacity bytes. Per thread, so no lock: a string must be given back on the
// thread that took it (the loop's); one given back during thread exit, after the list is gone,
// is freed.
#ifndef NET_BASE_POOLED_STRING_H_
#define NET_BASE_POOLED_STRING_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace netstack {

template <size_t kMaxCapacityBytes, size_t kMaxPooledStrings>
class PooledString {
 public:
  static constexpr size_t kMaxCapacity = kMaxCapacityBytes;
  static constexpr size_t kMaxPooled = kMaxPooledStrings;

  // An empty string: the most recently given back one's buffer, or a new empty string.
  static std::string Take() {
    if (gone_ || List().strings.empty()) return std::string();
    std::string s = std::move(List().strings.back());
    List().strings.pop_back();
    return s;
  }

  // Keeps `s`'s buffer (cleared) for a later Take when the list has room and the buffer is
  // heap-allocated and at most kMaxCapacity; frees it otherwise. `s` is left empty.
  static void Give(std::string&& s) {
    std::string taken = std::move(s);
    s.clear();
    const size_t capacity = taken.capacity();
    if (gone_ || capacity <= kSmallCapacity || capacity > kMaxCapacity ||
        List().strings.size() >= kMaxPooled) {
      return;  // `taken` frees its buffer
    }
    taken.clear();
    List().strings.push_back(std::move(taken));
  }

  // Strings this thread's list holds now (for tests).
  static size_t PooledForTesting() { return gone_ ? 0 : List().strings.size(); }

 private:
  // A string this short lives inside the object (no heap buffer): nothing worth keeping.
  static constexpr size_t kSmallCapacity = 15;

  struct FreeList {
    // Reserved once, so giving a string back never allocates.
    FreeList() { strings.reserve(kMaxPooled); }
    ~FreeList() { gone_ = true; }
    std::vector<std::string> strings;
  };
  static FreeList& List() {
    thread_local FreeList list;
    return list;
  }
  // Trivially destructible, so still readable while the thread's other thread_locals go.
  static inline thread_local bool gone_ = false;
};

}  // namespace netstack

#endif  // NET_BASE_POOLED_STRING_H_

#include "net/http/read_buffer_pool.h"

#include <vector>

namespace netstack {
namespace {

// Per thread: the cache and disk threads never touch these buffers, and a thread_local list
// needs no lock. The vector's capacity is reserved once, so returning a buffer never allocates.
// A ReadBuffer destroyed during thread exit, after the list itself, frees its buffer directly
// (`gone` is trivially destructible, so it stays readable then).
thread_local bool gone = false;

struct FreeList {
  FreeList() { buffers.reserve(ReadBuffer::kMaxPooled); }
  ~FreeList() {
    gone = true;
    for (char* b : buffers) delete[] b;
  }
  std::vector<char*> buffers;
};

FreeList& List() {
  thread_local FreeList list;
  return list;
}

}  // namespace

ReadBuffer::~ReadBuffer() { Release(); }

void ReadBuffer::Release() {
  if (!data_) return;
  char* data = data_;
  data_ = nullptr;
  if (gone) {
    delete[] data;
    return;
  }
  FreeList& list = List();
  if (list.buffers.size() < kMaxPooled) {
    list.buffers.push_back(data);
  } else {
    delete[] data;
  }
}

void ReadBuffer::Allocate() {
  if (data_) return;
  FreeList& list = List();
  if (list.buffers.empty()) {
    data_ = new char[kBytes];  // not zero-filled: reads write it first
    return;
  }
  data_ = list.buffers.back();
  list.buffers.pop_back();
}

size_t ReadBuffer::PooledForTesting() { return gone ? 0 : List().buffers.size(); }

}  // namespace netstack

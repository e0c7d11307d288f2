// ReadBuffer: the 32 KiB body read buffer of UrlRequest and HttpCacheTransaction. Every request
// of a replay allocates one and frees it a few simulated milliseconds later, so it comes from a
// bounded per-thread free list (net/base/pooled_buffer.h) of at most 32 (1 MiB).
#ifndef NET_HTTP_READ_BUFFER_POOL_H_
#define NET_HTTP_READ_BUFFER_POOL_H_

#include "net/base/pooled_buffer.h"

namespace netstack {

using ReadBuffer = PooledBuffer<32 * 1024, 32>;

}  // namespace netstack

#endif  // NET_HTTP_READ_BUFFER_POOL_H_

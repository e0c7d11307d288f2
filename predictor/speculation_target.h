// SpeculationTarget: the narrow interface through which the predictor acts on a stack. The
// predictor never sees the resolver, the pool or the HTTP cache itself; context_speculation_
// target.h implements this over a UrlRequestContext (the same in both worlds), and unit tests
// script it.
#ifndef PREDICTOR_SPECULATION_TARGET_H_
#define PREDICTOR_SPECULATION_TARGET_H_

#include <cstdint>
#include <string>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/url.h"

namespace netstack {

// FetchAhead's result when the HTTP cache already held the URL fresh (a hit): the fetch did
// nothing, so the accounting scores it wasted at once rather than crediting it with the page's
// own cache hit. Positive, so never mistaken for a net error.
inline constexpr int kFetchAheadAlreadyCached = 1;

class SpeculationTarget {
 public:
  virtual ~SpeculationTarget() = default;

  // Resolves `origin`'s host into the host cache at IDLE priority. Returns OK (already cached,
  // or an IP literal), an error, or ERR_IO_PENDING: `done` runs later (posted, never inside
  // this call) with OK or the resolver's error. The resolution continues even if nobody else
  // asks for the host.
  virtual int Preresolve(const SchemeHostPort& origin, const NetLogWithSource& net_log,
                         CompletionCallback done) = 0;

  // Asks the pool for `sockets` sockets in `origin`'s group (connecting + idle + handed out),
  // TLS included for https. Returns OK (jobs started, or the group already had enough) or an
  // error (ERR_INSUFFICIENT_RESOURCES when the pool limit left no room). Each job the pool
  // starts and its fate are reported through ClientSocketPool::Observer.
  virtual int Preconnect(const SchemeHostPort& origin, int sockets,
                         const NetLogWithSource& net_log) = 0;

  // Fetches `url` with GET into the HTTP cache at IDLE priority, the body discarded. Returns
  // ERR_IO_PENDING and `done` runs later with the request's result (OK once the response is
  // in the cache; kFetchAheadAlreadyCached when the cache answered it fresh, without the
  // network: the fetch stored nothing), or an error now (ERR_NOT_IMPLEMENTED when the stack has
  // no HTTP cache).
  virtual int FetchAhead(const Url& url, const NetLogWithSource& net_log,
                         CompletionCallback done) = 0;

  // True if FetchAhead can work (the stack has an HTTP cache).
  virtual bool CanFetchAhead() const = 0;

  // Sockets the pool has for `origin` now (connecting + idle + handed out): a preconnect to
  // fewer than this does nothing, so the queue drops such a hint as redundant.
  virtual int SocketCount(const SchemeHostPort& origin) const = 0;

  // True if the host cache has a fresh entry for `origin`'s host (a pre-resolve would do
  // nothing).
  virtual bool IsResolved(const SchemeHostPort& origin) const = 0;
};

}  // namespace netstack

#endif  // PREDICTOR_SPECULATION_TARGET_H_

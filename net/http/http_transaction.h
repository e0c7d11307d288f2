// HttpTransaction: one hop of a request (Chrome's net::HttpTransaction), as UrlRequest sees it.
// Two implementations: HttpNetworkTransaction (the network) and HttpCacheTransaction (the HTTP
// cache in front of the network). UrlRequest creates the cache one when its context has an
// HttpCache.
//
// Asynchronous contract as in stream_socket.h: results are synchronous or ERR_IO_PENDING, and
// callbacks never run inside a call. Destroying the transaction cancels everything.
#ifndef NET_HTTP_HTTP_TRANSACTION_H_
#define NET_HTTP_HTTP_TRANSACTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/load_timing_info.h"
#include "net/base/net_error.h"
#include "net/base/url.h"
#include "net/http/http_request_headers.h"
#include "net/http/http_response_headers.h"
#include "net/socket/socket_source.h"

namespace netstack {

// The request's cache mode, with the meanings of the Fetch standard's RequestCache
// (https://fetch.spec.whatwg.org/#concept-request-cache-mode), as HttpCacheTransaction applies
// them. Only GET (and HEAD's freshening) consult it; unsafe methods invalidate in every mode.
enum class RequestCacheMode {
  kDefault,       // RFC 9111: fresh -> stored, stale -> validated, miss -> network and store
  kNoStore,       // the cache is neither read nor written
  kReload,        // the network, never a stored response; the response is stored
  kNoCache,       // a stored response is always validated first (a conditional request)
  kForceCache,    // any stored response, however stale, unvalidated; else the network
  kOnlyIfCached,  // any stored response, however stale; else ERR_CACHE_MISS, never the network
};

// "default" | "no-store" | "reload" | "no-cache" | "force-cache" | "only-if-cached".
const char* RequestCacheModeName(RequestCacheMode mode);
// The inverse of RequestCacheModeName (exact, lower case). False, leaving *mode alone, for
// anything else.
bool ParseRequestCacheMode(std::string_view text, RequestCacheMode* mode);

struct HttpRequestInfo {
  Url url;
  std::string method = "GET";
  HttpRequestHeaders extra_headers;
  std::string body;
  // No page asked for it yet (a predictor's fetch ahead; Chrome's LOAD_PREFETCH). Served as
  // usual; the socket pool reports its connection as speculative.
  bool speculative = false;
  // When the request this hop belongs to started (the UrlRequest's start, its first hop's): what
  // its record's phases count from, and so what the socket pool computes its connect wait from
  // (load_timing_phases.h). Unset: the hop's own start.
  TimeTicks request_start{};
  // How the HTTP cache may answer this request (`fetch --cache-mode`). Ignored without a cache.
  RequestCacheMode cache_mode = RequestCacheMode::kDefault;
  // Default headers (AddDefaultRequestHeaders's) the user asked not to send (curl's -H 'Name:').
  std::vector<std::string> omitted_headers;
};

// What a hop learned about its connection, for output and the internals page. All defaults
// (socket_id 0, source kNone) when the hop used no connection (served from the cache).
struct ConnectionInfo {
  uint32_t socket_id = 0;
  // Where the socket came from, as the pool decided it (ClientSocketHandle::socket_source()).
  SocketSource socket_source = SocketSource::kNone;
  // It carried an earlier request (Chrome's LoadTimingInfo::socket_reused).
  bool reused() const { return socket_source == SocketSource::kReused; }
  std::string peer_address;
  std::string tls_version;
  bool tls_resumed = false;
  bool dns_from_cache = false;
  bool dns_stale = false;
  // "http/1.1" or "h2" once the hop has a stream; empty without one.
  std::string protocol;
  // HTTP/2 only: the session's NetLog source id (requests on one session share it) and the
  // request's stream id on it (0 otherwise).
  uint32_t h2_session_id = 0;
  int32_t h2_stream_id = 0;
};

// Where a hop's response came from (the `cache` member of `fetch --json` records).
enum class CacheDisposition {
  kBypass,       // the cache was not consulted (no cache, a method other than GET, no-store...)
  kMiss,         // from the network (nothing stored, not usable, or replaced on validation)
  kHit,          // from the cache, fresh, no network
  kRevalidated,  // from the cache after the server answered 304 to a conditional request
  kStale,        // from the cache although stale (stale-while-revalidate, max-stale)
};

// "bypass" | "miss" | "hit" | "revalidated" | "stale".
const char* CacheDispositionName(CacheDisposition disposition);

class HttpTransaction {
 public:
  virtual ~HttpTransaction() = default;

  // Sends the request (or looks it up) and gets the response headers. Returns OK, an error, or
  // ERR_IO_PENDING (then `callback` gets OK or the error). `info` is taken by value (callers
  // that are done with theirs move it in: no per-hop copy of URL, headers and body). Call once.
  virtual int Start(HttpRequestInfo info, CompletionCallback callback) = 0;

  // Reads body bytes, decoded of Content-Encoding, after Start succeeded: bytes (> 0), 0 at the
  // end, an error, or ERR_IO_PENDING (then `callback` gets one of those; `buf` must stay valid
  // until then). One read at a time.
  virtual int Read(char* buf, int len, CompletionCallback callback) = 0;

  // The response headers once Start succeeded (null before, or when it failed).
  virtual std::shared_ptr<const HttpResponseHeaders> response_headers() const = 0;

  // Timing of this hop. A hop served from the cache has request_start and the receive points
  // only (no connect, no send).
  virtual LoadTimingInfo GetLoadTimingInfo() const = 0;
  virtual const ConnectionInfo& connection_info() const = 0;
  // Body bytes before content decoding (as received, or as stored).
  virtual int64_t encoded_body_bytes() const = 0;
  // A sentence about the last error when a layer had one, else empty.
  virtual const std::string& error_detail() const = 0;
  // Where the response came from; meaningful once Start succeeded.
  virtual CacheDisposition cache_disposition() const = 0;
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_TRANSACTION_H_

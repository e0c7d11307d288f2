// The headers of a cached response as the cache stores, updates and serves them (RFC 9111
// sections 3.1, 3.2, 4.3.5 and 5.1). Pure functions over HttpResponseHeaders: no I/O, no clock
// (ages are passed in). HttpCacheTransaction applies them; http_cache_policy.h decides when.
#ifndef NET_HTTP_HTTP_CACHE_HEADERS_H_
#define NET_HTTP_HTTP_CACHE_HEADERS_H_

#include <memory>
#include <string>
#include <string_view>

#include "net/base/clock.h"
#include "net/http/http_response_headers.h"

namespace netstack {

// The hop-by-hop fields a cache neither stores nor serves (RFC 9111 3.1, RFC 9110 7.6.1):
// Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade, Proxy-Connection, and the proxy's
// own authentication fields Proxy-Authenticate and Proxy-Authorization. The fields a message's
// Connection header names are hop-by-hop too; they depend on the message (see below).
bool IsHopByHopHeader(std::string_view name);

// Headers a 304 (or a HEAD's 200) does not update in the stored response (RFC 9111 3.2), beside
// those named by its Connection: the hop-by-hop ones above, Trailer, and the framing of the
// stored body (Content-Length, Content-Range): the stored bytes keep their length whatever a
// bodiless response says. Content-Encoding is decided by MergeNotModified (it must keep
// describing the stored bytes); every other field, Content-Type included, is updated.
bool IsNonUpdatedHeader(std::string_view name);

// The stored headers updated with a 304's (RFC 9111 3.2), or a HEAD 200's (4.3.5): every header
// of `update` not excluded above replaces all stored headers of that name, in `update`'s order;
// the stored status line is kept. `update`'s Content-Encoding replaces the stored one only when
// it names the same codings (case, "x-gzip" and "identity" aside): a 304 saying "identity" or
// "br" for a body stored gzipped would make the stored bytes undecodable.
std::shared_ptr<HttpResponseHeaders> MergeNotModified(const HttpResponseHeaders& stored,
                                                      const HttpResponseHeaders& update);

// The headers as stored (RFC 9111 3.1): `headers` without the hop-by-hop fields, those its
// Connection header names, and Set-Cookie/Set-Cookie2. Cookies are state, not part of the
// representation: a hit must not set them again, and the profile's cache files must not keep
// them (Chrome persists responses "sans cookies" too).
std::shared_ptr<HttpResponseHeaders> HeadersForStorage(const HttpResponseHeaders& headers);

// The headers of a response served from the cache (RFC 9111 4, 5.1): the stored ones without
// hop-by-hop fields (entries written before they were dropped at storage still have them), and
// with one `Age` giving `current_age` (GetCurrentAge) in whole seconds, rounded down and capped
// at 2^31 (RFC 9111 1.2.2), in place of any stored Age.
std::shared_ptr<HttpResponseHeaders> HeadersForServing(const HttpResponseHeaders& stored,
                                                       TimeDelta current_age);

// What a HEAD request's 200 means for the stored GET response of its URL (RFC 9111 4.3.5).
struct HeadUpdateDecision {
  bool update = false;  // true: MergeNotModified(stored, head) freshens it; false: it is stale
  std::string reason;   // why not, one line ("ETag differs", ...), or "validators match"
};
// Updates when the HEAD response carries at least one validator (ETag, Last-Modified), every
// validator it carries equals the stored one, and its Content-Length, when present, equals the
// stored one's. Otherwise the stored response is to be considered stale (the cache invalidates
// it). Without any validator nothing shows the stored body is still the representation, so it is
// not freshened.
HeadUpdateDecision DecideHeadUpdate(const HttpResponseHeaders& stored,
                                    const HttpResponseHeaders& head);

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_HEADERS_H_

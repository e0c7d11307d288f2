// HTTP/1.x keep-alive: whether a connection may carry another request after a response. One
// rule for both ends of the stack: the client's HttpStreamParser (CanReuseConnection) and the
// simulated world's servers (net/sim's SimHttpServer, which closes after a response this rule
// says ends the connection), so a modelled server never keeps open a connection the client
// would drop, nor closes one the client would reuse.
//
// The rule (RFC 9112 section 9.3, as http-parser 2.9 reads the head): the connection stays
// open unless
//   - the response is HTTP/1.1 (or later) with a "close" token in Connection, or HTTP/1.0 (or
//     earlier) without a "keep-alive" token;
//   - its body is delimited by the close (neither Content-Length nor chunked, on a response that
//     has a body: see ResponseHasNoBody);
//   - it is 101 Switching Protocols (the connection no longer speaks HTTP/1.1);
//   - its framing is ambiguous (chunked together with Content-Length: read as chunked, RFC 9112
//     section 6.3, but not trusted for another request).
// The request's own keep-alive (HTTP/1.0, Connection: close) is the server's to read: net/server's
// HttpRequestReader::keep_alive().
#ifndef NET_HTTP_HTTP_KEEP_ALIVE_H_
#define NET_HTTP_HTTP_KEEP_ALIVE_H_

#include <http_parser.h>

#include <string_view>

namespace netstack {

// A response with no body whatever its framing headers say: to a HEAD request, 1xx, 204, 304
// (RFC 9112 section 6.3).
bool ResponseHasNoBody(int status_code, bool head_request);

// The rule above, from http-parser's state (HTTP_RESPONSE mode) once a response's head has been
// parsed, a bodiless one having been marked by its headers-complete callback returning 1 (as
// HttpStreamParser does), up to the end of that message (before the parser starts the next).
bool ResponseKeepsConnectionAlive(const http_parser& parser);

// The rule for a complete response head as it goes on the wire ("HTTP/1.1 200 OK\r\n...\r\n\r\n",
// ending with the empty line), sent for a request that was HEAD if `head_request`. A head that
// does not parse (or is cut short, or is over http-parser's process-wide header limit: 80 KiB
// until the first HttpStreamParser raises it) ends the connection: false. Runs http-parser over
// the head only (no header is copied); for a server deciding whether to close after sending it.
bool ResponseHeadKeepsConnectionAlive(std::string_view head, bool head_request);

}  // namespace netstack

#endif  // NET_HTTP_HTTP_KEEP_ALIVE_H_

// What AresDnsTransport makes of c-ares's answers: the status -> net error mapping, one
// family's ares_getaddrinfo() answer as addresses and a TTL, the rule that combines the AAAA and
// A outcomes into one DnsTransportResult, and the one-line detail that says what the server did
// ("NXDOMAIN from 127.0.0.1:5353"). Pure functions: no channel, no loop.
#ifndef NET_DNS_ARES_ANSWER_H_
#define NET_DNS_ARES_ANSWER_H_

#include <ares.h>

#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/time.h"
#include "net/dns/dns_transport.h"

namespace netstack {

// Maps a c-ares status to a net error (see dns_transport.h for the meaning of each):
// ARES_ENOTFOUND, ARES_ENODATA, ARES_EBADNAME -> ERR_NAME_NOT_RESOLVED; ARES_ESERVFAIL,
// ARES_EFORMERR, ARES_ENOTIMP -> ERR_DNS_SERVER_FAILED; ARES_EREFUSED -> ERR_DNS_REFUSED;
// ARES_ETIMEOUT -> ERR_DNS_TIMED_OUT; ARES_EBADRESP -> ERR_DNS_MALFORMED_RESPONSE;
// ARES_ECONNREFUSED (no server could be reached: port closed, no route) ->
// ERR_DNS_SERVER_UNREACHABLE, never ERR_CONNECTION_REFUSED, which would read as the web server
// refusing; ARES_ENOMEM -> ERR_OUT_OF_MEMORY; ARES_EDESTRUCTION, ARES_ECANCELLED -> ERR_ABORTED;
// others -> ERR_FAILED.
int MapAresStatus(int status);

// Which servers a transport asks and how often, to say where an answer came from.
struct AresServerInfo {
  std::string servers;  // "127.0.0.1:5353", or "127.0.0.1:53, [::1]:53" for several.
  int tries = 1;        // Tries per server.
};

// A failure as one line without the host name (the resolver adds it): "NXDOMAIN from
// 127.0.0.1:5353", "no answer from 127.0.0.1:5353 after 2 tries", "cannot reach
// 127.0.0.1:5353 (port closed or no route)". ARES_ENODATA is NOERROR without address records.
std::string DescribeAresFailure(int status, const AresServerInfo& info);

// One family's outcome (one ares_getaddrinfo() call).
struct AresFamilyResult {
  int status = ARES_ENODATA;  // c-ares's status; ARES_ENODATA for NOERROR without addresses.
  int error = ERR_FAILED;
  std::vector<IPAddress> addresses;
  TimeDelta ttl = TimeDelta::max();
};

// Builds a family's outcome from an ares_getaddrinfo() answer to a query for `family` (AF_INET
// or AF_INET6; AF_UNSPEC keeps both). Addresses of the other family are dropped, TTL included:
// c-ares passes on whatever address records the reply holds, so a server answering an AAAA query
// with A records would otherwise put IPv4 addresses in the IPv6 part. Never throws (out of
// memory is ERR_OUT_OF_MEMORY).
AresFamilyResult ConvertAresAnswer(int status, const ares_addrinfo* answer, int family) noexcept;

// Combines the per-family outcomes (IPv6 first when both were asked):
// - success if any family has addresses (IPv6 ones first), TTL = the smallest TTL among the
//   families that answered; a failure of the other family is dropped, as Chrome does, because
//   the connect job only needs one family.
// - otherwise, if either family got NXDOMAIN, ERR_NAME_NOT_RESOLVED: the name does not exist,
//   whatever happened to the other query;
// - otherwise the most informative error: a server-side failure (SERVFAIL, REFUSED, timeout,
//   unreachable, malformed) beats NODATA, since "the server failed" is the actionable message
//   when the other family merely had no records; between two such errors the IPv4 one wins (A
//   is the query every server answers).
// A failure's `detail` describes the family whose error was chosen.
DnsTransportResult CombineAresFamilies(const std::vector<AresFamilyResult>& parts,
                                       const AresServerInfo& info);

}  // namespace netstack

#endif  // NET_DNS_ARES_ANSWER_H_

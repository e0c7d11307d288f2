// The DNS transport seam: the one place where a host name becomes a network question. Everything
// above it (HostCache, HostResolverManager) is the same in both worlds; only the transport
// differs: c-ares on libuv (live, ares_dns_transport.h), a model of DNS latency and TTLs (the
// simulator), a script (unit tests).
#ifndef NET_DNS_DNS_TRANSPORT_H_
#define NET_DNS_DNS_TRANSPORT_H_

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_error.h"
#include "net/base/time.h"

namespace netstack {

// What a lookup produced. Errors are distinct so the user can tell a typo from a broken server:
//   NXDOMAIN (the name does not exist)          -> ERR_NAME_NOT_RESOLVED
//   NOERROR with no address records (NODATA)    -> ERR_NAME_NOT_RESOLVED
//   SERVFAIL                                    -> ERR_DNS_SERVER_FAILED
//   REFUSED                                     -> ERR_DNS_REFUSED
//   no answer within the timeout and retries    -> ERR_DNS_TIMED_OUT
//   an answer that does not parse               -> ERR_DNS_MALFORMED_RESPONSE
//   no server reachable (port closed, no route) -> ERR_DNS_SERVER_UNREACHABLE
struct DnsTransportResult {
  int error = ERR_FAILED;
  // Addresses of the requested family (both families for kUnspecified), in answer order. Empty
  // unless error == OK; never empty when error == OK.
  std::vector<IPAddress> addresses;
  // How long the answer may be cached: the smallest TTL of the records it was built from
  // (address records and the CNAMEs leading to them). Zero for errors: a transport does not
  // say how long a failure may be remembered; HostResolverManager::Config decides.
  TimeDelta ttl = TimeDelta::zero();
  // For a failure, what the transport saw beyond the code, in one line without the host name
  // (the resolver prefixes it): "NXDOMAIN from 127.0.0.1:5353", "no answer from 127.0.0.1:53
  // after 2 tries". May be empty; always empty on success.
  std::string detail;
};

// One lookup in flight. Destroying it cancels the lookup: its callback never runs afterwards,
// even if the answer has already arrived and is waiting to be delivered.
class DnsTransaction {
 public:
  virtual ~DnsTransaction() = default;
};

class DnsTransport {
 public:
  // Runs at most once, on the loop, never inside StartLookup(). It may destroy the transaction
  // (and start new lookups).
  using Callback = std::function<void(const DnsTransportResult& result)>;

  virtual ~DnsTransport() = default;

  // Asks for the addresses of `hostname` (a name, never an IP literal: the manager answers
  // those itself). `family` kIPv4 asks for A records, kIPv6 for AAAA, kUnspecified for both
  // (success if either family has addresses). The returned transaction is owned by the caller;
  // `callback` runs once with the result unless the transaction is destroyed first. If the
  // transport itself is destroyed first, the callback never runs either (the transaction becomes
  // inert and may be destroyed later).
  virtual std::unique_ptr<DnsTransaction> StartLookup(const std::string& hostname,
                                                      AddressFamily family, Callback callback) = 0;

  // What the transport is configured with (servers, timeouts), for the internals page and the
  // NetLog's polled data. Empty object by default.
  virtual nlohmann::json GetInfoAsJson() const { return nlohmann::json::object(); }
};

// Maps a DNS response code (RFC 1035 RCODE, 0-15) to the net error above: 0 (NOERROR) -> OK,
// 3 (NXDOMAIN) -> ERR_NAME_NOT_RESOLVED, 2 (SERVFAIL) -> ERR_DNS_SERVER_FAILED, 5 (REFUSED) ->
// ERR_DNS_REFUSED, 1 (FORMERR: the server could not parse our query) and anything else ->
// ERR_DNS_SERVER_FAILED. For transports that see raw RCODEs (the simulator, fakes).
int DnsRcodeToNetError(int rcode);

// ["1.2.3.4", "::1", ...] for NetLog parameters and the internals page.
nlohmann::json IPAddressesToJson(const std::vector<IPAddress>& addresses);

// Short text for an AddressFamily ("ipv4", "ipv6", "unspecified"), for logs and JSON.
const char* AddressFamilyToString(AddressFamily family);

}  // namespace netstack

#endif  // NET_DNS_DNS_TRANSPORT_H_

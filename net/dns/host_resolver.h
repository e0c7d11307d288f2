// The host resolver interface the rest of the stack uses. HostResolverManager implements it over
// a host cache and a DnsTransport (c-ares live, modelled in the simulator, scripted in tests).
#ifndef NET_DNS_HOST_RESOLVER_H_
#define NET_DNS_HOST_RESOLVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "net/base/ip_address.h"
#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"

namespace netstack {

class HostResolver {
 public:
  // One resolution. Owned by the caller; destroying it cancels (its callback never runs) and
  // detaches it from the shared job, which keeps running for any other request.
  class Request {
   public:
    virtual ~Request() = default;

    // Starts. Returns OK (cache hit, IP literal, --resolve override) with addresses() ready, an
    // error (ERR_NAME_NOT_RESOLVED for NXDOMAIN, ERR_DNS_SERVER_FAILED for SERVFAIL,
    // ERR_DNS_TIMED_OUT, ...), or ERR_IO_PENDING and `callback` runs later with the result.
    // Call once.
    virtual int Start(CompletionCallback callback) = 0;

    // The addresses, each with the request's port, IPv6 first if the answer had both, as Chrome
    // sorts them. Valid after a successful completion.
    virtual const AddressList& addresses() const = 0;

    // True if the answer came from the host cache (fresh or stale) rather than the network.
    virtual bool from_cache() const = 0;
    // True if a stale cache entry was served (an async refresh was started).
    virtual bool served_stale() const = 0;

    virtual void ChangePriority(RequestPriority priority) = 0;

    // After a failure: one line saying what went wrong beyond the error code, starting with the
    // host name ("a.test: NXDOMAIN from 127.0.0.1:5353", "a.test: no answer from
    // 127.0.0.1:5353 after 2 tries"), for error messages (the connect job hands it on). Empty
    // on success or if there is nothing to add. The default is for fakes.
    virtual std::string error_detail() const { return {}; }
  };

  virtual ~HostResolver() = default;

  // Creates a request for `host` (a name or an IP literal without brackets). `net_log` is the
  // caller's source; events of the shared job go to the job's own source.
  virtual std::unique_ptr<Request> CreateRequest(const std::string& host, uint16_t port,
                                                 RequestPriority priority,
                                                 const NetLogWithSource& net_log) = 0;
};

}  // namespace netstack

#endif  // NET_DNS_HOST_RESOLVER_H_

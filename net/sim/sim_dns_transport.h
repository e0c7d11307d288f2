// SimDnsTransport: the simulator's DnsTransport. Every name exists: a lookup answers after the
// host's dns latency (plus a radio promotion when the radio is idle) with one IPv4 address,
// 10.x.y.z in the order names were first asked for, and the host's dns_ttl. The world is IPv4
// only: an IPv6-only lookup answers NODATA (ERR_NAME_NOT_RESOLVED). The callback runs from a
// scheduler task, never inside StartLookup; destroying the transaction (or the transport)
// first cancels it. Internal to net/sim.
#ifndef NET_SIM_SIM_DNS_TRANSPORT_H_
#define NET_SIM_SIM_DNS_TRANSPORT_H_

#include <memory>
#include <string>
#include <unordered_set>

#include "net/dns/dns_transport.h"

namespace netstack {

class SimWorld;
class SimDnsTransaction;

class SimDnsTransport : public DnsTransport {
 public:
  // `world` must outlive the transport.
  explicit SimDnsTransport(SimWorld& world);
  // Lookups still in flight never answer; their transactions become inert.
  ~SimDnsTransport() override;
  SimDnsTransport(const SimDnsTransport&) = delete;
  SimDnsTransport& operator=(const SimDnsTransport&) = delete;

  std::unique_ptr<DnsTransaction> StartLookup(const std::string& hostname, AddressFamily family,
                                              Callback callback) override;
  // {"type": "simulated"}.
  nlohmann::json GetInfoAsJson() const override;

 private:
  friend class SimDnsTransaction;

  SimWorld& world_;
  std::unordered_set<SimDnsTransaction*> live_;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_DNS_TRANSPORT_H_

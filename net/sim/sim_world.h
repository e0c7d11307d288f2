// SimWorld: the state a SimNetwork shares with everything it creates: the scheduler, the
// parameters, the servers' responder, the counters, the two directions of the access link, the
// radio and the hosts (handed out by DNS, or reached without it). Internal to net/sim (SimNetwork
// is its public face; TLS sessions are the client's, in each stack's SimSocketFactory).
#ifndef NET_SIM_SIM_WORLD_H_
#define NET_SIM_SIM_WORLD_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/scheduler.h"
#include "net/sim/network_params.h"
#include "net/sim/radio_model.h"
#include "net/sim/sim_link.h"
#include "net/sim/sim_network.h"

namespace netstack {

// One modelled server, known from the first time DNS was asked for its name or, for a host
// reached without DNS (an IP literal, `localhost`), from its first connection.
struct SimHost {
  std::string name;   // lowercase, as a URL's host (an IPv6 literal without brackets)
  HostParams params;  // NetworkParams::ForHost(name), computed once
  IPAddress address;  // 10.x.y.z from DNS; for a host reached without DNS, its first address
};

class SimWorld {
 public:
  // Hosts 10.0.0.1 .. 10.255.255.254 handed out by DNS; as many again reached without DNS.
  static constexpr uint32_t kMaxHosts = (1u << 24) - 2;

  SimWorld(Scheduler& scheduler, const NetworkParams& params, SimResponder* responder);
  SimWorld(const SimWorld&) = delete;
  SimWorld& operator=(const SimWorld&) = delete;

  // The host named `name` (lowercase), given the next address the first time; null once
  // kMaxHosts names have been handed out.
  SimHost* FindOrAddHost(std::string_view name);
  // The host an address stands for, or null if the network did not hand it out.
  SimHost* HostForAddress(const IPAddress& address) const;
  // The host a connection to `address`, opened for the URL host `host_name` (lowercase, an IPv6
  // literal without brackets; "" when unknown), reaches. An IP-literal `host_name` names its
  // own host, whatever DNS handed out; otherwise an address DNS handed out is its host's;
  // otherwise (`localhost`, which the resolver answers without DNS) the host is named by
  // `host_name`, or without one by the address (`localhost` for loopback, else its text). Hosts
  // reached without DNS are created on first use; null once kMaxHosts of them exist.
  SimHost* HostForConnect(const IPAddress& address, std::string_view host_name);

  Scheduler& scheduler;
  const NetworkParams params;
  SimResponder* const responder;  // may be null: every request gets a 404
  SimNetwork::Stats stats;
  SimLink downlink;
  SimLink uplink;
  RadioModel radio;

 private:
  std::unordered_map<std::string, uint32_t> host_index_;
  std::vector<std::unique_ptr<SimHost>> hosts_;  // [i] has address 10.0.0.0 + i + 1
  // Hosts reached without DNS, by name: a name here is never in host_index_ too.
  std::unordered_map<std::string, std::unique_ptr<SimHost>> direct_hosts_;
};

}  // namespace netstack

#endif  // NET_SIM_SIM_WORLD_H_

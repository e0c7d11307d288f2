#include "net/sim/sim_network.h"

#include <utility>

#include "net/sim/sim_dns_transport.h"
#include "net/sim/sim_socket_factory.h"
#include "net/sim/sim_world.h"

namespace netstack {

SimNetwork::SimNetwork(Scheduler& scheduler, const NetworkParams& params, SimResponder* responder)
    : world_(std::make_unique<SimWorld>(scheduler, params, responder)) {}

SimNetwork::~SimNetwork() = default;

std::unique_ptr<DnsTransport> SimNetwork::CreateDnsTransport() {
  return std::make_unique<SimDnsTransport>(*world_);
}

std::unique_ptr<ClientSocketFactory> SimNetwork::CreateSocketFactory(
    size_t max_tls_sessions, std::vector<std::string> alpn) {
  return std::make_unique<SimSocketFactory>(*world_, max_tls_sessions, std::move(alpn));
}

const NetworkParams& SimNetwork::params() const { return world_->params; }

const SimNetwork::Stats& SimNetwork::stats() const { return world_->stats; }

std::string SimNetwork::HostForAddress(const IPAddress& address) const {
  const SimHost* host = world_->HostForAddress(address);
  return host ? host->name : std::string();
}

}  // namespace netstack

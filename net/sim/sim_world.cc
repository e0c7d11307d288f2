#include "net/sim/sim_world.h"

namespace netstack {

SimWorld::SimWorld(Scheduler& scheduler, const NetworkParams& params, SimResponder* responder)
    : scheduler(scheduler),
      params(params),
      responder(responder),
      downlink(scheduler, params.downlink_bps, params.link_queue),
      uplink(scheduler, params.uplink_bps, params.link_queue),
      radio(params.radio, &stats.radio_promotions) {}

SimHost* SimWorld::FindOrAddHost(std::string_view name) {
  std::string key(name);
  if (auto it = host_index_.find(key); it != host_index_.end()) return hosts_[it->second].get();
  // A name first reached without DNS (a --resolve override's) keeps its server.
  if (auto it = direct_hosts_.find(key); it != direct_hosts_.end()) return it->second.get();
  if (hosts_.size() >= kMaxHosts) return nullptr;
  const uint32_t n = static_cast<uint32_t>(hosts_.size()) + 1;
  auto host = std::make_unique<SimHost>();
  host->name = key;
  host->params = params.ForHost(key);
  host->address = IPAddress::IPv4(10, static_cast<uint8_t>(n >> 16), static_cast<uint8_t>(n >> 8),
                                  static_cast<uint8_t>(n));
  host_index_.emplace(std::move(key), static_cast<uint32_t>(hosts_.size()));
  hosts_.push_back(std::move(host));
  return hosts_.back().get();
}

SimHost* SimWorld::HostForConnect(const IPAddress& address, std::string_view host_name) {
  std::string name(host_name);
  const bool literal = !name.empty() && IPAddress::Parse(name).has_value();
  if (!literal) {
    if (SimHost* host = HostForAddress(address)) return host;
    if (name.empty()) name = address.IsLoopback() ? "localhost" : address.ToString();
    if (auto it = host_index_.find(name); it != host_index_.end()) return hosts_[it->second].get();
  }
  if (auto it = direct_hosts_.find(name); it != direct_hosts_.end()) return it->second.get();
  if (direct_hosts_.size() >= kMaxHosts) return nullptr;
  auto host = std::make_unique<SimHost>();
  host->name = name;
  host->params = params.ForHost(name);
  host->address = address;
  SimHost* added = host.get();
  direct_hosts_.emplace(std::move(name), std::move(host));
  return added;
}

SimHost* SimWorld::HostForAddress(const IPAddress& address) const {
  if (!address.IsIPv4() || address.bytes()[0] != 10) return nullptr;
  const uint8_t* b = address.bytes();
  const uint32_t n = (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
  if (n == 0 || n > hosts_.size()) return nullptr;
  return hosts_[n - 1].get();
}

}  // namespace netstack

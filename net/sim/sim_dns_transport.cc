#include "net/sim/sim_dns_transport.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "net/base/scheduler.h"
#include "net/base/string_util.h"
#include "net/sim/sim_world.h"

namespace netstack {

// One lookup: a timer that delivers a result decided when the lookup started.
class SimDnsTransaction : public DnsTransaction {
 public:
  SimDnsTransaction(SimDnsTransport* transport, DnsTransportResult result,
                    DnsTransport::Callback callback, TimeDelta delay)
      : transport_(transport),
        result_(std::move(result)),
        callback_(std::move(callback)),
        answer_timer_(transport->world_.scheduler) {
    transport_->live_.insert(this);
    answer_timer_.Start(delay, [this] { OnAnswer(); });
  }

  ~SimDnsTransaction() override { Detach(); }

  // Cancels the answer and forgets the transport (which may be going away).
  void Detach() {
    if (!transport_) return;
    answer_timer_.Stop();
    transport_->live_.erase(this);
    transport_ = nullptr;
  }

 private:
  void OnAnswer() {
    Detach();
    // The callback may destroy this transaction: nothing of it is used afterwards.
    DnsTransportResult result = std::move(result_);
    DnsTransport::Callback callback = std::move(callback_);
    callback(result);
  }

  SimDnsTransport* transport_;
  DnsTransportResult result_;
  DnsTransport::Callback callback_;
  OneShotTimer answer_timer_;
};

SimDnsTransport::SimDnsTransport(SimWorld& world) : world_(world) {}

SimDnsTransport::~SimDnsTransport() {
  // Detach erases from live_: take the set first.
  std::unordered_set<SimDnsTransaction*> live = std::move(live_);
  for (SimDnsTransaction* transaction : live) transaction->Detach();
}

std::unique_ptr<DnsTransaction> SimDnsTransport::StartLookup(const std::string& hostname,
                                                             AddressFamily family,
                                                             Callback callback) {
  std::string name = ToLowerAscii(hostname);
  ++world_.stats.dns_lookups;
  DnsTransportResult result;
  SimHost* host = world_.FindOrAddHost(name);
  const HostParams params = host ? host->params : world_.params.ForHost(name);
  if (!host) {
    result.error = ERR_NAME_NOT_RESOLVED;
    result.detail = "the simulated network has no address left for another host";
  } else if (family == AddressFamily::kIPv6) {
    result.error = ERR_NAME_NOT_RESOLVED;
    result.detail = "no AAAA record (the simulated network is IPv4 only)";
  } else {
    result.error = OK;
    result.addresses.push_back(host->address);
    result.ttl = params.dns_ttl;
  }
  const TimeTicks now = world_.scheduler.Now();
  const TimeTicks answered = world_.radio.Acquire(now) + params.dns;
  world_.radio.Touch(answered);
  return std::make_unique<SimDnsTransaction>(this, std::move(result), std::move(callback),
                                             answered - now);
}

nlohmann::json SimDnsTransport::GetInfoAsJson() const {
  return nlohmann::json{{"type", "simulated"}};
}

}  // namespace netstack

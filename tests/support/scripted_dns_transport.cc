#include "tests/support/scripted_dns_transport.h"

#include <algorithm>
#include <utility>

namespace netstack {

class ScriptedDnsTransport::Transaction : public DnsTransaction {
 public:
  Transaction(ScriptedDnsTransport* transport, std::string hostname, DnsTransportResult result,
              Callback callback)
      : transport_(transport),
        hostname_(std::move(hostname)),
        result_(std::move(result)),
        callback_(std::move(callback)),
        timer_(transport->scheduler_) {}

  ~Transaction() override {
    if (!transport_) return;
    timer_.Stop();
    Detach();
    ++transport_->cancelled_;
  }

  const std::string& hostname() const { return hostname_; }

  void Schedule(TimeDelta delay) {
    if (delay == kHang) return;
    timer_.Start(delay, [this] { Fire(); });
  }

  // Delivers the result; the callback may destroy `this`.
  void Fire() {
    timer_.Stop();
    Detach();
    transport_ = nullptr;  // Completed: the destructor counts nothing.
    Callback callback = std::move(callback_);
    callback(result_);
  }

  // The transport is going away: never call back.
  void OnTransportDestroyed() {
    timer_.Stop();  // never touches the scheduler again
    transport_ = nullptr;
  }

 private:
  void Detach() {
    auto& active = transport_->active_;
    active.erase(std::remove(active.begin(), active.end(), this), active.end());
  }

  ScriptedDnsTransport* transport_;
  const std::string hostname_;
  const DnsTransportResult result_;
  Callback callback_;
  OneShotTimer timer_;  // the scripted answer's delay
};

ScriptedDnsTransport::ScriptedDnsTransport(Scheduler& scheduler) : scheduler_(scheduler) {}

ScriptedDnsTransport::~ScriptedDnsTransport() {
  for (Transaction* transaction : active_) transaction->OnTransportDestroyed();
}

void ScriptedDnsTransport::SetResult(const std::string& hostname, DnsTransportResult result,
                                     TimeDelta delay) {
  scripts_[hostname] = Script{std::move(result), delay};
}

void ScriptedDnsTransport::SetAddresses(const std::string& hostname,
                                        const std::vector<std::string>& addresses, TimeDelta ttl,
                                        TimeDelta delay) {
  DnsTransportResult result;
  result.error = OK;
  result.ttl = ttl;
  for (const std::string& text : addresses) result.addresses.push_back(*IPAddress::Parse(text));
  SetResult(hostname, std::move(result), delay);
}

void ScriptedDnsTransport::SetError(const std::string& hostname, int error, TimeDelta delay) {
  DnsTransportResult result;
  result.error = error;
  SetResult(hostname, std::move(result), delay);
}

ScriptedDnsTransport::Script ScriptedDnsTransport::ScriptFor(const std::string& hostname) const {
  auto it = scripts_.find(hostname);
  if (it != scripts_.end()) return it->second;
  DnsTransportResult nxdomain;
  nxdomain.error = ERR_NAME_NOT_RESOLVED;
  return Script{nxdomain, default_delay_};
}

std::unique_ptr<DnsTransaction> ScriptedDnsTransport::StartLookup(const std::string& hostname,
                                                                  AddressFamily family,
                                                                  Callback callback) {
  calls_.push_back(Call{hostname, family, scheduler_.Now()});
  Script script = ScriptFor(hostname);
  DnsTransportResult result = script.result;
  if (result.error == OK && family != AddressFamily::kUnspecified) {
    std::erase_if(result.addresses, [family](const IPAddress& a) { return a.family() != family; });
    if (result.addresses.empty()) result = DnsTransportResult{ERR_NAME_NOT_RESOLVED, {}, {}, {}};
  }
  auto transaction =
      std::make_unique<Transaction>(this, hostname, std::move(result), std::move(callback));
  active_.push_back(transaction.get());
  transaction->Schedule(script.delay);
  return transaction;
}

bool ScriptedDnsTransport::CompleteNext(const std::string& hostname) {
  for (Transaction* transaction : active_) {
    if (transaction->hostname() != hostname) continue;
    transaction->Fire();
    return true;
  }
  return false;
}

size_t ScriptedDnsTransport::CallCount(const std::string& hostname) const {
  return std::count_if(calls_.begin(), calls_.end(),
                       [&](const Call& call) { return call.hostname == hostname; });
}

}  // namespace netstack

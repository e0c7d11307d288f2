// ScriptedDnsTransport: a DnsTransport for unit tests on virtual time. Each host name gets a
// scripted answer delivered a given delay after the lookup starts (or never, until the test
// says so), and every lookup is recorded, so tests can count transport calls and check their
// order. Follows the DnsTransport contract: callbacks run from scheduler tasks, never inside
// StartLookup(); destroying a transaction cancels it.
#ifndef TESTS_SUPPORT_SCRIPTED_DNS_TRANSPORT_H_
#define TESTS_SUPPORT_SCRIPTED_DNS_TRANSPORT_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "net/base/scheduler.h"
#include "net/dns/dns_transport.h"

namespace netstack {

class ScriptedDnsTransport : public DnsTransport {
 public:
  // A delay meaning "never by itself": the lookup waits for CompleteNext().
  static constexpr TimeDelta kHang = TimeDelta::max();

  struct Call {
    std::string hostname;
    AddressFamily family;
    TimeTicks time;
  };

  // `scheduler` must outlive the transport and its transactions.
  explicit ScriptedDnsTransport(Scheduler& scheduler);
  // Outstanding transactions become inert (never call back).
  ~ScriptedDnsTransport() override;

  // Scripts the answer for `hostname`, delivered `delay` after each lookup starts. A lookup for
  // one family gets only that family's addresses (ERR_NAME_NOT_RESOLVED if none are left).
  void SetResult(const std::string& hostname, DnsTransportResult result,
                 TimeDelta delay = Milliseconds(10));
  // Shorthand: addresses as text ("10.0.0.1", "fd00::1") with a TTL.
  void SetAddresses(const std::string& hostname, const std::vector<std::string>& addresses,
                    TimeDelta ttl, TimeDelta delay = Milliseconds(10));
  // Shorthand: a failure (ERR_NAME_NOT_RESOLVED, ERR_DNS_SERVER_FAILED...).
  void SetError(const std::string& hostname, int error, TimeDelta delay = Milliseconds(10));
  // Names without a script answer ERR_NAME_NOT_RESOLVED after this delay (default 10 ms).
  void set_default_delay(TimeDelta delay) { default_delay_ = delay; }

  // Completes the oldest pending lookup for `hostname` now, with its scripted result (or
  // NXDOMAIN). Returns false if none is pending. The callback runs inside this call.
  bool CompleteNext(const std::string& hostname);

  // DnsTransport:
  std::unique_ptr<DnsTransaction> StartLookup(const std::string& hostname, AddressFamily family,
                                              Callback callback) override;
  nlohmann::json GetInfoAsJson() const override { return {{"type", "scripted"}}; }

  const std::vector<Call>& calls() const { return calls_; }
  // Lookups started for `hostname` so far.
  size_t CallCount(const std::string& hostname) const;
  // Lookups started and neither completed nor cancelled.
  size_t active() const { return active_.size(); }
  // Lookups whose transaction was destroyed before completion.
  size_t cancelled() const { return cancelled_; }

 private:
  class Transaction;
  struct Script {
    DnsTransportResult result;
    TimeDelta delay;
  };

  Script ScriptFor(const std::string& hostname) const;

  Scheduler& scheduler_;
  TimeDelta default_delay_ = Milliseconds(10);
  std::map<std::string, Script> scripts_;
  std::vector<Call> calls_;
  std::vector<Transaction*> active_;  // In start order.
  size_t cancelled_ = 0;
};

}  // namespace netstack

#endif  // TESTS_SUPPORT_SCRIPTED_DNS_TRANSPORT_H_

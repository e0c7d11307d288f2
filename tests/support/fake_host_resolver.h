// A scripted HostResolver for pool and connect job tests on virtual time: per-host answers
// (addresses or an error), synchronous or after a delay, or never (hang). No network.
#ifndef TESTS_SUPPORT_FAKE_HOST_RESOLVER_H_
#define TESTS_SUPPORT_FAKE_HOST_RESOLVER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/base/weak_ptr.h"
#include "net/dns/host_resolver.h"

namespace netstack::test {

struct FakeResolveRule {
  // Answers, in order, each with the request's port. Documentation addresses (192.0.2.0/24,
  // 2001:db8::/32) in tests: these fakes never touch a network.
  std::vector<IPAddress> addresses = {IPAddress::IPv4(192, 0, 2, 1)};
  int error = OK;
  bool sync = true;         // answer inside Start()
  TimeDelta delay{};        // when !sync: answer after this
  bool hang = false;        // when !sync: never answer
  bool from_cache = false;  // what from_cache() reports
};

class FakeHostResolver : public HostResolver {
 public:
  class FakeRequest;

  explicit FakeHostResolver(Scheduler& scheduler) : scheduler_(scheduler) {}
  ~FakeHostResolver() override;

  // The rule for `host`; hosts without one use the default rule.
  void SetRule(const std::string& host, FakeResolveRule rule) { rules_[host] = std::move(rule); }
  void set_default_rule(FakeResolveRule rule) { default_rule_ = std::move(rule); }

  std::unique_ptr<Request> CreateRequest(const std::string& host, uint16_t port,
                                         RequestPriority priority,
                                         const NetLogWithSource& net_log) override;

  int requests_created() const { return requests_created_; }
  // Requests alive now (started or not), oldest first.
  const std::vector<FakeRequest*>& live_requests() const { return live_; }
  // Requests destroyed from inside their own callback (should stay 0).
  int destroyed_in_callback() const { return destroyed_in_callback_; }

 private:
  friend class FakeRequest;
  Scheduler& scheduler_;
  std::map<std::string, FakeResolveRule> rules_;
  FakeResolveRule default_rule_;
  std::vector<FakeRequest*> live_;
  int requests_created_ = 0;
  int destroyed_in_callback_ = 0;
};

class FakeHostResolver::FakeRequest : public HostResolver::Request {
 public:
  FakeRequest(FakeHostResolver* resolver, std::string host, uint16_t port, RequestPriority priority,
              FakeResolveRule rule);
  ~FakeRequest() override;

  int Start(CompletionCallback callback) override;
  const AddressList& addresses() const override { return addresses_; }
  bool from_cache() const override { return rule_.from_cache; }
  bool served_stale() const override { return false; }
  void ChangePriority(RequestPriority priority) override { priority_ = priority; }

  const std::string& host() const { return host_; }
  RequestPriority priority() const { return priority_; }

 private:
  int Complete();

  FakeHostResolver* resolver_;
  std::string host_;
  uint16_t port_;
  RequestPriority priority_;
  FakeResolveRule rule_;
  AddressList addresses_;
  CompletionCallback callback_;
  OneShotTimer timer_;  // a delayed answer
  bool in_callback_ = false;
  WeakPtrFactory<FakeRequest> weak_factory_{this};  // last: invalidated first
};

}  // namespace netstack::test

#endif  // TESTS_SUPPORT_FAKE_HOST_RESOLVER_H_

#include "tests/support/fake_host_resolver.h"

#include <algorithm>
#include <utility>

namespace netstack::test {

FakeHostResolver::~FakeHostResolver() = default;

std::unique_ptr<HostResolver::Request> FakeHostResolver::CreateRequest(
    const std::string& host, uint16_t port, RequestPriority priority,
    const NetLogWithSource& net_log) {
  ++requests_created_;
  auto it = rules_.find(host);
  const FakeResolveRule& rule = it == rules_.end() ? default_rule_ : it->second;
  return std::make_unique<FakeRequest>(this, host, port, priority, rule);
}

FakeHostResolver::FakeRequest::FakeRequest(FakeHostResolver* resolver, std::string host,
                                           uint16_t port, RequestPriority priority,
                                           FakeResolveRule rule)
    : resolver_(resolver),
      host_(std::move(host)),
      port_(port),
      priority_(priority),
      rule_(std::move(rule)),
      timer_(resolver->scheduler_) {
  resolver_->live_.push_back(this);
}

FakeHostResolver::FakeRequest::~FakeRequest() {
  if (in_callback_) ++resolver_->destroyed_in_callback_;
  auto& live = resolver_->live_;
  live.erase(std::remove(live.begin(), live.end(), this), live.end());
}

int FakeHostResolver::FakeRequest::Start(CompletionCallback callback) {
  if (rule_.sync) return Complete();
  callback_ = std::move(callback);
  if (rule_.hang) return ERR_IO_PENDING;
  timer_.Start(rule_.delay, [this] {
    int rv = Complete();
    // Moved out first: the callee may destroy this request; `self` tells whether it did.
    CompletionCallback cb = std::move(callback_);
    WeakPtr<FakeRequest> self = weak_factory_.GetWeakPtr();
    in_callback_ = true;
    cb(rv);
    if (self) in_callback_ = false;
  });
  return ERR_IO_PENDING;
}

int FakeHostResolver::FakeRequest::Complete() {
  if (rule_.error != OK) return rule_.error;
  addresses_.clear();
  for (const IPAddress& a : rule_.addresses) addresses_.emplace_back(a, port_);
  return addresses_.empty() ? ERR_NAME_NOT_RESOLVED : OK;
}

}  // namespace netstack::test

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
      rule_(std::move(rule)) {
  resolver_->live_.push_back(this);
}

FakeHostResolver::FakeRequest::~FakeRequest() {
  *alive_ = false;
  if (in_callback_) ++resolver_->destroyed_in_callback_;
  if (task_ != kNoTask) resolver_->scheduler_.CancelTask(task_);
  auto& live = resolver_->live_;
  live.erase(std::remove(live.begin(), live.end(), this), live.end());
}

int FakeHostResolver::FakeRequest::Start(CompletionCallback callback) {
  if (rule_.sync) return Complete();
  callback_ = std::move(callback);
  if (rule_.hang) return ERR_IO_PENDING;
  task_ = resolver_->scheduler_.PostDelayedTask(rule_.delay, [this] {
    task_ = kNoTask;
    int rv = Complete();
    // Moved out first: the callee may destroy this request.
    CompletionCallback cb = std::move(callback_);
    std::shared_ptr<bool> alive = alive_;
    in_callback_ = true;
    cb(rv);
    if (*alive) in_callback_ = false;
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

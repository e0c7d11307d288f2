// Helpers for HostResolverManager unit tests: a virtual-time environment with a scripted
// transport and a NetLog recorder, and a request wrapper that records its completion.
#ifndef TESTS_DNS_RESOLVER_TEST_UTIL_H_
#define TESTS_DNS_RESOLVER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "net/base/net_log.h"
#include "net/base/virtual_scheduler.h"
#include "net/dns/host_resolver_manager.h"
#include "tests/support/scripted_dns_transport.h"

namespace netstack {

// Keeps every NetLog entry.
class RecordingNetLogObserver : public NetLog::Observer {
 public:
  void OnAddEntry(const NetLogEntry& entry) override { entries.push_back(entry); }

  size_t Count(NetLogEventType type, NetLogEventPhase phase = NetLogEventPhase::NONE) const {
    size_t n = 0;
    for (const NetLogEntry& e : entries) n += (e.type == type && e.phase == phase) ? 1 : 0;
    return n;
  }
  // Entries logged on `source_id`, in order.
  std::vector<NetLogEntry> ForSource(uint32_t source_id) const {
    std::vector<NetLogEntry> result;
    for (const NetLogEntry& e : entries) {
      if (e.source.id == source_id) result.push_back(e);
    }
    return result;
  }

  std::vector<NetLogEntry> entries;
};

// A started request and what happened to it.
struct TestRequest {
  std::unique_ptr<HostResolver::Request> request;
  NetLogWithSource net_log;
  int start_result = ERR_IO_PENDING;
  int result = ERR_IO_PENDING;  // The callback's result, or the synchronous one.
  int callbacks = 0;

  bool done() const { return result != ERR_IO_PENDING; }
  std::vector<std::string> AddressStrings() const {
    std::vector<std::string> out;
    for (const IPEndPoint& endpoint : request->addresses()) out.push_back(endpoint.ToString());
    return out;
  }
};

class ResolverEnv {
 public:
  explicit ResolverEnv(const HostResolverManager::Config& config = {}) {
    net_log.AddObserver(&observer);
    auto owned = std::make_unique<ScriptedDnsTransport>(scheduler);
    transport = owned.get();
    resolver = std::make_unique<HostResolverManager>(scheduler, std::move(owned), &net_log, config);
  }
  ~ResolverEnv() {
    resolver.reset();
    net_log.RemoveObserver(&observer);
  }

  // Creates and starts a request on its own NetLog source (URL_REQUEST, as a caller would).
  std::unique_ptr<TestRequest> Resolve(const std::string& host, uint16_t port = 443,
                                       RequestPriority priority = MEDIUM) {
    auto test = std::make_unique<TestRequest>();
    test->net_log = NetLogWithSource::Make(&net_log, NetLogSourceType::URL_REQUEST);
    test->request = resolver->CreateRequest(host, port, priority, test->net_log);
    TestRequest* raw = test.get();
    test->start_result = test->request->Start([raw](int rv) {
      raw->result = rv;
      ++raw->callbacks;
    });
    if (test->start_result != ERR_IO_PENDING) test->result = test->start_result;
    return test;
  }

  VirtualScheduler scheduler;
  NetLog net_log{scheduler};
  RecordingNetLogObserver observer;
  ScriptedDnsTransport* transport = nullptr;  // Owned by the resolver.
  std::unique_ptr<HostResolverManager> resolver;
};

}  // namespace netstack

#endif  // TESTS_DNS_RESOLVER_TEST_UTIL_H_

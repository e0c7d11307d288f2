// Shared test scaffolding for the pool and connect job tests: a NetLog recorder, a completion
// callback recorder, and an environment (virtual time, fake resolver and socket factory, NetLog,
// and a pool) in the order that destroys the pool first, with the pool settings tests vary.
// Connect rules for the fake factory: FakeConnectRule::After / Sync / Hang (tests/support).
#ifndef TESTS_SOCKET_POOL_TEST_UTIL_H_
#define TESTS_SOCKET_POOL_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "net/base/net_error.h"
#include "net/base/net_log.h"
#include "net/base/url.h"
#include "net/base/virtual_scheduler.h"
#include "net/socket/client_socket_pool.h"
#include "tests/support/fake_client_socket_factory.h"
#include "tests/support/fake_host_resolver.h"

namespace netstack::test {

class RecordingNetLogObserver : public NetLog::Observer {
 public:
  explicit RecordingNetLogObserver(NetLog* net_log) : net_log_(net_log) {
    net_log_->AddObserver(this);
  }
  ~RecordingNetLogObserver() override { net_log_->RemoveObserver(this); }

  void OnAddEntry(const NetLogEntry& entry) override { entries_.push_back(entry); }

  const std::vector<NetLogEntry>& entries() const { return entries_; }
  // Entries of `type`, of source `source_id` if non-zero.
  std::vector<NetLogEntry> Get(NetLogEventType type, uint32_t source_id = 0) const;
  size_t Count(NetLogEventType type, uint32_t source_id = 0) const {
    return Get(type, source_id).size();
  }

 private:
  NetLog* net_log_;
  std::vector<NetLogEntry> entries_;
};

// Records every result a CompletionCallback receives.
class TestCompletion {
 public:
  CompletionCallback callback() {
    return [this](int rv) { results_.push_back(rv); };
  }
  bool have_result() const { return !results_.empty(); }
  int result() const { return results_.empty() ? ERR_IO_PENDING : results_.back(); }
  size_t count() const { return results_.size(); }

 private:
  std::vector<int> results_;
};

struct PoolTestEnv {
  explicit PoolTestEnv(ClientSocketPool::Params params = DefaultParams());
  // Checks, for every test, that the pool never destroyed a socket or a resolve request from
  // inside that object's own callback.
  ~PoolTestEnv();

  // Test defaults: Chrome's, with backup jobs off (tests of backup jobs turn them on) so that
  // slow fake connects do not start extra jobs.
  static ClientSocketPool::Params DefaultParams();
  // Chrome's defaults as they are: backup jobs on (after 250 ms).
  static ClientSocketPool::Params WithBackupJobs();
  // DefaultParams() with at most `max_sockets` sockets in the pool, or `max_per_group` in a
  // group.
  static ClientSocketPool::Params WithMaxSockets(int max_sockets);
  static ClientSocketPool::Params WithMaxSocketsPerGroup(int max_per_group);

  static SchemeHostPort Http(const std::string& host, uint16_t port = 80) {
    return SchemeHostPort{"http", host, port};
  }
  static SchemeHostPort Https(const std::string& host, uint16_t port = 443) {
    return SchemeHostPort{"https", host, port};
  }
  // A fresh source to log a request under.
  NetLogWithSource NewRequestLog() {
    return NetLogWithSource::Make(&net_log, NetLogSourceType::URL_REQUEST);
  }
  // Requests a socket; returns RequestSocket's result.
  int Request(ClientSocketHandle* handle, const SchemeHostPort& group, TestCompletion* done,
              RequestPriority priority = MEDIUM);
  int Request(ClientSocketHandle* handle, const SchemeHostPort& group, TestCompletion* done,
              RequestPriority priority, const NetLogWithSource& log);
  // The fake socket a handle holds (null if none).
  static FakeStreamSocket* SocketOf(const ClientSocketHandle& handle) {
    return static_cast<FakeStreamSocket*>(handle.socket());
  }

  VirtualScheduler scheduler;
  NetLog net_log{scheduler};
  RecordingNetLogObserver observer{&net_log};
  FakeHostResolver resolver{scheduler};
  FakeClientSocketFactory factory{scheduler};
  std::unique_ptr<ClientSocketPool> pool;  // last: destroyed first
};

}  // namespace netstack::test

#endif  // TESTS_SOCKET_POOL_TEST_UTIL_H_

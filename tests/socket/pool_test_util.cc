#include "tests/socket/pool_test_util.h"

#include <catch2/catch.hpp>

namespace netstack::test {

std::vector<NetLogEntry> RecordingNetLogObserver::Get(NetLogEventType type,
                                                      uint32_t source_id) const {
  std::vector<NetLogEntry> out;
  for (const NetLogEntry& e : entries_)
    if (e.type == type && (source_id == 0 || e.source.id == source_id)) out.push_back(e);
  return out;
}

PoolTestEnv::PoolTestEnv(ClientSocketPool::Params params)
    : pool(std::make_unique<ClientSocketPool>(params, scheduler, &resolver, &factory, &net_log)) {}

PoolTestEnv::~PoolTestEnv() {
  scheduler.RunUntilIdle();  // let posted deletions run
  CHECK(factory.destroyed_in_callback() == 0);
  CHECK(resolver.destroyed_in_callback() == 0);
}

ClientSocketPool::Params PoolTestEnv::DefaultParams() {
  ClientSocketPool::Params params;
  params.enable_backup_jobs = false;
  return params;
}

ClientSocketPool::Params PoolTestEnv::WithBackupJobs() { return ClientSocketPool::Params(); }

ClientSocketPool::Params PoolTestEnv::WithMaxSockets(int max_sockets) {
  ClientSocketPool::Params params = DefaultParams();
  params.max_sockets = max_sockets;
  return params;
}

ClientSocketPool::Params PoolTestEnv::WithMaxSocketsPerGroup(int max_per_group) {
  ClientSocketPool::Params params = DefaultParams();
  params.max_sockets_per_group = max_per_group;
  return params;
}

int PoolTestEnv::Request(ClientSocketHandle* handle, const SchemeHostPort& group,
                         TestCompletion* done, RequestPriority priority) {
  return Request(handle, group, done, priority, NewRequestLog());
}

int PoolTestEnv::Request(ClientSocketHandle* handle, const SchemeHostPort& group,
                         TestCompletion* done, RequestPriority priority,
                         const NetLogWithSource& log) {
  return pool->RequestSocket(group, priority, handle, done->callback(), log);
}

}  // namespace netstack::test

#include "tests/predictor/core_test_util.h"

#include <catch2/catch.hpp>

namespace netstack::test {

SchemeHostPort Origin(const std::string& host, const std::string& scheme) {
  return SchemeHostPort{scheme, host, Url::DefaultPort(scheme)};
}

Hint MakeHint(SpeculativeAction action, const std::string& host, int priority, double likelihood) {
  Hint hint;
  hint.action = action;
  hint.motivation = HintMotivation::kLearnedReferral;
  hint.origin = Origin(host);
  if (action == SpeculativeAction::kFetchAhead) hint.url = U("https://" + host + "/r");
  hint.priority = priority;
  hint.likelihood = likelihood;
  return hint;
}

int ScriptedTarget::Preresolve(const SchemeHostPort& origin, const NetLogWithSource& net_log,
                               CompletionCallback done) {
  calls.push_back({SpeculativeAction::kPreresolve, origin, Url(), 0,
                   preresolve_result == ERR_IO_PENDING ? std::move(done) : CompletionCallback()});
  return preresolve_result;
}

int ScriptedTarget::Preconnect(const SchemeHostPort& origin, int sockets,
                               const NetLogWithSource& net_log) {
  calls.push_back({SpeculativeAction::kPreconnect, origin, Url(), sockets, {}});
  if (on_preconnect) on_preconnect(origin, sockets);
  return preconnect_result;
}

int ScriptedTarget::FetchAhead(const Url& url, const NetLogWithSource& net_log,
                               CompletionCallback done) {
  calls.push_back(
      {SpeculativeAction::kFetchAhead, url.scheme_host_port(), url, 0, std::move(done)});
  return ERR_IO_PENDING;
}

int ScriptedTarget::SocketCount(const SchemeHostPort& origin) const {
  auto it = socket_counts.find(origin);
  return it == socket_counts.end() ? 0 : it->second;
}

bool ScriptedTarget::IsResolved(const SchemeHostPort& origin) const {
  return resolved_hosts.count(origin.host) > 0;
}

void ScriptedTarget::Complete(size_t i, int result) {
  REQUIRE(i < calls.size());
  REQUIRE(calls[i].done);
  CompletionCallback done = std::move(calls[i].done);
  calls[i].done = nullptr;
  done(result);
}

size_t ScriptedTarget::count(SpeculativeAction action) const {
  size_t n = 0;
  for (const Call& c : calls) n += c.action == action;
  return n;
}

}  // namespace netstack::test

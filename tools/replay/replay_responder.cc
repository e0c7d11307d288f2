#include "tools/replay/replay_responder.h"

#include <algorithm>

namespace netstack {
namespace {

constexpr char kNotInTrace[] = "not in the replayed trace\n";

}  // namespace

void ReplayResponder::AddPage(ReplayPageRun* run) { pages_.push_back(run); }

void ReplayResponder::RemovePage(ReplayPageRun* run) {
  auto it = std::find(pages_.begin(), pages_.end(), run);
  if (it != pages_.end()) pages_.erase(it);
  if (keep_finished_ == 0) return;
  std::shared_ptr<const PreparedPage> page = run->prepared_page();
  auto known = std::find(finished_.begin(), finished_.end(), page);
  if (known != finished_.end()) finished_.erase(known);
  finished_.push_back(std::move(page));
  while (finished_.size() > keep_finished_) finished_.pop_front();
}

void ReplayResponder::Expect(ReplayPageRun::EntryRun* entry) {
  const PreparedEntry& p = entry->run->prepared().entries[entry->index];
  expected_[p.match_hash].push_back(entry);
  entry->expected = true;
  ++expected_count_;
}

void ReplayResponder::Forget(ReplayPageRun::EntryRun* entry) {
  if (!entry->expected) return;
  entry->expected = false;
  const PreparedEntry& p = entry->run->prepared().entries[entry->index];
  auto it = expected_.find(p.match_hash);
  if (it == expected_.end()) return;
  auto& list = it->second;
  auto pos = std::find(list.begin(), list.end(), entry);
  if (pos != list.end()) {
    list.erase(pos);
    --expected_count_;
  }
  if (list.empty()) expected_.erase(it);
}

bool ReplayResponder::Matches(const PreparedEntry& e, const SimRequest& r) {
  return e.kind == PreparedEntry::Kind::kNetwork && e.request().method == r.method &&
         e.request().url.scheme() == r.scheme && e.host_header == r.host &&
         e.request().url.path_and_query() == r.target;
}

SimResponse ReplayResponder::Respond(const SimRequest& request) {
  uint64_t hash = MatchHash(request.method, request.scheme, request.host, request.target);
  auto it = expected_.find(hash);
  if (it != expected_.end()) {
    auto& list = it->second;
    // The most recent navigation first; within it, the earliest issued.
    int best = -1;
    for (size_t i = 0; i < list.size(); ++i) {
      ReplayPageRun::EntryRun* e = list[i];
      if (!Matches(e->run->prepared().entries[e->index], request)) continue;
      if (best < 0 || e->run->page_index() > list[best]->run->page_index())
        best = static_cast<int>(i);
    }
    if (best >= 0) {
      ReplayPageRun::EntryRun* entry = list[best];
      list.erase(list.begin() + best);
      --expected_count_;
      entry->expected = false;
      if (list.empty()) expected_.erase(it);
      entry->served = true;
      return Serve(entry, request);
    }
  }
  for (auto run = pages_.rbegin(); run != pages_.rend(); ++run) {
    const PreparedPage& page = (*run)->prepared();
    for (size_t i = 0; i < page.entries.size(); ++i) {
      if (page.entries[i].match_hash == hash && Matches(page.entries[i], request))
        return ResponseFor(page.entries[i]);
    }
  }
  for (auto page = finished_.rbegin(); page != finished_.rend(); ++page) {
    for (const PreparedEntry& entry : (*page)->entries) {
      if (entry.match_hash == hash && Matches(entry, request)) return ResponseFor(entry);
    }
  }
  ++unmatched_;
  SimResponse response;
  response.head = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: " +
                  std::to_string(sizeof(kNotInTrace) - 1) + "\r\n\r\n";
  response.body_bytes = sizeof(kNotInTrace) - 1;
  return response;
}

SimResponse ReplayResponder::ResponseFor(const PreparedEntry& p) {
  SimResponse response;
  response.head = p.head;
  response.body_bytes = p.body_bytes;
  response.server_time = p.server_time;
  return response;
}

SimResponse ReplayResponder::Serve(ReplayPageRun::EntryRun* entry, const SimRequest& request) {
  const PreparedEntry& p = entry->run->prepared().entries[entry->index];
  SimResponse response = ResponseFor(p);
  entry->arrived = request.arrived_at;
  entry->server_time =
      p.server_time ? *p.server_time : params_.ForHost(p.request().url.host()).server_time;
  return response;
}

}  // namespace netstack

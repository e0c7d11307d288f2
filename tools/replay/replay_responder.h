// ReplayResponder: the modelled servers of a replay. Answers each request that reaches a
// SimNetwork server with the recorded response of the matching entry of a page in flight:
// method, scheme, Host and target must match; the most recent navigation is served first, and
// within a page repeated URLs are served in the order they were issued. A request no page
// expects (a background revalidation after its page finished, a URL the trace does not have)
// is served from the newest page in flight that has the URL, else (with KeepFinishedPages: a
// predictor's fetch-ahead comes before its page) from the most recently finished pages that
// have it, else answered 404 and counted.
//
// Internal to the engine (tools/replay/replay_engine.cc).
#ifndef TOOLS_REPLAY_REPLAY_RESPONDER_H_
#define TOOLS_REPLAY_REPLAY_RESPONDER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "net/sim/network_params.h"
#include "net/sim/sim_network.h"
#include "tools/replay/replay_page_run.h"

namespace netstack {

class ReplayResponder : public SimResponder {
 public:
  // `params` must outlive the responder (the host's server time when an entry has none).
  explicit ReplayResponder(const NetworkParams& params) : params_(params) {}
  ~ReplayResponder() override = default;
  ReplayResponder(const ReplayResponder&) = delete;
  ReplayResponder& operator=(const ReplayResponder&) = delete;

  // Pages in flight, for the fallback search. A page is removed before it is destroyed.
  void AddPage(ReplayPageRun* run);
  void RemovePage(ReplayPageRun* run);
  // Keeps the last `count` distinct finished pages (their prepared form, shared) for the
  // fallback search: a speculative fetch of a page's URL before the page is navigated to is
  // answered as the page was. Off by default (0), so replays without a predictor answer as
  // they always did.
  void KeepFinishedPages(size_t count) { keep_finished_ = count; }
  // `entry` (of a network kind) has been issued: its request is expected. Forget undoes it
  // (the request completed without reaching a server, or was cancelled).
  void Expect(ReplayPageRun::EntryRun* entry);
  void Forget(ReplayPageRun::EntryRun* entry);

  // SimResponder:
  SimResponse Respond(const SimRequest& request) override;

  // Requests answered 404 because no entry matched.
  uint64_t unmatched() const { return unmatched_; }
  size_t expectations() const { return expected_count_; }

 private:
  static bool Matches(const PreparedEntry& entry, const SimRequest& request);
  static SimResponse ResponseFor(const PreparedEntry& entry);
  // Answers `entry`'s request and records when it arrived and the server time it gets.
  SimResponse Serve(ReplayPageRun::EntryRun* entry, const SimRequest& request);

  const NetworkParams& params_;
  // By PreparedEntry::match_hash: entries whose request has not reached a server yet, in the
  // order issued. Keys are erased when their list empties, so the map is bounded by requests
  // in flight.
  std::unordered_map<uint64_t, std::vector<ReplayPageRun::EntryRun*>> expected_;
  size_t expected_count_ = 0;
  std::vector<ReplayPageRun*> pages_;  // in navigation order
  uint64_t unmatched_ = 0;
  size_t keep_finished_ = 0;
  std::deque<std::shared_ptr<const PreparedPage>> finished_;  // newest last
};

}  // namespace netstack

#endif  // TOOLS_REPLAY_REPLAY_RESPONDER_H_

// A hint: a reason to believe the stack will soon need a host, a connection or a resource, and
// what to do about it. Policies (predictor_policy.h) turn events into hints; the Predictor
// queues them (speculative_queue.h) and turns the ones that survive into actions on the stack
// (speculation_target.h). Plain values.
#ifndef PREDICTOR_HINT_H_
#define PREDICTOR_HINT_H_

#include <cstdint>
#include <string>

#include "net/base/time.h"
#include "net/base/url.h"

namespace netstack {

// Why a hint exists (Chrome's UrlInfo::ResolutionMotivation, the ones this stack has).
enum class HintMotivation {
  kMouseOver,        // the pointer rests on a link
  kOmnibox,          // the user is typing in the address bar
  kStartupList,      // hosts used right after the previous starts
  kEarlyLoad,        // a navigation to a page nothing is known about: its own origin
  kStaticReferral,   // the page's markup asked (<link rel=dns-prefetch|preconnect|...>) or a
                     // session's "hint" event
  kLearnedReferral,  // the tables say pages like this one need that origin
  kSelfReferral,     // the tables say the page needs more connections to its own origin
};

// What a hint asks for, cheapest first.
enum class SpeculativeAction {
  kPreresolve,  // warm the host cache
  kPreconnect,  // leave `sockets` never-used idle sockets in the origin's pool group (TLS done)
  kFetchAhead,  // fetch `url` into the HTTP cache at the lowest priority (GET only)
};

constexpr int kNumSpeculativeActions = 3;

// "mouse-over", "omnibox", "startup-list", "early-load", "static-referral",
// "learned-referral", "self-referral".
const char* HintMotivationName(HintMotivation motivation);
// "preresolve", "preconnect", "fetch-ahead".
const char* SpeculativeActionName(SpeculativeAction action);

struct Hint {
  HintMotivation motivation = HintMotivation::kLearnedReferral;
  SpeculativeAction action = SpeculativeAction::kPreresolve;
  // The origin to resolve or connect to. For kFetchAhead, the URL's origin.
  SchemeHostPort origin;
  // kFetchAhead only: the URL to fetch.
  Url url;
  // kPreconnect: how many sockets the group should have (1..max_sockets_per_group).
  int sockets = 1;
  // The policy's estimate that the target will be needed before `expires` (0..1).
  double likelihood = 0;
  // Queue order: higher first; ties by higher likelihood, then first come first served.
  // Policies derive it from the motivation (user gestures first) and the likelihood.
  int priority = 0;
  // The page the hint is for (the referrer whose table produced it, the hovered link, the
  // omnibox URL); empty when none (startup). For accounting and the tables.
  std::string page;
  // When the hint was made; the Predictor sets it to now when left unset.
  TimeTicks created{};
  // Dropped unstarted at or after this time (counted as expired). TimeTicks{} (unset): never.
  TimeTicks expires{};
};

// What `hint` acts on, for NetLog "target" fields: the URL of a fetch ahead, else the origin.
std::string HintTarget(const Hint& hint);

}  // namespace netstack

#endif  // PREDICTOR_HINT_H_

#include "predictor/hint.h"

namespace netstack {

const char* HintMotivationName(HintMotivation motivation) {
  switch (motivation) {
    case HintMotivation::kMouseOver:
      return "mouse-over";
    case HintMotivation::kOmnibox:
      return "omnibox";
    case HintMotivation::kStartupList:
      return "startup-list";
    case HintMotivation::kEarlyLoad:
      return "early-load";
    case HintMotivation::kStaticReferral:
      return "static-referral";
    case HintMotivation::kLearnedReferral:
      return "learned-referral";
    case HintMotivation::kSelfReferral:
      return "self-referral";
  }
  return "unknown";
}

const char* SpeculativeActionName(SpeculativeAction action) {
  switch (action) {
    case SpeculativeAction::kPreresolve:
      return "preresolve";
    case SpeculativeAction::kPreconnect:
      return "preconnect";
    case SpeculativeAction::kFetchAhead:
      return "fetch-ahead";
  }
  return "unknown";
}

std::string HintTarget(const Hint& hint) {
  return hint.action == SpeculativeAction::kFetchAhead ? hint.url.spec() : hint.origin.ToString();
}

}  // namespace netstack

// Dependency inference for a page's entries: which earlier entry revealed each one (a redirect,
// a recorded initiator, or a guess from timing), and how long after it this one started.
// Used by the HAR reader; the rule is documented in docs/trace-format.md.
#ifndef TOOLS_REPLAY_TRACE_DEPENDENCY_INFERENCE_H_
#define TOOLS_REPLAY_TRACE_DEPENDENCY_INFERENCE_H_

#include <string>
#include <vector>

#include "tools/replay/trace/trace.h"

namespace netstack {

// What the recording says about one entry beyond its TraceEntry. URLs are normalized
// (Url::spec()) so that equal URLs compare equal; empty when unknown.
struct DependencyHints {
  std::string url;          // the entry's own URL
  std::string redirect_to;  // where its 3xx response pointed (redirectURL or Location)
  std::string initiator;    // the URL its recorded initiator names
};

// True for the resource types whose arrival makes a browser issue more requests (documents,
// scripts, stylesheets); inference prefers them as parents.
bool RevealsRequests(const std::string& resource_type);

// Sets parent, gap_ms, gap_from and initiator on every entry. `entries` are sorted by start_ms
// (entries[0], the navigation, gets no parent) and `hints[i]` describes entries[i]. In order of
// preference, an entry's parent is:
//   1. kRedirect: the latest earlier entry that redirected to its URL;
//   2. kRecorded: the latest earlier entry whose URL is its recorded initiator;
//   3. kInferred: among the earlier entries that ended at or before its start, the one ending
//      last, preferring those that reveal requests (RevealsRequests); when none ended yet,
//      entries[0].
// gap_ms counts from the parent's end when the parent had ended by this entry's start, else
// from the parent's first response byte (GapFrom::kParentFirstByte: the preload scanner or a
// streamed parse found it); 0 when this entry started even before that. Runs in O(n log n).
void InferDependencies(std::vector<TraceEntry>* entries, const std::vector<DependencyHints>& hints);

}  // namespace netstack

#endif  // TOOLS_REPLAY_TRACE_DEPENDENCY_INFERENCE_H_

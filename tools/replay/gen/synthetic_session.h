// The synthetic session generator behind `netstack gen-session --synthetic`: a seeded model of
// browsing written in the session format (docs/trace-format.md), so the project can replay and
// benchmark traces it made itself.
//
// The model:
//   - Sites: `sites` first-party sites ("www.siteN.test", half with a "static.siteN.test"
//     asset host) and shared third parties: a library CDN, a font service (CSS + font files),
//     analytics (a script and a 204 beacon) and an ad network. A shared resource has the same
//     URL on every site that uses it, so it is cached across sites.
//   - Pages: each site has `pages_per_site` pages (page 0 is the home page). A page is its
//     document, then the site's stylesheets and scripts (shared by its pages), third-party
//     scripts, page images, fonts discovered by stylesheets, background images discovered by a
//     stylesheet, XHRs started by a script, the analytics beacon and ad images. Each entry names
//     its parent ("after") and the parse or script time before it was discovered ("gap_ms").
//   - Sizes are log-normal around HTTP Archive medians (HTML ~30 KB, scripts ~25 KB, CSS
//     ~12 KB, images ~12 KB with a wide spread, fonts ~25 KB, XHR ~2 KB), drawn from a hash of
//     the seed and the URL: a URL has one size wherever it appears.
//   - Caching: versioned static assets "max-age=31536000"; page images a day; page scripts an
//     hour; documents "no-cache" or five minutes; API calls and the beacon "no-store".
//   - Protocols: each host (every site's hosts and the shared ones) speaks h2 with probability
//     `http2_share`, else http/1.1, drawn from a hash of the seed and the host name; written as
//     the session's "host" lines. The default, 0.75, follows HTTP Archive's Web Almanac 2024
//     (HTTP chapter): roughly 70-80 % of requests go over HTTP/2 or HTTP/3.
//   - Visits and the user: session_behavior.h (popularity by Zipf, days that start with a
//     "startup" and a routine of typed sites, hovers about 200 ms before clicks, some hovers
//     not followed, omnibox typing keystroke by keystroke). Each navigation is followed by a
//     "wait" and a think time (log-normal, median 10 s, 1 s to 30 min) before the next, so
//     revisits within a page's freshness hit the cache and later ones revalidate or refetch.
//     The user's site names are "siteN.test" (what is typed), pages "https://www.siteN.test/"
//     and ".../p/N".
//
// Output: a comment line with the options, a "host" line per host, a "startup" event, then for
// every navigation the events that lead to it (hovers, keystrokes; a "startup" first on a new day),
// a "page" definition (the first time that page is visited), the "navigate" event by page id and a
// "wait". With a request budget, the last navigation's page is cut to fit, inline. Streamed:
// memory is bounded by the pages defined (sites × pages_per_site), not the session's length.
// With behavior.user_events off, the session is the model before the predictor's events,
// byte for byte (but for the comment line).
#ifndef TOOLS_REPLAY_GEN_SYNTHETIC_SESSION_H_
#define TOOLS_REPLAY_GEN_SYNTHETIC_SESSION_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "tools/replay/gen/session_behavior.h"

namespace netstack {

struct SyntheticSessionOptions {
  static constexpr int kMaxSites = 100'000;
  static constexpr int kMaxPagesPerSite = 10'000;

  uint64_t seed = 1;
  // Stop after this many navigations (at most BehaviorOptions::kMaxPages), or when this many
  // requests (page entries, at most kMaxRequests) were written; 0 = no limit on that count. At
  // least one must be set.
  uint64_t pages = 0;
  uint64_t requests = 0;
  // 1..kMaxSites, and 1..kMaxPagesPerSite pages per site; sites × pages_per_site at most
  // 10,000 (the reader's limit on defined pages).
  int sites = 30;
  int pages_per_site = 12;
  // The think time between a page's load and the next navigation: above 0, at most 3600 s.
  double think_median_s = 10;
  double http2_share = 0.75;  // hosts that speak h2 (0..1), the rest http/1.1
  // The user model's knobs (seed, pages, requests and think time come from above).
  BehaviorOptions behavior;

  // The user model's options with the fields above filled in.
  BehaviorOptions Behavior() const;

  // The options as command-line flags, for the file's comment line.
  std::string Describe() const;
  // False with a one-line `error` naming the option when out of range.
  bool Validate(std::string* error) const;
};

// Writes the session to `out` (not closed). False with a one-line `error` when the options are
// invalid or a write fails ("write error: No space left on device").
bool WriteSyntheticSession(const SyntheticSessionOptions& options, std::FILE* out,
                           SessionStats* stats, std::string* error);

}  // namespace netstack

#endif  // TOOLS_REPLAY_GEN_SYNTHETIC_SESSION_H_

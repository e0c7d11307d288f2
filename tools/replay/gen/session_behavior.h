// The user model shared by `netstack gen-session`'s generators (synthetic_session.h,
// har_session.h): which page is visited when, and what the user does before each navigation
// (the events the predictor acts on: startup, hover, omnibox). Seeded and deterministic
// (synthetic_random.h: the same seed gives the same bytes everywhere).
//
// The model (docs/replay.md, "netstack gen-session", explains it too):
//   - Popularity: a site is picked by Zipf (exponent 1) over the catalog's site order, then its
//     home page (35 %) or one of its other pages (Zipf).
//   - Days: the session is split into days of `day_pages` navigations. Each day starts with a
//     "startup" event (a browser start) after a night of 8 to 16 hours, then the user's routine:
//     the home pages of the `routine_sites` most popular sites, in the same order every day,
//     each typed in the omnibox.
//   - How a navigation comes: to another page of the current site, a click; to another site,
//     typed in the omnibox (60 %) or a click (40 %). Routine navigations are typed.
//   - A click has a "hover" on its URL shortly before: log-normal around 200 ms (50 ms to 1 s).
//     Some hovers are not followed by a click: for each click, with probability
//     stray_hover / (1 - stray_hover), the user also hovered over another link (a random page of
//     a random site) earlier in the think time, so about `stray_hover` of hovers are wasted.
//   - Typing: a typed navigation goes to a site's home page. The user types the site's name
//     (its host without "www.") one character at a time, 150 to 250 ms apart (uniform); each
//     keystroke is an "omnibox" event whose `url` is the suggestion for the text so far: the
//     home page of the most visited site (so far in the session) whose name starts with it,
//     else of the most popular site in the catalog whose name does, else what was typed
//     ("https://TEXT/"). Early keystrokes may suggest another site (a miss). The user stops
//     typing when the suggestion is the target (after at least 2 characters) or the name is
//     complete, and presses enter 150 to 400 ms later: the "navigate".
//   - Think time between a page's load and the next navigation: log-normal around
//     `think_median_s` (1 s to 30 min), longer when the next navigation's hover or typing needs
//     more time. Each navigation is followed by a "wait" (the next events wait for the load).
#ifndef TOOLS_REPLAY_GEN_SESSION_BEHAVIOR_H_
#define TOOLS_REPLAY_GEN_SESSION_BEHAVIOR_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace netstack {

// What the user model browses: sites in popularity order (0 most popular), each with pages
// (page 0 its home page).
class PageCatalog {
 public:
  virtual ~PageCatalog() = default;
  virtual int sites() const = 0;
  // At least 1.
  virtual int pages(int site) const = 0;
  // The document URL of `page` of `site` (what a hover or a suggestion names).
  virtual std::string Url(int site, int page) const = 0;
  // What the user types for `site`: its host without "www.".
  virtual std::string Name(int site) const = 0;
  // Appends the lines that navigate to `page` of `site` at time `t_ms` (a "page" definition
  // the first time, then the "navigate" event). `budget` is how many requests may still be
  // written (0: no limit); returns how many the navigation makes (at most the budget).
  virtual uint64_t AppendNavigate(int site, int page, int64_t t_ms, uint64_t budget,
                                  std::string* out) = 0;
  // Pages defined so far (for the summary line).
  virtual uint64_t pages_defined() const = 0;
  // Appends the session's "host" lines (each host's protocol, docs/trace-format.md), written
  // after the comment line, before any event. None by default (every host http/1.1).
  virtual void AppendHosts(std::string* out) const {}
};

struct BehaviorOptions {
  // Bounds on the counts (Validate): a session of the largest is tens of gigabytes.
  static constexpr uint64_t kMaxPages = 10'000'000;
  static constexpr uint64_t kMaxRequests = 100'000'000;
  static constexpr int kMaxDayPages = 100'000;
  static constexpr int kMaxRoutineSites = 10;

  uint64_t seed = 1;
  // Stop after this many navigations (at most kMaxPages) or requests (at most kMaxRequests);
  // 0: no limit on that count; one must be set.
  uint64_t pages = 0;
  uint64_t requests = 0;
  double think_median_s = 10;
  // The user events (startup per day, routine, hovers, omnibox typing). Off: one "startup" at
  // 0 and navigations by popularity only (the model before the predictor).
  bool user_events = true;
  int day_pages = 25;        // navigations per day (1..kMaxDayPages)
  int routine_sites = 3;     // sites visited first every day (0..kMaxRoutineSites)
  double stray_hover = 0.3;  // share of hovers not followed by a click (0..0.9)

  // The behaviour flags for the file's comment line (" --day-pages 25 ...", or " --no-user-
  // events").
  std::string Describe() const;
  // False with a one-line `error` naming the option when out of range.
  bool Validate(std::string* error) const;
};

struct BehaviorStats {
  uint64_t navigations = 0, requests = 0, startups = 0, hovers = 0, omnibox = 0;
};

// Writes the events of a session over `catalog` into `out` (appended; the caller writes the
// header line and flushes at the end). `flush` is called after each navigation with the text so
// far (it may write and clear it); it returns false to stop (a write error): false then.
bool WriteBehaviorEvents(const BehaviorOptions& options, PageCatalog* catalog, std::string* out,
                         BehaviorStats* stats, const std::function<bool(std::string*)>& flush);

// What a generator wrote (gen-session's summary line).
struct SessionStats {
  uint64_t navigations = 0, requests = 0, pages_defined = 0, bytes_written = 0;
  BehaviorStats behavior;  // startups, hovers, keystrokes
};

// A whole session file, as both generators write it: the comment line "# netstack gen-session
// " + `description`, the catalog's host lines, then the events of WriteBehaviorEvents over
// `catalog`, written to `out` (not closed) in pieces of at most 64 KiB once that much is buffered,
// then flushed. Fills `stats` (pages_defined from the catalog). False with a one-line `error`
// ("write error: No space left on device") when a write or the flush fails; nothing more is written
// after it.
bool WriteSessionFile(const BehaviorOptions& options, const std::string& description,
                      PageCatalog* catalog, std::FILE* out, SessionStats* stats,
                      std::string* error);

}  // namespace netstack

#endif  // TOOLS_REPLAY_GEN_SESSION_BEHAVIOR_H_

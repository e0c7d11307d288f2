// `netstack gen-session --har FILE.har...`: a browsing session whose pages are the pages of HAR
// files (or DevTools logs: recording_reader.h), visited with the user model of session_behavior.h
// (Zipf popularity, days with a startup routine, hovers before clicks, omnibox typing). Each HAR
// file is a site (its pages the site's pages, the first its home page; what the user types is the
// first page's host without "www."); the sites' popularity order is a seeded shuffle of the files,
// so each seed makes another user. Pages are defined once by reference ({"type": "page", "id":
// "h2p0", "har": PATH, "page": ID}, PATH relative to the output's folder, as docs/trace-format.md
// allows) and navigated to by id: the session is small and the HARs are read once by the replay.
// The session starts with a "host" line per host the HARs recorded a protocol for (each host's
// majority over all the files' entries, host_protocol.h), since a replay takes its hosts'
// protocols from those lines, not from the HAR pages it navigates to.
#ifndef TOOLS_REPLAY_GEN_HAR_SESSION_H_
#define TOOLS_REPLAY_GEN_HAR_SESSION_H_

#include <cstdio>
#include <string>
#include <vector>

#include "tools/replay/gen/session_behavior.h"
#include "tools/replay/gen/synthetic_session.h"

namespace netstack {

struct HarSessionOptions {
  std::vector<std::string> hars;  // at least one; each read whole to list its pages
  // The folder the session is written to (HAR paths are written relative to it); "" is the
  // current folder.
  std::string output_dir;
  // The user model (pages: how many navigations; requests must be 0).
  BehaviorOptions behavior;

  // The options as flags, for the file's comment line.
  std::string Describe() const;
};

// Writes the session to `out` (not closed). False with a one-line `error` ("a.har: cannot
// open: ...", "a.har:3:17: JSON syntax error ...", "write error: ...").
bool WriteHarSession(const HarSessionOptions& options, std::FILE* out, SessionStats* stats,
                     std::string* error);

}  // namespace netstack

#endif  // TOOLS_REPLAY_GEN_HAR_SESSION_H_

// InternalsHost: what the internals page (internals_router.h) looks at and drives. The command
// that owns the stack implements it: `netstack internals` and `fetch --internals` (a live stack
// with a fetch box, tools/netstack/live_internals.h), `replay --internals` (the replay's
// current pass, pausable and steppable, tools/netstack/replay_internals.h).
//
// Every method runs on the loop thread, between the stack's callbacks, so the state it reads is
// consistent. Results are JSON for the page; failures are an HTTP status and a message, never an
// exception.
#ifndef TOOLS_INTERNALS_INTERNALS_HOST_H_
#define TOOLS_INTERNALS_INTERNALS_HOST_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "net/base/clock.h"
#include "net/base/net_log.h"
#include "net/base/time.h"

namespace netstack {

class Predictor;
class UrlRequestContext;

// A host action's answer: HTTP 200 with `body`, or an error status with {"error": message}.
struct InternalsResult {
  int status = 200;
  nlohmann::json body = nlohmann::json::object();
  static InternalsResult Ok(nlohmann::json body) { return {200, std::move(body)}; }
  static InternalsResult Fail(int status, const std::string& message) {
    return {status, nlohmann::json{{"error", message}}};
  }
};

class InternalsHost {
 public:
  virtual ~InternalsHost() = default;

  // The stack on show, or null while there is none (a replay before its first event or
  // between passes). Not owned; valid until the next call into the loop.
  virtual UrlRequestContext* context() = 0;
  // Its predictor, or null (policy off, or no stack).
  virtual Predictor* predictor() = 0;
  // The wall clock of the stack (the replay's follows virtual time), for cache entry ages.
  virtual const Clock& clock() = 0;
  // Wall-clock ms since the Unix epoch at TimeTicks zero of the stack's NetLog (for exports
  // and the page's dates).
  virtual int64_t time_tick_offset_ms() = 0;

  // /api/info's host part: {"mode": "internals"|"fetch"|"replay", "command_line",
  // "profile": DIR or null, "predictor_policy", "can_fetch": bool, "replay": state or null}.
  virtual nlohmann::json GetInfo() = 0;

  // The fetch box (live hosts; the defaults answer 404 "not available in this mode").
  // Starts a page load of `url` (document and subresources); {"id": N}. 400 for a bad URL,
  // 429 when too many loads are in flight.
  virtual InternalsResult Fetch(const std::string& url);
  // A keystroke in the box: `text` is the whole box. Gives the predictor an omnibox hint for
  // the suggestion; {"text", "suggestion": URL or null, "actions": [what the predictor
  // started, Predictor::GetInfoAsJson's "recent" entries that are new]}.
  virtual InternalsResult Omnibox(const std::string& text);
  // The pointer rests on a link to `url` in the fetch history: a mouse-over hint;
  // {"url", "actions": [...]} as Omnibox.
  virtual InternalsResult Hover(const std::string& url);
  // {"loads": [newest first: {"id", "url", "state": "loading"|"done", "page": the page's
  // summary (PageSummaryToJson) once done, "requests": [RequestRecordToJson...]}]}.
  virtual InternalsResult FetchHistory();
  // The DNS view's lookup box (like chrome://net-internals/#dns): resolves `host` through the
  // stack's resolver (and so its host cache) and calls `done` once, later, with {"host",
  // "result": "OK" or the error's name, "addresses": ["1.2.3.4", ...], "from_cache",
  // "detail"}. The default answers 404 (a replay's stack has no live DNS to ask). If the host
  // goes away first, `done` is dropped without being called.
  virtual void Resolve(const std::string& host, std::function<void(InternalsResult)> done);
  // Replay control: `action` is "pause", "run", "step" (one session event), "step_page" (until
  // the next page finishes). Answers the replay state (as GetInfo's "replay").
  virtual InternalsResult ReplayControl(const std::string& action);

  // The page changed the stack (`what`: "close idle sockets", "flush socket pools", "clear
  // host cache"): a replay records it, since its figures then differ from an untouched run.
  virtual void OnStackChanged(const std::string& what) {}

  // The page's Quit button: the command stops serving and exits as it would have without
  // --internals. Runs later (posted); the answer goes out first.
  virtual void Quit() = 0;
};

}  // namespace netstack

#endif  // TOOLS_INTERNALS_INTERNALS_HOST_H_

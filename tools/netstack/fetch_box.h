// FetchBox: the internals page's omnibox-like fetch box over a live stack. Each keystroke is
// an omnibox hint for the suggestion the box would complete to; Enter loads the URL as a page
// (document and subresources, tools/page/page_loader.h) whose requests the page draws as a
// waterfall; hovering a load in the history is a mouse-over hint. What the predictor started
// for a keystroke or a hover is returned with the answer, so the page shows it as it happens.
//
// Bounds: kMaxInFlight loads at once (more are refused with 429), kMaxHistory loads kept
// (the oldest finished ones are forgotten), input text and URLs of at most kMaxTextBytes.
#ifndef TOOLS_NETSTACK_FETCH_BOX_H_
#define TOOLS_NETSTACK_FETCH_BOX_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/dns/host_resolver.h"
#include "tools/internals/internals_host.h"
#include "tools/page/page_loader.h"

namespace netstack {

class FetchBox {
 public:
  static constexpr size_t kMaxInFlight = 4;
  static constexpr size_t kMaxHistory = 50;
  static constexpr size_t kMaxTextBytes = 8 * 1024;
  static constexpr size_t kMaxLookups = 8;

  // `context` and `predictor` (may be null: no hints) must outlive the box.
  FetchBox(UrlRequestContext* context, Predictor* predictor, PageLoadOptions options);
  // Cancels the loads still running.
  ~FetchBox();
  FetchBox(const FetchBox&) = delete;
  FetchBox& operator=(const FetchBox&) = delete;

  // InternalsHost::Fetch: 400 for text that is not an http(s) URL (a missing scheme means
  // http://), 429 with kMaxInFlight loads running; else {"id"} and the load runs.
  InternalsResult Fetch(const std::string& text);
  // InternalsHost::Omnibox: {"text", "suggestion", "actions"}.
  InternalsResult Omnibox(const std::string& text);
  // InternalsHost::Hover: {"url", "actions"}; 400 for a bad URL.
  InternalsResult Hover(const std::string& text);
  // InternalsHost::Resolve: `done` runs once, from a later task, never inside this call; at
  // most kMaxLookups at once (more are answered 429); lookups still running (or answers not
  // yet delivered) when the box goes are cancelled and never answer.
  void Resolve(const std::string& host, std::function<void(InternalsResult)> done);
  // InternalsHost::FetchHistory: {"loads": [...]}, newest first.
  nlohmann::json History() const;

  // The URL the box completes `text` to: the newest of `candidates` (URL specs, newest first)
  // that starts with `text`, compared case-insensitively and ignoring a leading "http://",
  // "https://" or "www." on either side; else `text` itself as a URL (http:// added when it
  // has no scheme); nullopt for empty text or text that is no URL.
  static std::optional<Url> Suggest(const std::string& text,
                                    const std::vector<std::string>& candidates);

 private:
  struct Load {
    uint64_t id = 0;
    std::string url;
    std::unique_ptr<PageLoader> loader;  // null once finished
    bool done = false;
    nlohmann::json page;      // PageSummaryToJson, once done
    nlohmann::json requests;  // [RequestRecordToJson...], once done
  };
  void OnLoadDone(uint64_t id, const PageLoadResult& result);
  // Calls `done` with `result` from a posted task, unless the box is gone by then.
  void AnswerLater(std::function<void(InternalsResult)> done, InternalsResult result);
  void Trim();
  size_t InFlight() const;
  // The suggestion candidates: this box's history, then the predictor's omnibox table.
  std::vector<std::string> Candidates() const;
  // The predictor's recent actions not in `before` (both RecentToJson arrays).
  nlohmann::json NewActions(const nlohmann::json& before) const;
  nlohmann::json RecentActions() const;

  UrlRequestContext* const context_;
  Predictor* const predictor_;
  const PageLoadOptions options_;
  std::deque<Load> loads_;  // newest first
  std::map<uint64_t, std::unique_ptr<HostResolver::Request>> lookups_;
  uint64_t next_id_ = 1;
  WeakPtrFactory<FetchBox> weak_factory_{this};  // last: invalidated first
};

}  // namespace netstack

#endif  // TOOLS_NETSTACK_FETCH_BOX_H_

#include "tools/netstack/fetch_box.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "net/base/net_error.h"
#include "net/base/string_util.h"
#include "net/http/request_record_json.h"
#include "net/http/url_request_context.h"
#include "predictor/predictor.h"
#include "tools/netstack/page_record.h"

namespace netstack {
namespace {

// "https://www.example.com/a" -> "example.com/a": what a user types to mean the same thing.
std::string StripForMatch(const std::string& text) {
  std::string s = ToLowerAscii(text);
  for (const char* prefix : {"http://", "https://"}) {
    if (s.rfind(prefix, 0) == 0) {
      s.erase(0, std::char_traits<char>::length(prefix));
      break;
    }
  }
  if (s.rfind("www.", 0) == 0) s.erase(0, 4);
  return s;
}

// Parses what the user typed as an http(s) URL; http:// when it has no scheme.
bool ParseTyped(const std::string& text, Url* url, std::string* error) {
  if (text.empty()) {
    *error = "empty URL";
    return false;
  }
  if (text.size() > FetchBox::kMaxTextBytes) {
    *error = "URL longer than " + std::to_string(FetchBox::kMaxTextBytes) + " bytes";
    return false;
  }
  std::string spec = text.find("://") == std::string::npos ? "http://" + text : text;
  return Url::Parse(spec, url, error) == OK;
}

// An action's identity, without its outcome (which changes as the action is used or wasted).
std::string ActionKey(const nlohmann::json& a) {
  nlohmann::json copy = a;
  copy.erase("outcome");
  copy.erase("sockets");
  copy.erase("error");
  return copy.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

FetchBox::FetchBox(UrlRequestContext* context, Predictor* predictor, PageLoadOptions options)
    : context_(context), predictor_(predictor), options_(std::move(options)) {}

FetchBox::~FetchBox() {
  weak_factory_.InvalidateWeakPtrs();  // before the body's clears: nothing re-enters this box
  lookups_.clear();                    // cancelled: their callbacks never run
  loads_.clear();  // destroying a loader cancels its requests; `done` never runs
}

size_t FetchBox::InFlight() const {
  return std::count_if(loads_.begin(), loads_.end(), [](const Load& l) { return !l.done; });
}

InternalsResult FetchBox::Fetch(const std::string& text) {
  Url url;
  std::string error;
  if (!ParseTyped(text, &url, &error)) return InternalsResult::Fail(400, "bad URL: " + error);
  if (InFlight() >= kMaxInFlight) {
    return InternalsResult::Fail(
        429, "too many loads in flight (" + std::to_string(kMaxInFlight) + "); try again later");
  }
  Load load;
  load.id = next_id_++;
  load.url = url.spec();
  load.loader = std::make_unique<PageLoader>(context_, predictor_, options_);
  PageLoader* loader = load.loader.get();
  uint64_t id = load.id;
  loads_.push_front(std::move(load));
  Trim();
  loader->Start(url, [weak = weak_factory_.GetWeakPtr(), id](const PageLoadResult& result) {
    if (weak) weak->OnLoadDone(id, result);
  });
  return InternalsResult::Ok({{"id", id}, {"url", url.spec()}});
}

void FetchBox::OnLoadDone(uint64_t id, const PageLoadResult& result) {
  auto it = std::find_if(loads_.begin(), loads_.end(), [id](const Load& l) { return l.id == id; });
  if (it == loads_.end()) return;
  nlohmann::json requests = nlohmann::json::array();
  for (const RequestRecord& r : PageRequestReports(result, predictor_))
    requests.push_back(RequestRecordToJson(r));
  it->requests = std::move(requests);
  it->page = PageSummaryToJson(result, nullptr);
  it->done = true;
  // We are inside the loader's callback: it is destroyed on the next task.
  std::shared_ptr<PageLoader> finished(std::move(it->loader));
  context_->scheduler().PostTask([finished]() mutable { finished.reset(); });
  Trim();
}

void FetchBox::Trim() {
  // Finished loads beyond the history's bound go, oldest first; loads in flight stay (at most
  // kMaxInFlight of them).
  while (loads_.size() > kMaxHistory) {
    auto oldest_done =
        std::find_if(loads_.rbegin(), loads_.rend(), [](const Load& l) { return l.done; });
    if (oldest_done == loads_.rend()) break;
    loads_.erase(std::next(oldest_done).base());
  }
}

nlohmann::json FetchBox::History() const {
  nlohmann::json loads = nlohmann::json::array();
  for (const Load& l : loads_) {
    loads.push_back({{"id", l.id},
                     {"url", l.url},
                     {"state", l.done ? "done" : "loading"},
                     {"page", l.done ? l.page : nlohmann::json(nullptr)},
                     {"requests", l.done ? l.requests : nlohmann::json::array()}});
  }
  return {{"loads", std::move(loads)}};
}

std::vector<std::string> FetchBox::Candidates() const {
  std::vector<std::string> out;
  for (const Load& l : loads_) out.push_back(l.url);
  if (predictor_ && predictor_->policy()) {
    nlohmann::json tables = predictor_->policy()->TablesToJson();
    if (tables.contains("omnibox") && tables["omnibox"].is_array()) {
      for (const nlohmann::json& row : tables["omnibox"]) {
        if (row.contains("url") && row["url"].is_string()) out.push_back(row["url"]);
      }
    }
  }
  return out;
}

std::optional<Url> FetchBox::Suggest(const std::string& text,
                                     const std::vector<std::string>& candidates) {
  if (text.empty() || text.size() > kMaxTextBytes) return std::nullopt;
  std::string typed = StripForMatch(text);
  for (const std::string& c : candidates) {
    if (StripForMatch(c).rfind(typed, 0) != 0) continue;
    Url url;
    std::string error;
    if (Url::Parse(c, &url, &error) == OK) return url;
  }
  Url url;
  std::string error;
  if (ParseTyped(text, &url, &error)) return url;
  return std::nullopt;
}

nlohmann::json FetchBox::RecentActions() const {
  if (!predictor_) return nlohmann::json::array();
  nlohmann::json info = predictor_->GetInfoAsJson();
  return info.contains("recent") ? info["recent"] : nlohmann::json::array();
}

nlohmann::json FetchBox::NewActions(const nlohmann::json& before) const {
  std::set<std::string> seen;
  for (const nlohmann::json& a : before) seen.insert(ActionKey(a));
  nlohmann::json out = nlohmann::json::array();
  for (const nlohmann::json& a : RecentActions()) {
    if (!seen.count(ActionKey(a))) out.push_back(a);
  }
  return out;
}

InternalsResult FetchBox::Omnibox(const std::string& text) {
  if (text.size() > kMaxTextBytes) {
    return InternalsResult::Fail(400,
                                 "text longer than " + std::to_string(kMaxTextBytes) + " bytes");
  }
  std::optional<Url> suggestion = Suggest(text, Candidates());
  nlohmann::json actions = nlohmann::json::array();
  if (suggestion && predictor_) {
    nlohmann::json before = RecentActions();
    predictor_->OnOmnibox(text, *suggestion);
    actions = NewActions(before);
  }
  return InternalsResult::Ok(
      {{"text", text},
       {"suggestion", suggestion ? nlohmann::json(suggestion->spec()) : nlohmann::json(nullptr)},
       {"actions", std::move(actions)}});
}

InternalsResult FetchBox::Hover(const std::string& text) {
  Url url;
  std::string error;
  if (!ParseTyped(text, &url, &error)) return InternalsResult::Fail(400, "bad URL: " + error);
  nlohmann::json actions = nlohmann::json::array();
  if (predictor_) {
    nlohmann::json before = RecentActions();
    predictor_->OnHover(url);
    actions = NewActions(before);
  }
  return InternalsResult::Ok({{"url", url.spec()}, {"actions", std::move(actions)}});
}

void FetchBox::AnswerLater(std::function<void(InternalsResult)> done, InternalsResult result) {
  context_->scheduler().PostTask(
      [weak = weak_factory_.GetWeakPtr(), done = std::move(done), result = std::move(result)] {
        if (weak) done(result);
      });
}

void FetchBox::Resolve(const std::string& host, std::function<void(InternalsResult)> done) {
  if (host.empty() || host.size() > kMaxTextBytes) {
    AnswerLater(std::move(done),
                InternalsResult::Fail(
                    400, "host: empty or longer than " + std::to_string(kMaxTextBytes) + " bytes"));
    return;
  }
  if (lookups_.size() >= kMaxLookups) {
    AnswerLater(std::move(done),
                InternalsResult::Fail(429, "too many lookups in flight (" +
                                               std::to_string(kMaxLookups) + "); try again later"));
    return;
  }
  uint64_t id = next_id_++;
  std::unique_ptr<HostResolver::Request> request = context_->host_resolver()->CreateRequest(
      host, 0, HIGHEST, NetLogWithSource::Make(context_->net_log(), NetLogSourceType::NONE));
  HostResolver::Request* raw = request.get();
  lookups_[id] = std::move(request);
  // The answer, from the request (still owned by lookups_) and its result.
  auto answer = [host](HostResolver::Request* r, int result) {
    nlohmann::json addresses = nlohmann::json::array();
    if (result == OK) {
      for (const IPEndPoint& a : r->addresses()) addresses.push_back(a.address().ToString());
    }
    return InternalsResult::Ok({{"host", host},
                                {"result", result == OK ? "OK" : ErrorToString(result)},
                                {"addresses", std::move(addresses)},
                                {"from_cache", result == OK && r->from_cache()},
                                {"detail", r->error_detail()}});
  };
  int rv = raw->Start([weak = weak_factory_.GetWeakPtr(), id, raw, answer, done](int result) {
    FetchBox* self = weak.get();
    if (!self) return;
    InternalsResult r = answer(raw, result);
    // We are inside the request's callback: it is destroyed on the next task.
    auto it = self->lookups_.find(id);
    if (it != self->lookups_.end()) {
      std::shared_ptr<HostResolver::Request> finished(std::move(it->second));
      self->lookups_.erase(it);
      self->context_->scheduler().PostTask([finished]() mutable { finished.reset(); });
    }
    done(std::move(r));
  });
  if (rv == ERR_IO_PENDING) return;
  // Answered at once (the host cache, an IP literal, a refused name): still answered later, as
  // InternalsHost::Resolve promises.
  InternalsResult r = answer(raw, rv);
  lookups_.erase(id);
  AnswerLater(std::move(done), std::move(r));
}

}  // namespace netstack

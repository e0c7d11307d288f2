#include "tools/internals/cache_view.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <utility>
#include <vector>

#include "cache/backend.h"
#include "net/base/net_error.h"
#include "net/base/string_util.h"
#include "net/http/http_cache.h"
#include "net/http/http_response_info.h"

namespace netstack {
namespace {

int64_t UnixMs(Time t) { return ToUnixMicros(t) / 1000; }

nlohmann::json EntryInfoJson(const CacheEntryInfo& info) {
  return {{"key", info.key},
          {"headers_size", info.headers_size},
          {"body_size", info.body_size},
          {"created", UnixMs(info.created)},
          {"last_used", UnixMs(info.last_used)},
          {"use_count", info.use_count}};
}

bool ParseSize(const std::map<std::string, std::string>& query, const char* name, size_t* out,
               std::string* error) {
  auto it = query.find(name);
  if (it == query.end()) return true;
  const std::string& text = it->second;
  size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    *error = std::string(name) + ": not a non-negative decimal number";
    return false;
  }
  *out = value;
  return true;
}

// The stored response (stream 0) for the page: headers as [name, value] pairs.
nlohmann::json ResponseJson(const HttpResponseInfo& info) {
  nlohmann::json headers = nlohmann::json::array();
  for (const HttpResponseHeaders::Header& h : info.headers->headers())
    headers.push_back({h.name, h.value});
  nlohmann::json vary = nlohmann::json::object();
  for (const HttpResponseInfo::VaryValue& v : info.vary)
    vary[v.name] = v.value ? nlohmann::json(*v.value) : nlohmann::json(nullptr);
  return {{"status_line", info.headers->GetStatusLine()},
          {"status", info.headers->response_code()},
          {"headers", std::move(headers)},
          {"url", info.url},
          {"request_time", UnixMs(info.request_time)},
          {"response_time", UnixMs(info.response_time)},
          {"vary", std::move(vary)}};
}

// One /api/cache/entry read. Owned by whoever runs it: the caller while it runs
// synchronously, then the timeout task (on the loop's scheduler) while the backend works. The
// backend's callbacks hold weak references only (CrossThreadPoster may destroy dropped tasks on
// the cache thread). Members are ordered so the entry goes before the buffer it may be reading
// into (destroying the entry cancels its read).
//
// The timeout is a task id kept by hand, not a OneShotTimer, by design: the task owns the read
// (it holds the last reference while the backend works), so when the scheduler goes away it
// destroys the read with the task, and a timer member would then cancel itself against a
// scheduler being destroyed. Finish() cancels the task; nothing else does.
class EntryRead : public std::enable_shared_from_this<EntryRead> {
 public:
  using Done = std::function<void(InternalsResult)>;

  EntryRead(Scheduler& scheduler, std::string key, size_t max_bytes, Done done)
      : scheduler_(scheduler),
        key_(std::move(key)),
        max_bytes_(max_bytes),
        done_(std::move(done)) {}
  // Dropped before finishing (the scheduler went away with the timeout task): still answer.
  ~EntryRead() {
    entry_.reset();
    if (done_) {
      Done done = std::move(done_);
      done_ = nullptr;
      done(InternalsResult::Fail(503, "cache entry read abandoned: the stack went away"));
    }
  }

  void Start(CacheBackend* backend) {
    CacheEntryInfo info;
    if (backend->GetEntryInfo(key_, &info)) info_ = EntryInfoJson(info);
    std::weak_ptr<EntryRead> weak = weak_from_this();
    int rv =
        backend->PeekEntry(key_, &entry_, [weak](int result, std::unique_ptr<CacheEntry> entry) {
          if (auto self = weak.lock()) self->OnOpened(result, std::move(entry));
        });
    if (rv == ERR_IO_PENDING) {
      ArmTimeout();
      return;
    }
    OnOpened(rv, std::move(entry_));
  }

 private:
  void OnOpened(int result, std::unique_ptr<CacheEntry> entry) {
    if (!done_) return;
    if (result != OK || !entry) {
      Finish(result == ERR_CACHE_MISS || result == OK
                 ? InternalsResult::Fail(404, "no cache entry for this key")
                 : InternalsResult::Fail(500, "cannot open the entry: " + ErrorToString(result)));
      return;
    }
    entry_ = std::move(entry);
    want_ = static_cast<size_t>(
        std::clamp<int64_t>(entry_->body_size(), 0, static_cast<int64_t>(max_bytes_)));
    buffer_.assign(want_, '\0');
    ReadMore();
  }

  void ReadMore() {
    std::weak_ptr<EntryRead> weak = weak_from_this();
    while (filled_ < want_) {
      int rv = entry_->ReadBody(static_cast<int64_t>(filled_), buffer_.data() + filled_,
                                static_cast<int>(want_ - filled_), [weak](int result) {
                                  if (auto self = weak.lock()) self->OnRead(result);
                                });
      if (rv == ERR_IO_PENDING) {
        ArmTimeout();
        return;
      }
      if (!Consume(rv)) return;
    }
    Complete();
  }

  void OnRead(int result) {
    if (!done_) return;
    if (Consume(result)) ReadMore();
  }

  // Takes one read's result; false once finished (an error answered).
  bool Consume(int result) {
    if (result < 0) {
      Finish(InternalsResult::Fail(500, "cache read failed: " + ErrorToString(result)));
      return false;
    }
    if (result == 0) want_ = filled_;  // the body ended early: show what there is
    filled_ += static_cast<size_t>(result);
    return true;
  }

  void Complete() {
    nlohmann::json response = nullptr;
    nlohmann::json response_error = nullptr;
    HttpResponseInfo parsed;
    std::string error;
    if (HttpResponseInfo::Parse(entry_->headers(), &parsed, &error))
      response = ResponseJson(parsed);
    else
      response_error = error;
    nlohmann::json body = BodyJson(std::string_view(buffer_.data(), filled_), entry_->body_size());
    Finish(InternalsResult::Ok({{"key", key_},
                                {"info", info_},
                                {"response", std::move(response)},
                                {"response_error", std::move(response_error)},
                                {"body", std::move(body)}}));
  }

  void ArmTimeout() {
    if (timeout_ != kNoTask) return;
    timeout_ = scheduler_.PostDelayedTask(
        Milliseconds(kCacheEntryReadTimeoutMs), [self = shared_from_this()] {
          self->timeout_ = kNoTask;
          if (self->done_) self->Finish(InternalsResult::Fail(504, "cache entry read timed out"));
        });
  }

  // Answers once, releases the entry (cancelling a read in flight) and the buffer, and drops
  // the timeout task, which may hold the last reference to this object.
  void Finish(InternalsResult result) {
    std::shared_ptr<EntryRead> keep_alive = shared_from_this();
    Done done = std::move(done_);
    done_ = nullptr;
    entry_.reset();
    std::string().swap(buffer_);
    if (timeout_ != kNoTask) {
      scheduler_.CancelTask(timeout_);
      timeout_ = kNoTask;
    }
    done(std::move(result));
  }

  Scheduler& scheduler_;
  const std::string key_;
  const size_t max_bytes_;
  Done done_;
  nlohmann::json info_ = nullptr;
  std::string buffer_;
  size_t want_ = 0;
  size_t filled_ = 0;
  std::unique_ptr<CacheEntry> entry_;  // after buffer_: destroyed first
  TaskId timeout_ = kNoTask;
};

}  // namespace

bool ParseCacheListQuery(const std::map<std::string, std::string>& query, CacheListQuery* out,
                         std::string* error) {
  CacheListQuery parsed;
  auto q = query.find("q");
  if (q != query.end()) parsed.q = q->second;
  if (!ParseSize(query, "offset", &parsed.offset, error)) return false;
  if (!ParseSize(query, "limit", &parsed.limit, error)) return false;
  parsed.limit = std::clamp<size_t>(parsed.limit, 1, CacheListQuery::kMaxLimit);
  *out = std::move(parsed);
  return true;
}

nlohmann::json CacheListJson(const HttpCache* cache, const CacheListQuery& query) {
  nlohmann::json entries = nlohmann::json::array();
  if (!cache) {
    return {{"stats", nullptr},       {"total", 0},           {"matched", 0},
            {"offset", query.offset}, {"limit", query.limit}, {"entries", std::move(entries)}};
  }
  const CacheBackend* backend = cache->backend();
  const std::vector<CacheEntryInfo> all = backend->EnumerateEntries();
  const std::string needle = ToLowerAscii(query.q);
  size_t matched = 0;
  for (const CacheEntryInfo& info : all) {
    if (!needle.empty() && ToLowerAscii(info.key).find(needle) == std::string::npos) continue;
    if (matched >= query.offset && entries.size() < query.limit)
      entries.push_back(EntryInfoJson(info));
    ++matched;
  }
  return {{"stats", backend->GetStats().ToJson()},
          {"total", all.size()},
          {"matched", matched},
          {"offset", query.offset},
          {"limit", query.limit},
          {"entries", std::move(entries)}};
}

void ReadCacheEntry(HttpCache* cache, Scheduler& scheduler, const std::string& key,
                    size_t max_bytes, std::function<void(InternalsResult)> done) {
  if (!cache) {
    done(InternalsResult::Fail(404, "no HTTP cache in this stack"));
    return;
  }
  auto read = std::make_shared<EntryRead>(
      scheduler, key, std::min(max_bytes, kCacheEntryMaxBytesCap), std::move(done));
  read->Start(cache->backend());
}

bool IsDisplayableText(std::string_view data, bool complete, size_t* text_length) {
  size_t i = 0;
  const size_t n = data.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(data[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) return false;
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;  // a continuation byte first, an overlong lead, or beyond U+10FFFF
    }
    size_t j = 1;
    for (; j < len && i + j < n; ++j) {
      const unsigned char cc = static_cast<unsigned char>(data[i + j]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
      // Reject overlongs, surrogates and > U+10FFFF as soon as the second byte tells.
      if (j == 1) {
        if (len == 3 && ((c == 0xe0 && cc < 0xa0) || (c == 0xed && cc >= 0xa0))) return false;
        if (len == 4 && ((c == 0xf0 && cc < 0x90) || (c == 0xf4 && cc >= 0x90))) return false;
      }
    }
    if (j < len) {  // cut at the end
      if (complete) return false;
      if (text_length) *text_length = i;
      return true;
    }
    if (cp >= 0x80 && cp <= 0x9f) return false;  // C1 controls
    i += len;
  }
  if (text_length) *text_length = n;
  return true;
}

std::string HexLines(std::string_view data) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(data.size() * 3);
  for (size_t i = 0; i < data.size(); ++i) {
    if (i > 0) out.push_back(i % 16 == 0 ? '\n' : ' ');
    const unsigned char c = static_cast<unsigned char>(data[i]);
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0x0f]);
  }
  return out;
}

nlohmann::json BodyJson(std::string_view shown, int64_t body_size) {
  const bool complete = static_cast<int64_t>(shown.size()) >= body_size;
  size_t text_length = 0;
  const bool text = IsDisplayableText(shown, complete, &text_length);
  if (text) shown = shown.substr(0, text_length);
  return {{"size", body_size},
          {"shown", shown.size()},
          {"encoding", text ? "text" : "hex"},
          {"data", text ? std::string(shown) : HexLines(shown)},
          {"truncated", static_cast<int64_t>(shown.size()) < body_size}};
}

}  // namespace netstack

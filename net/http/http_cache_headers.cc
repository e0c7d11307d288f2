#include "net/http/http_cache_headers.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "net/base/string_util.h"
#include "net/http/http_cache_control.h"
#include "net/http/http_util.h"

namespace netstack {
namespace {

// The field names `headers`' Connection lines list, lower case (RFC 9110 7.6.1). A set, so that
// filtering is linear in the headers however many names there are.
std::unordered_set<std::string> ConnectionNamed(const HttpResponseHeaders& headers) {
  std::unordered_set<std::string> names;
  size_t iter = 0;
  std::string token;
  while (headers.EnumerateHeader(&iter, "connection", &token)) names.insert(ToLowerAscii(token));
  return names;
}

// `headers` without hop-by-hop fields (and those its Connection names), status line kept.
std::shared_ptr<HttpResponseHeaders> WithoutHopByHop(const HttpResponseHeaders& headers) {
  const std::unordered_set<std::string> named = ConnectionNamed(headers);
  auto out = std::make_shared<HttpResponseHeaders>(headers.version(), headers.response_code(),
                                                   headers.reason());
  for (const HttpResponseHeaders::Header& h : headers.headers()) {
    if (IsHopByHopHeader(h.name) || (!named.empty() && named.count(ToLowerAscii(h.name)) > 0))
      continue;
    out->AddHeader(h.name, h.value);
  }
  return out;
}

// The codings Content-Encoding names, in order, lower case, "x-gzip" as "gzip", without
// "identity" (which changes nothing).
std::vector<std::string> Codings(const HttpResponseHeaders& headers) {
  std::vector<std::string> codings;
  size_t iter = 0;
  std::string item;
  while (headers.EnumerateHeader(&iter, "content-encoding", &item)) {
    std::string coding = ToLowerAscii(item);
    if (coding == "x-gzip") coding = "gzip";
    if (coding.empty() || coding == "identity") continue;
    codings.push_back(std::move(coding));
  }
  return codings;
}

// The first line of `name`, unsplit (an ETag may contain commas), trimmed.
bool FirstValue(const HttpResponseHeaders& headers, std::string_view name, std::string* value) {
  for (const HttpResponseHeaders::Header& h : headers.headers()) {
    if (EqualsCaseInsensitiveAscii(h.name, name)) {
      *value = std::string(TrimHttpWhitespace(h.value));
      return true;
    }
  }
  return false;
}

}  // namespace

bool IsHopByHopHeader(std::string_view name) {
  static constexpr std::string_view kNames[] = {"connection",
                                                "keep-alive",
                                                "te",
                                                "transfer-encoding",
                                                "upgrade",
                                                "proxy-connection",
                                                "proxy-authenticate",
                                                "proxy-authorization"};
  return std::any_of(std::begin(kNames), std::end(kNames),
                     [name](std::string_view n) { return EqualsCaseInsensitiveAscii(n, name); });
}

bool IsNonUpdatedHeader(std::string_view name) {
  if (IsHopByHopHeader(name)) return true;
  static constexpr std::string_view kFraming[] = {"trailer", "content-length", "content-range"};
  return std::any_of(std::begin(kFraming), std::end(kFraming),
                     [name](std::string_view n) { return EqualsCaseInsensitiveAscii(n, name); });
}

std::shared_ptr<HttpResponseHeaders> MergeNotModified(const HttpResponseHeaders& stored,
                                                      const HttpResponseHeaders& update) {
  const std::unordered_set<std::string> connection_named = ConnectionNamed(update);
  // Content-Encoding follows the stored bytes: only a respelling of the same codings is taken.
  const bool same_codings = Codings(stored) == Codings(update);
  auto excluded = [&](const std::string& lower) {
    if (lower == "content-encoding") return !same_codings;
    return IsNonUpdatedHeader(lower) || connection_named.count(lower) > 0;
  };
  // Every stored header the update replaces is dropped, then the update's are appended in its
  // order, so a repeated header (two Cache-Control lines) is replaced as a whole.
  std::unordered_set<std::string> replaced;
  std::vector<const HttpResponseHeaders::Header*> added;
  for (const HttpResponseHeaders::Header& h : update.headers()) {
    std::string lower = ToLowerAscii(h.name);
    if (excluded(lower)) continue;
    replaced.insert(std::move(lower));
    added.push_back(&h);
  }
  auto merged = std::make_shared<HttpResponseHeaders>(stored.version(), stored.response_code(),
                                                      stored.reason());
  for (const HttpResponseHeaders::Header& h : stored.headers()) {
    if (replaced.count(ToLowerAscii(h.name)) == 0) merged->AddHeader(h.name, h.value);
  }
  for (const HttpResponseHeaders::Header* h : added) merged->AddHeader(h->name, h->value);
  return merged;
}

std::shared_ptr<HttpResponseHeaders> HeadersForStorage(const HttpResponseHeaders& headers) {
  std::shared_ptr<HttpResponseHeaders> stored = WithoutHopByHop(headers);
  stored->RemoveHeader("set-cookie");
  stored->RemoveHeader("set-cookie2");
  return stored;
}

std::shared_ptr<HttpResponseHeaders> HeadersForServing(const HttpResponseHeaders& stored,
                                                       TimeDelta current_age) {
  std::shared_ptr<HttpResponseHeaders> served = WithoutHopByHop(stored);
  served->RemoveHeader("age");
  const int64_t seconds = std::clamp<int64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(current_age).count(), 0, kMaxDeltaSeconds);
  served->AddHeader("Age", std::to_string(seconds));
  return served;
}

HeadUpdateDecision DecideHeadUpdate(const HttpResponseHeaders& stored,
                                    const HttpResponseHeaders& head) {
  HeadUpdateDecision d;
  bool any_validator = false;
  for (const char* name : {"ETag", "Last-Modified"}) {
    std::string head_value, stored_value;
    if (!FirstValue(head, name, &head_value)) continue;
    any_validator = true;
    if (!FirstValue(stored, name, &stored_value) || stored_value != head_value) {
      d.reason = std::string(name) + " differs";
      return d;
    }
  }
  if (!any_validator) {
    d.reason = "no validator to match";
    return d;
  }
  if (head.HasHeader("content-length") && head.GetContentLength() != stored.GetContentLength()) {
    d.reason = "Content-Length differs";
    return d;
  }
  d.update = true;
  d.reason = "validators match";
  return d;
}

}  // namespace netstack

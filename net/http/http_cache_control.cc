#include "net/http/http_cache_control.h"

#include <algorithm>
#include <string>

#include "net/http/http_util.h"

namespace netstack {
namespace {

// Applies one directive ("max-age=60", "no-cache", `max-age="60"`) to *cc.
void ApplyDirective(std::string_view item, CacheControl* cc) {
  std::string_view name = item, value;
  bool has_value = false;
  size_t eq = item.find('=');
  if (eq != std::string_view::npos) {
    name = TrimHttpWhitespace(item.substr(0, eq));
    value = TrimHttpWhitespace(item.substr(eq + 1));
    has_value = true;
    // The quoted-string form, which recipients should accept (RFC 9111 5.2).
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
  }
  auto is = [name](std::string_view d) { return EqualsCaseInsensitiveAscii(name, d); };
  // Sets an optional delta once: the first occurrence wins.
  auto delta = [&](std::optional<TimeDelta>* field, std::optional<TimeDelta> if_invalid) {
    if (field->has_value()) return;
    TimeDelta d;
    if (ParseDeltaSeconds(value, &d)) {
      *field = d;
    } else if (if_invalid) {
      *field = if_invalid;
    }
  };
  if (is("no-store")) {
    cc->no_store = true;
  } else if (is("no-cache")) {
    cc->no_cache = true;
  } else if (is("must-revalidate")) {
    cc->must_revalidate = true;
  } else if (is("immutable")) {
    cc->immutable = true;
  } else if (is("private")) {
    cc->is_private = true;
  } else if (is("public")) {
    cc->is_public = true;
  } else if (is("only-if-cached")) {
    cc->only_if_cached = true;
  } else if (is("max-age")) {
    // An unusable or repeated max-age makes the response stale rather than fresh by accident.
    if (cc->max_age) {
      cc->max_age = TimeDelta::zero();
    } else {
      delta(&cc->max_age, TimeDelta::zero());
    }
  } else if (is("stale-while-revalidate")) {
    delta(&cc->stale_while_revalidate, std::nullopt);
  } else if (is("stale-if-error")) {
    delta(&cc->stale_if_error, std::nullopt);
  } else if (is("min-fresh")) {
    delta(&cc->min_fresh, std::nullopt);
  } else if (is("max-stale")) {
    if (!has_value) {
      if (!cc->max_stale) cc->max_stale = TimeDelta::max();
    } else {
      delta(&cc->max_stale, std::nullopt);
    }
  }
}

// The same over one request header value.
template <typename F>
bool ForEachListItem(std::string_view value, size_t max_items, F f) {
  HttpListIterator it(value);
  std::string_view item;
  for (size_t n = 0; it.GetNext(&item); ++n) {
    if (n == max_items) return false;
    f(item);
  }
  return true;
}

void MarkTooManyDirectives(CacheControl* cc) {
  cc->too_many_directives = true;
  cc->no_store = true;
  cc->no_cache = true;
}

}  // namespace

bool ParseDeltaSeconds(std::string_view s, TimeDelta* out) {
  if (s.empty()) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (v < kMaxDeltaSeconds) v = v * 10 + (c - '0');
  }
  *out = Seconds(std::min(v, kMaxDeltaSeconds));
  return true;
}

CacheControl ParseResponseCacheControl(const HttpResponseHeaders& headers) {
  CacheControl cc;
  bool any = false;
  auto apply = [&cc, &any](std::string_view item) {
    any = true;
    ApplyDirective(item, &cc);
  };
  if (!ForEachListItem(headers, "cache-control", kMaxCacheControlDirectives, apply)) {
    MarkTooManyDirectives(&cc);
    return cc;
  }
  if (any) return cc;
  auto pragma = [&cc](std::string_view item) {
    if (EqualsCaseInsensitiveAscii(item, "no-cache")) cc.no_cache = true;
  };
  if (!ForEachListItem(headers, "pragma", kMaxPragmaItems, pragma)) cc.no_cache = true;
  return cc;
}

CacheControl ParseRequestCacheControl(const HttpRequestHeaders& headers) {
  CacheControl cc;
  std::optional<std::string> value = headers.GetHeader("cache-control");
  if (value) {
    if (!ForEachListItem(*value, kMaxCacheControlDirectives,
                         [&cc](std::string_view item) { ApplyDirective(item, &cc); })) {
      MarkTooManyDirectives(&cc);
    }
    return cc;
  }
  std::optional<std::string> pragma = headers.GetHeader("pragma");
  if (pragma) {
    auto no_cache = [&cc](std::string_view item) {
      if (EqualsCaseInsensitiveAscii(item, "no-cache")) cc.no_cache = true;
    };
    if (!ForEachListItem(*pragma, kMaxPragmaItems, no_cache)) cc.no_cache = true;
  }
  return cc;
}

}  // namespace netstack

#include "net/http/http_cache_vary.h"

#include <algorithm>
#include <array>
#include <limits>
#include <nlohmann/json.hpp>

#include "net/http/http_util.h"

namespace netstack {
namespace {

constexpr char kIndexFormat[] = "netstack-http-vary-index";
constexpr int kIndexVersion = 1;
// What Serialize's output starts with (nlohmann sorts keys: "format" is first).
constexpr std::string_view kIndexPrefix = "{\"format\":\"netstack-http-vary-index\"";

struct NamedRule {
  std::string_view name;  // lowercase
  VaryFieldRule rule;
};

// Request fields whose syntax allows more than an exact comparison (RFC 9110 12.5). All are
// lists of case-insensitive tokens with parameters; the order of their items carries no
// meaning because preference is expressed by each item's q weight, which stays in the item.
// Everything else (Cookie, Authorization, User-Agent, Origin...) is compared as sent.
constexpr std::array<NamedRule, 5> kRules{{
    {"accept", {true, true}},
    {"accept-charset", {true, true}},
    {"accept-encoding", {true, true}},
    {"accept-language", {true, true}},
    {"te", {true, true}},
}};

bool IsOws(char c) { return c == ' ' || c == '\t'; }

// One list item (already trimmed, commas handled by the caller) normalized: whitespace around
// ';' dropped and letters lowercased if `lower`, both outside quoted strings only.
std::string NormalizeItem(std::string_view item, bool lower) {
  std::string out;
  out.reserve(item.size());
  bool quoted = false;
  for (size_t i = 0; i < item.size(); ++i) {
    char c = item[i];
    if (quoted) {
      out.push_back(c);
      if (c == '\\' && i + 1 < item.size()) {
        out.push_back(item[++i]);
      } else if (c == '"') {
        quoted = false;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      out.push_back(c);
      continue;
    }
    if (IsOws(c)) {
      // Kept only when neither side of the run is a ';'.
      size_t end = i;
      while (end < item.size() && IsOws(item[end])) ++end;
      const bool before_semicolon = end < item.size() && item[end] == ';';
      const bool after_semicolon = !out.empty() && out.back() == ';';
      if (!before_semicolon && !after_semicolon) out.append(item.substr(i, end - i));
      i = end - 1;
      continue;
    }
    out.push_back(lower ? ToLowerAscii(c) : c);
  }
  return out;
}

bool SameSelection(const std::vector<HttpResponseInfo::VaryValue>& a,
                   const std::vector<HttpResponseInfo::VaryValue>& b) {
  return a == b;  // both normalized and sorted by name
}

}  // namespace

VaryFieldRule GetVaryFieldRule(std::string_view name) {
  for (const NamedRule& r : kRules) {
    if (EqualsCaseInsensitiveAscii(name, r.name)) return r.rule;
  }
  return VaryFieldRule{};
}

std::string NormalizeVaryValue(std::string_view name, std::string_view value) {
  const VaryFieldRule rule = GetVaryFieldRule(name);
  value = TrimHttpWhitespace(value);
  if (!rule.list) {
    std::string out(value);
    if (rule.case_insensitive) out = ToLowerAscii(out);
    return out;
  }
  // Items are bounded by the value's size, which the request headers bound (64 KiB).
  std::vector<std::string> items;
  HttpListIterator it(value);
  std::string_view item;
  while (it.GetNext(&item)) items.push_back(NormalizeItem(item, rule.case_insensitive));
  std::sort(items.begin(), items.end());
  std::string out;
  for (const std::string& i : items) {
    if (!out.empty()) out.push_back(',');
    out += i;
  }
  return out;
}

bool VaryValuesMatch(std::string_view name, const std::optional<std::string>& a,
                     const std::optional<std::string>& b) {
  if (!a || !b) return !a && !b;
  if (*a == *b) return true;  // the common case: the same client sends the same bytes
  return NormalizeVaryValue(name, *a) == NormalizeVaryValue(name, *b);
}

std::string VariantKey(const std::string& url, int slot) {
  return url + " vary-variant=" + std::to_string(slot);
}

void DoomVariantKeys(CacheBackend* backend, const std::string& url) {
  for (int slot = 0; slot < kMaxVariantsPerUrl; ++slot) backend->DoomEntry(VariantKey(url, slot));
}

bool VaryIndex::IsIndex(std::string_view blob) { return blob.starts_with(kIndexPrefix); }

bool VaryIndex::Parse(std::string_view blob, VaryIndex* out, std::string* error) {
  auto fail = [error](const std::string& why) {
    if (error) *error = "vary index: " + why;
    return false;
  };
  nlohmann::json root = nlohmann::json::parse(blob, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object()) return fail("not a JSON object");
  auto format = root.find("format");
  if (format == root.end() || *format != kIndexFormat) return fail("wrong \"format\"");
  auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer() || *version != kIndexVersion)
    return fail("unsupported \"version\"");
  auto url = root.find("url");
  if (url == root.end() || !url->is_string()) return fail("\"url\" missing or not a string");
  auto variants = root.find("variants");
  if (variants == root.end() || !variants->is_array())
    return fail("\"variants\" missing or not an array");
  if (variants->size() > static_cast<size_t>(kMaxVariantsPerUrl))
    return fail("more than " + std::to_string(kMaxVariantsPerUrl) + " variants");
  VaryIndex index;
  index.url = url->get<std::string>();
  for (const nlohmann::json& v : *variants) {
    if (!v.is_object()) return fail("a variant is not an object");
    auto slot = v.find("slot");
    if (slot == v.end() || !slot->is_number_integer() || *slot < 0 || *slot >= kMaxVariantsPerUrl)
      return fail("a variant's \"slot\" is missing or out of range");
    Variant variant;
    variant.slot = slot->get<int>();
    for (const Variant& seen : index.variants) {
      if (seen.slot == variant.slot) return fail("slot " + std::to_string(seen.slot) + " twice");
    }
    auto vary = v.find("vary");
    if (vary == v.end() || !vary->is_object() || vary->size() > HttpResponseInfo::kMaxVaryHeaders) {
      return fail("a variant's \"vary\" is missing, not an object or too large");
    }
    // nlohmann's objects iterate sorted by key: the selection comes out sorted by name.
    for (auto it = vary->begin(); it != vary->end(); ++it) {
      if (!IsHttpToken(it.key()) || it.key() != ToLowerAscii(it.key()))
        return fail("a \"vary\" name is not a lowercase token");
      HttpResponseInfo::VaryValue value{it.key(), std::nullopt};
      if (it->is_string()) {
        value.value = it->get<std::string>();
      } else if (!it->is_null()) {
        return fail("the \"vary\" value of " + it.key() + " is not a string or null");
      }
      variant.selection.push_back(std::move(value));
    }
    index.variants.push_back(std::move(variant));
  }
  *out = std::move(index);
  return true;
}

std::string VaryIndex::Serialize() const {
  nlohmann::json list = nlohmann::json::array();
  for (const Variant& v : variants) {
    nlohmann::json vary = nlohmann::json::object();
    for (const HttpResponseInfo::VaryValue& value : v.selection) {
      // Invalid UTF-8 is replaced: such a value may then select the wrong slot, which the
      // variant's own (exact) stored values turn into a miss.
      vary[SanitizeUtf8(value.name)] =
          value.value ? nlohmann::json(SanitizeUtf8(*value.value)) : nlohmann::json(nullptr);
    }
    list.push_back({{"slot", v.slot}, {"vary", std::move(vary)}});
  }
  nlohmann::json root{{"format", kIndexFormat},
                      {"version", kIndexVersion},
                      {"url", SanitizeUtf8(url)},
                      {"variants", std::move(list)}};
  return root.dump();
}

std::vector<HttpResponseInfo::VaryValue> VaryIndex::SelectionOf(
    const std::vector<HttpResponseInfo::VaryValue>& stored) {
  std::vector<HttpResponseInfo::VaryValue> out;
  out.reserve(stored.size());
  for (const HttpResponseInfo::VaryValue& v : stored) {
    out.push_back({v.name, v.value
                               ? std::optional<std::string>(NormalizeVaryValue(v.name, *v.value))
                               : std::nullopt});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

int VaryIndex::FindSlot(const HttpRequestHeaders& request) const {
  // Newest first: when variants with different Vary names both match, the most recent response
  // is the one to use (RFC 9111 4.1).
  for (auto it = variants.rbegin(); it != variants.rend(); ++it) {
    const Variant& v = *it;
    bool match = true;
    for (const HttpResponseInfo::VaryValue& value : v.selection) {
      std::optional<std::string> now = request.GetHeader(value.name);
      if (now) now = NormalizeVaryValue(value.name, *now);
      if (now != value.value) {
        match = false;
        break;
      }
    }
    if (match) return v.slot;
  }
  return -1;
}

int VaryIndex::Add(const std::vector<HttpResponseInfo::VaryValue>& selection, CacheBackend* backend,
                   int* evicted_slot) {
  if (evicted_slot) *evicted_slot = -1;
  for (auto it = variants.begin(); it != variants.end(); ++it) {
    if (!SameSelection(it->selection, selection)) continue;
    Variant same = std::move(*it);
    variants.erase(it);
    variants.push_back(std::move(same));
    return variants.back().slot;
  }
  int slot = -1;
  if (variants.size() < static_cast<size_t>(kMaxVariantsPerUrl)) {
    for (int s = 0; s < kMaxVariantsPerUrl && slot < 0; ++s) {
      if (std::none_of(variants.begin(), variants.end(),
                       [s](const Variant& v) { return v.slot == s; })) {
        slot = s;
      }
    }
  } else {
    // Least recently used first; the index order (oldest stored first) breaks ties.
    size_t victim = 0;
    Time oldest = Time::max();
    for (size_t i = 0; i < variants.size(); ++i) {
      CacheEntryInfo info;
      Time used = backend->GetEntryInfo(VariantKey(url, variants[i].slot), &info) ? info.last_used
                                                                                  : Time::min();
      if (used < oldest) {
        oldest = used;
        victim = i;
      }
    }
    slot = variants[victim].slot;
    variants.erase(variants.begin() + static_cast<std::ptrdiff_t>(victim));
    backend->DoomEntry(VariantKey(url, slot));
    if (evicted_slot) *evicted_slot = slot;
  }
  variants.push_back(Variant{slot, selection});
  return slot;
}

}  // namespace netstack

#include "tools/page/html_scanner.h"

#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "net/base/net_error.h"
#include "net/base/string_util.h"

namespace netstack {
namespace {

// Gumbo keeps every parse error it meets; a hostile document would make that list as long as
// the document. Errors are not used here, so keep few.
constexpr int kMaxParseErrors = 16;

bool IsHtmlSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

std::vector<std::string> SplitTokens(std::string_view s) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsHtmlSpace(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !IsHtmlSpace(s[i])) ++i;
    if (i > start) tokens.push_back(ToLowerAscii(s.substr(start, i - start)));
  }
  return tokens;
}

const char* Attr(const GumboElement& element, const char* name) {
  const GumboAttribute* attr = gumbo_get_attribute(&element.attributes, name);
  return attr ? attr->value : nullptr;
}

bool HasAttr(const GumboElement& element, const char* name) { return Attr(element, name); }

// Scripts a browser would not run (templates, JSON data blocks) are not fetched.
bool IsJavaScriptType(const char* type) {
  if (!type) return true;
  std::string t = ToLowerAscii(type);
  while (!t.empty() && IsHtmlSpace(t.back())) t.pop_back();
  return t.empty() || t == "module" || t.find("javascript") != std::string::npos ||
         t.find("ecmascript") != std::string::npos;
}

// Chrome's priorities for <link rel=preload as=...>; nullopt for an `as` Chrome ignores.
std::optional<RequestPriority> PreloadPriority(const std::string& as) {
  if (as == "style") return HIGHEST;
  if (as == "script" || as == "font" || as == "fetch") return MEDIUM;
  if (as == "image" || as == "audio" || as == "video" || as == "track") return LOWEST;
  return std::nullopt;
}

bool IsTagNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '_';
}

// Elements that never hold others (void), or that the tree builder closes implicitly when a
// sibling starts: neither makes a document deeper as repeated.
bool AddsNoDepth(const std::string& name) {
  static const char* const kNames[] = {
      "area",     "base",   "br",       "col", "embed", "hr",     "img",   "input",   "link",
      "meta",     "source", "track",    "wbr", "param", "keygen", "p",     "li",      "dt",
      "dd",       "option", "optgroup", "tr",  "td",    "th",     "tbody", "thead",   "tfoot",
      "colgroup", "rb",     "rt",       "rp",  "html",  "head",   "body",  "!doctype"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

// Elements whose content is text up to their end tag (a '<' in a script is not a tag).
bool IsRawText(const std::string& name) {
  return name == "script" || name == "style" || name == "textarea" || name == "title" ||
         name == "xmp" || name == "noembed" || name == "noframes" || name == "iframe";
}

// The length of the prefix of `html` whose element nesting stays within `max_depth`, by a
// linear scan of the tags (an estimate: end tags close one level each, void and implicitly
// closed elements add none). html.size() when the whole document does.
size_t DepthLimitedLength(std::string_view html, size_t max_depth) {
  size_t depth = 0;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string_view::npos) {
    const size_t tag_start = i;
    if (html.compare(i, 4, "<!--") == 0) {
      size_t end = html.find("-->", i + 4);
      if (end == std::string_view::npos) break;
      i = end + 3;
      continue;
    }
    size_t j = i + 1;
    const bool end_tag = j < html.size() && html[j] == '/';
    if (end_tag) ++j;
    if (j >= html.size() || !std::isalpha(static_cast<unsigned char>(html[j]))) {
      i = j;
      continue;
    }
    size_t name_start = j;
    while (j < html.size() && IsTagNameChar(html[j])) ++j;
    const std::string name = ToLowerAscii(html.substr(name_start, j - name_start));
    // The tag's end, skipping quoted attribute values.
    char quote = 0;
    while (j < html.size() && (quote || html[j] != '>')) {
      if (quote && html[j] == quote) {
        quote = 0;
      } else if (!quote && (html[j] == '"' || html[j] == '\'')) {
        quote = html[j];
      }
      ++j;
    }
    if (j >= html.size()) break;
    const bool self_closing = html[j - 1] == '/';
    i = j + 1;
    if (end_tag) {
      if (!AddsNoDepth(name) && depth > 0) --depth;
      continue;
    }
    if (IsRawText(name)) {
      // Up to its end tag (any case); its content holds no tags.
      size_t k = i;
      while ((k = html.find("</", k)) != std::string_view::npos &&
             ToLowerAscii(html.substr(k + 2, name.size())) != name) {
        k += 2;
      }
      if (k == std::string_view::npos) break;
      i = k;
      continue;
    }
    if (AddsNoDepth(name) || self_closing) continue;
    if (++depth > max_depth) return tag_start;
  }
  return html.size();
}

class Scanner {
 public:
  Scanner(const Url& document_url, const ScanLimits& limits, ScanResult* result)
      : limits_(limits), result_(result) {
    result_->base = document_url;
  }

  // Sets the base from the first <base href> (Chrome uses the first one with an href).
  void FindBase(GumboNode* root) {
    Walk(root, [this](const GumboElement& e) {
      if (e.tag != GUMBO_TAG_BASE) return true;
      const char* href = Attr(e, "href");
      if (!href) return true;
      if (std::optional<Url> url = ResolveReference(href)) result_->base = *url;
      return false;  // first one only
    });
  }

  void Scan(GumboNode* root) {
    Walk(root, [this](const GumboElement& e) {
      Visit(e);
      return true;
    });
  }

 private:
  // Depth-first, in document order, without recursion (nesting depth is the document's to
  // choose). Skips <template> and <noscript> contents: neither is fetched by a browser with
  // scripting on. `visit` returns false to stop.
  template <typename Fn>
  void Walk(GumboNode* root, Fn visit) {
    std::vector<GumboNode*> stack{root};
    while (!stack.empty()) {
      GumboNode* node = stack.back();
      stack.pop_back();
      if (node->type != GUMBO_NODE_ELEMENT) continue;
      const GumboElement& e = node->v.element;
      if (e.tag == GUMBO_TAG_HEAD) in_head_ = true;
      if (e.tag == GUMBO_TAG_BODY) in_head_ = false;
      if (!visit(e)) return;
      if (e.tag == GUMBO_TAG_NOSCRIPT) continue;
      for (unsigned i = e.children.length; i > 0; --i)
        stack.push_back(static_cast<GumboNode*>(e.children.data[i - 1]));
    }
  }

  void Visit(const GumboElement& e) {
    switch (e.tag) {
      case GUMBO_TAG_LINK:
        VisitLink(e);
        break;
      case GUMBO_TAG_SCRIPT: {
        const char* src = Attr(e, "src");
        const char* type = Attr(e, "type");
        if (!src || !IsJavaScriptType(type)) break;
        const bool module = type && ToLowerAscii(type) == "module";
        std::string detail = HasAttr(e, "async")   ? "async"
                             : module              ? "module"
                             : HasAttr(e, "defer") ? "defer"
                                                   : "blocking";
        // Parser-blocking scripts are High (MEDIUM) until the first image of the body, Medium
        // (LOW) after it; async, defer and module scripts are LOW.
        RequestPriority priority =
            detail != "blocking" ? LOW : (in_head_ || !seen_image_ ? MEDIUM : LOW);
        AddSubresource(src, SubresourceType::kScript, priority, detail);
        break;
      }
      case GUMBO_TAG_IMG:
        if (const char* src = Attr(e, "src")) {
          AddSubresource(src, SubresourceType::kImage, LOWEST, "");
          seen_image_ = true;
        }
        break;
      case GUMBO_TAG_INPUT: {
        const char* type = Attr(e, "type");
        const char* src = Attr(e, "src");
        if (type && src && ToLowerAscii(type) == "image")
          AddSubresource(src, SubresourceType::kImage, LOWEST, "");
        break;
      }
      case GUMBO_TAG_IFRAME:
        if (const char* src = Attr(e, "src"))
          AddSubresource(src, SubresourceType::kIframe, LOW, "");
        break;
      default:
        break;
    }
  }

  void VisitLink(const GumboElement& e) {
    const char* rel = Attr(e, "rel");
    const char* href = Attr(e, "href");
    if (!rel || !href) return;
    for (const std::string& token : SplitTokens(rel)) {
      if (token == "stylesheet") {
        // A stylesheet for another medium (print) is not render-blocking: Chrome fetches it
        // at the lowest priority.
        const char* media = Attr(e, "media");
        bool other_medium = media && ToLowerAscii(media).find("print") != std::string::npos;
        AddSubresource(href, SubresourceType::kStylesheet, other_medium ? IDLE : HIGHEST, "");
      } else if (token == "dns-prefetch") {
        AddHint(href, StaticHintKind::kDnsPrefetch, token);
      } else if (token == "preconnect") {
        AddHint(href, StaticHintKind::kPreconnect, token);
      } else if (token == "preload") {
        const char* as_attr = Attr(e, "as");
        std::string as = as_attr ? ToLowerAscii(as_attr) : "";
        std::optional<RequestPriority> priority = PreloadPriority(as);
        if (!priority) continue;  // Chrome ignores a preload without a valid `as`
        // A preload is for this page: the loader requests it (at its `as` priority). It is
        // not also a fetch-ahead hint, which would send the same URL to the network twice
        // (the HTTP cache does not merge requests in flight).
        AddSubresource(href, SubresourceType::kPreload, *priority, as);
      } else if (token == "modulepreload") {
        AddSubresource(href, SubresourceType::kPreload, MEDIUM, "script");
      } else if (token == "prefetch") {
        // A prefetch is for a later page: only a hint (the predictor's fetch ahead, at IDLE),
        // never a request of this load.
        AddHint(href, StaticHintKind::kPrefetch, token);
      }
    }
  }

  // The URL `reference` names (against the base), or nullopt when it is not fetched: empty,
  // another scheme (counted in skipped_schemes) or not a URL (counted in bad_urls).
  std::optional<Url> ResolveReference(std::string_view raw) {
    // As the URL parser does: leading and trailing spaces go, tabs and newlines anywhere go.
    std::string ref;
    ref.reserve(std::min(raw.size(), limits_.max_url_length + 1));
    for (char c : raw) {
      if (c == '\t' || c == '\n' || c == '\r') continue;
      if (ref.size() > limits_.max_url_length) break;
      ref.push_back(c);
    }
    while (!ref.empty() && (IsHtmlSpace(ref.back()) || ref.back() == ' ')) ref.pop_back();
    size_t start = 0;
    while (start < ref.size() && (IsHtmlSpace(ref[start]) || ref[start] == ' ')) ++start;
    ref.erase(0, start);
    if (ref.empty() || ref[0] == '#') return std::nullopt;
    if (ref.size() > limits_.max_url_length) {
      ++result_->bad_urls;
      return std::nullopt;
    }
    // A scheme other than http(s) (data:, javascript:, blob:, mailto:) is not fetched here.
    size_t colon = ref.find(':');
    if (colon != std::string::npos && colon > 0 &&
        std::isalpha(static_cast<unsigned char>(ref[0]))) {
      bool is_scheme = std::all_of(ref.begin(), ref.begin() + static_cast<long>(colon), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
      });
      if (is_scheme) {
        std::string scheme = ToLowerAscii(std::string_view(ref).substr(0, colon));
        if (scheme != "http" && scheme != "https") {
          ++result_->skipped_schemes;
          return std::nullopt;
        }
      }
    }
    Url url;
    std::string message;
    if (result_->base.Resolve(ref, &url, &message) != OK ||
        url.spec().size() > limits_.max_url_length) {
      ++result_->bad_urls;
      return std::nullopt;
    }
    return url;
  }

  void AddSubresource(const char* ref, SubresourceType type, RequestPriority priority,
                      std::string detail) {
    std::optional<Url> url = ResolveReference(ref);
    if (!url) return;
    auto it = index_.find(url->spec());
    if (it != index_.end()) {
      // Fetched once; a later use at a higher priority raises it (a preload, then the tag).
      Subresource& existing = result_->subresources[it->second];
      existing.priority = std::max(existing.priority, priority);
      return;
    }
    if (result_->subresources.size() >= limits_.max_subresources) {
      ++result_->subresources_dropped;
      return;
    }
    index_.emplace(url->spec(), result_->subresources.size());
    result_->subresources.push_back({std::move(*url), type, priority, std::move(detail)});
  }

  void AddHint(const char* ref, StaticHintKind kind, const std::string& rel) {
    std::optional<Url> url = ResolveReference(ref);
    if (!url) return;
    for (const ResourceHint& h : result_->hints) {
      if (h.kind == kind && h.url.spec() == url->spec()) return;
    }
    if (result_->hints.size() >= limits_.max_hints) {
      ++result_->hints_dropped;
      return;
    }
    result_->hints.push_back({kind, std::move(*url), rel});
  }

  const ScanLimits& limits_;
  ScanResult* const result_;
  std::unordered_map<std::string, size_t> index_;  // spec -> position in subresources
  bool in_head_ = false;
  bool seen_image_ = false;
};

}  // namespace

const char* SubresourceTypeName(SubresourceType type) {
  switch (type) {
    case SubresourceType::kStylesheet:
      return "stylesheet";
    case SubresourceType::kScript:
      return "script";
    case SubresourceType::kImage:
      return "image";
    case SubresourceType::kIframe:
      return "iframe";
    case SubresourceType::kPreload:
      return "preload";
  }
  return "other";
}

ScanResult ScanHtml(std::string_view html, const Url& document_url, const ScanLimits& limits) {
  ScanResult result;
  if (html.size() > limits.max_document_bytes) {
    html = html.substr(0, limits.max_document_bytes);
    result.document_truncated = true;
  }
  const size_t shallow = DepthLimitedLength(html, limits.max_nesting_depth);
  if (shallow < html.size()) {
    html = html.substr(0, shallow);
    result.nesting_truncated = true;
  }
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = kMaxParseErrors;
  std::unique_ptr<GumboOutput, void (*)(GumboOutput*)> output(
      gumbo_parse_with_options(&options, html.data(), html.size()),
      [](GumboOutput* o) { gumbo_destroy_output(&kGumboDefaultOptions, o); });
  if (!output || !output->root) return result;
  Scanner scanner(document_url, limits, &result);
  scanner.FindBase(output->root);
  scanner.Scan(output->root);
  return result;
}

}  // namespace netstack

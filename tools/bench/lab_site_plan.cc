#include "tools/bench/lab_site_plan.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "net/base/url.h"

namespace netstack {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string ContentType(const TraceEntry& e) {
  for (const auto& [name, value] : e.response_headers) {
    if (Lower(name) == "content-type") return Lower(value);
  }
  return "";
}

bool Has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// The extension the lab's nginx maps back to a Content-Type of the recorded kind.
std::string ExtensionFor(const TraceEntry& e) {
  const std::string type = Lower(e.resource_type);
  const std::string mime = ContentType(e);
  if (type == "stylesheet" || Has(mime, "text/css")) return "css";
  if (type == "script" || Has(mime, "javascript") || Has(mime, "ecmascript")) return "js";
  if (type == "document" || type == "iframe" || Has(mime, "html")) return "html";
  if (type == "image" || Has(mime, "image/")) {
    if (Has(mime, "jpeg") || Has(mime, "jpg")) return "jpg";
    if (Has(mime, "gif")) return "gif";
    if (Has(mime, "webp")) return "webp";
    if (Has(mime, "svg")) return "svg";
    if (Has(mime, "avif")) return "avif";
    if (Has(mime, "icon")) return "ico";
    return "png";
  }
  if (type == "font" || Has(mime, "font")) {
    if (Has(mime, "woff2")) return "woff2";
    if (Has(mime, "woff")) return "woff";
    if (Has(mime, "ttf") || Has(mime, "truetype")) return "ttf";
    return "woff2";
  }
  if (Has(mime, "json")) return "json";
  if (Has(mime, "text/plain")) return "txt";
  return "bin";
}

bool IsText(const std::string& ext) {
  return ext == "html" || ext == "css" || ext == "js" || ext == "svg" || ext == "json" ||
         ext == "txt";
}

// Why a recorded entry is not generated; empty when it is.
std::string OmitReason(const TraceEntry& e) {
  if (e.recorded_from_cache) return "cached";
  if (!e.recorded_error.empty()) return "failed";
  if (e.status >= 300 && e.status < 400 && e.status != 304) return "redirect";
  if (e.status < 200 || e.status == 204 || e.status >= 300) return "status";
  return "";
}

// The markup of files[index] that references its children, without filler: the document's head
// and body parts, a stylesheet's rules. Children are in `children[index]`.
struct Markup {
  std::string head, body;  // HTML: inside <head>, inside <body>; CSS: imports, rules
};

Markup MarkupOf(const LabSitePlan& plan, size_t index) {
  Markup m;
  const bool document = index == 0;
  for (size_t i = 1; i < plan.files.size(); ++i) {
    const LabSiteFile& f = plan.files[i];
    if (document) {
      if (f.referenced_from == 0) {
        if (f.how == "link") m.head += "<link rel=\"stylesheet\" href=\"" + f.url + "\">\n";
        if (f.how == "script") m.body += "<script src=\"" + f.url + "\" defer></script>\n";
        if (f.how == "iframe") m.body += "<iframe src=\"" + f.url + "\"></iframe>\n";
        if (f.how == "img") m.body += "<img src=\"" + f.url + "\" alt=\"\">\n";
      }
      // A stylesheet's background image shows on an element of the document.
      if (f.how == "css-background") {
        m.body += "<div class=\"c" + std::to_string(i) + "\"></div>\n";
      }
    } else if (f.referenced_from == static_cast<int>(index)) {
      if (f.how == "css-import") m.head += "@import url(\"" + f.url + "\");\n";
      if (f.how == "css-background") {
        m.body += ".c" + std::to_string(i) + "{width:1px;height:1px;background-image:url(\"" +
                  f.url + "\")}\n";
      }
    }
  }
  return m;
}

constexpr char kHtmlStart[] = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n";
constexpr char kHtmlMiddle[] = "</head><body>\n";
constexpr char kHtmlEnd[] = "</body></html>\n";

// Bytes of markup that are not filler.
int64_t MarkupBytes(const LabSitePlan& plan, size_t index) {
  const Markup m = MarkupOf(plan, index);
  if (index == 0) {
    return static_cast<int64_t>(sizeof(kHtmlStart) - 1 + m.head.size() + sizeof(kHtmlMiddle) - 1 +
                                m.body.size() + sizeof(kHtmlEnd) - 1);
  }
  return static_cast<int64_t>(m.head.size() + m.body.size());
}

// xorshift64*: deterministic filler, seeded per file.
struct Filler {
  explicit Filler(uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t Next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ull;
  }
  uint64_t state;
};

// `n` bytes of filler in a comment of the file's language (spaces when n is too small for one).
std::string FillerText(const std::string& ext, int64_t n, uint64_t seed) {
  std::string out;
  if (n <= 0) return out;
  out.reserve(static_cast<size_t>(n));
  Filler rng(seed);
  if (!IsText(ext)) {
    while (static_cast<int64_t>(out.size()) < n) out.push_back(static_cast<char>(rng.Next()));
    return out;
  }
  std::string open = "/*", close = "*/";
  if (ext == "html" || ext == "svg") open = "<!--", close = "-->";
  if (ext == "json" || ext == "txt") open = close = "";
  if (ext == "json") open = "\"", close = "\"";
  const int64_t wrap = static_cast<int64_t>(open.size() + close.size());
  if (n < wrap + 1) return std::string(static_cast<size_t>(n), ' ');
  out += open;
  for (int64_t i = 0; i < n - wrap; ++i) out.push_back(static_cast<char>('a' + rng.Next() % 26));
  out += close;
  return out;
}

}  // namespace

const char* LabSiteReferenceName(LabSiteReference reference) {
  switch (reference) {
    case LabSiteReference::kNone:
      return "none";
    case LabSiteReference::kDocument:
      return "document";
    case LabSiteReference::kStylesheet:
      return "stylesheet";
    case LabSiteReference::kDocumentFlat:
      return "document-flattened";
  }
  return "none";
}

bool PlanLabSite(const TracePage& page, const std::string& name, const LabSiteOptions& options,
                 LabSitePlan* plan, std::string* error) {
  *plan = LabSitePlan();
  plan->page_id = page.id;
  const auto& entries = page.entries;
  if (entries.empty()) {
    *error = name + ": the page has no requests";
    return false;
  }
  if (options.site_number < 0 || options.site_number > 9999) {
    *error = name + ": site number " + std::to_string(options.site_number) + " is outside 0..9999";
    return false;
  }
  // The document: the first entry, or the target its redirects lead to.
  size_t doc = 0;
  while (OmitReason(entries[doc]) == "redirect") {
    size_t next = doc;
    for (size_t j = doc + 1; j < entries.size(); ++j) {
      if (entries[j].parent == static_cast<int>(doc)) {
        next = j;
        break;
      }
    }
    if (next == doc) break;
    doc = next;
  }
  if (!OmitReason(entries[doc]).empty() || ExtensionFor(entries[doc]) != "html") {
    const std::string why = OmitReason(entries[doc]);
    *error = name + ": the page's first request (" + entries[doc].resource_type + ", status " +
             std::to_string(entries[doc].status) + (why.empty() ? "" : ", " + why) +
             ") is not an HTML document answered with 2xx: nothing to build a page from";
    return false;
  }

  std::vector<int> file_of(entries.size(), -1);
  std::map<std::string, size_t> host_index;
  const std::string suffix = ".site" + std::to_string(options.site_number) + ".lab";
  auto add = [&](size_t i) -> bool {
    const TraceEntry& e = entries[i];
    Url url;
    std::string message;
    if (Url::Parse(e.url, &url, &message) != 0) {
      *error = name + ": request " + std::to_string(i) + ": " + message;
      return false;
    }
    if (plan->files.size() >= options.max_files) {
      *error = name + ": more than " + std::to_string(options.max_files) +
               " requests to generate (the bound on files)";
      return false;
    }
    auto [it, inserted] = host_index.emplace(url.host(), plan->hosts.size());
    if (inserted) {
      plan->hosts.push_back({url.host(), "h" + std::to_string(plan->hosts.size()) + suffix, 0});
    }
    LabSiteHost& host = plan->hosts[it->second];
    ++host.requests;
    LabSiteFile f;
    f.recorded_index = static_cast<int>(i);
    f.recorded_url = e.url;
    f.host = host.lab;
    f.type = e.resource_type;
    f.extension = plan->files.empty() ? "html" : ExtensionFor(e);
    f.file_name = plan->files.empty() ? "index.html" : "r" + std::to_string(i) + "." + f.extension;
    f.path = plan->files.empty() ? "/" : "/" + f.file_name;
    f.url = "https://" + host.lab + f.path;
    f.recorded_bytes = e.response_body_bytes;
    file_of[i] = static_cast<int>(plan->files.size());
    plan->files.push_back(std::move(f));
    return true;
  };
  if (!add(doc)) return false;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == doc) continue;
    const std::string why = OmitReason(entries[i]);
    if (i < doc || why == "redirect" || why == "status") {
      ++plan->omitted_status;
      continue;
    }
    if (why == "cached") {
      ++plan->omitted_cached;
      continue;
    }
    if (why == "failed") {
      ++plan->omitted_failed;
      continue;
    }
    if (!add(i)) return false;
  }

  // References: each file's nearest generated ancestor decides where it is referenced from.
  for (size_t k = 1; k < plan->files.size(); ++k) {
    LabSiteFile& f = plan->files[k];
    int p = entries[f.recorded_index].parent;
    while (p >= 0 && file_of[p] < 0) p = entries[p].parent;  // parent < own index: ends
    const int parent_file = p >= 0 ? file_of[p] : -1;
    const bool via_css =
        !options.flat && parent_file > 0 && plan->files[parent_file].extension == "css";
    if (via_css) {
      f.reference = LabSiteReference::kStylesheet;
      f.referenced_from = parent_file;
      f.how = f.extension == "css" ? "css-import" : "css-background";
      continue;
    }
    f.reference = parent_file == 0 ? LabSiteReference::kDocument : LabSiteReference::kDocumentFlat;
    f.referenced_from = 0;
    if (f.extension == "css") {
      f.how = "link";
    } else if (f.extension == "js") {
      f.how = "script";
    } else if (f.extension == "html") {
      f.how = "iframe";
    } else {
      f.how = "img";
    }
  }

  for (size_t k = 0; k < plan->files.size(); ++k) {
    LabSiteFile& f = plan->files[k];
    f.bytes = std::max(f.recorded_bytes, MarkupBytes(*plan, k));
    if (f.bytes > options.max_file_bytes) {
      *error = name + ": request " + std::to_string(f.recorded_index) + " (" + f.type + ") has " +
               std::to_string(f.bytes) + " bytes, over the bound of " +
               std::to_string(options.max_file_bytes) + " per file";
      return false;
    }
    plan->total_bytes += f.bytes;
    if (plan->total_bytes > options.max_site_bytes) {
      *error = name + ": the site would hold over " + std::to_string(options.max_site_bytes) +
               " bytes (the bound on a site)";
      return false;
    }
  }
  return true;
}

std::string LabSiteFileBody(const LabSitePlan& plan, size_t index) {
  if (index >= plan.files.size()) return "";
  const LabSiteFile& f = plan.files[index];
  const Markup m = MarkupOf(plan, index);
  const int64_t filler = f.bytes - MarkupBytes(plan, index);
  const std::string fill = FillerText(f.extension, filler, static_cast<uint64_t>(index) + 1);
  if (index == 0) return kHtmlStart + m.head + kHtmlMiddle + m.body + fill + kHtmlEnd;
  return m.head + m.body + fill;
}

}  // namespace netstack

#include "tools/replay/gen/synthetic_session.h"

#include <cmath>
#include <vector>

#include "tools/replay/gen/synthetic_random.h"

namespace netstack {

namespace {

constexpr int64_t kMaxDefinedPages = 10'000;  // the session reader's limit
// The third parties every site may use (MakePage's URLs).
constexpr const char* kSharedHosts[] = {"cdn.shared-cdn.test",      "fonts.shared-fonts.test",
                                        "fonts.shared-static.test", "analytics.shared-metrics.test",
                                        "ads.shared-ads.test",      "img.shared-ads.test"};
// What a resource is; decides its size, server time, type and caching.
enum class Kind {
  kDocument,
  kSiteStylesheet,   // versioned, shared by a site's pages
  kFontStylesheet,   // the font service's CSS
  kSiteScript,       // versioned, shared by a site's pages
  kPageScript,       // one page's own script
  kLibrary,          // a CDN library, shared across sites
  kAnalyticsScript,  // shared across sites
  kAdScript,         // shared across sites
  kSiteImage,        // versioned UI images and CSS backgrounds, shared by a site's pages
  kPageImage,        // content images of one page
  kAdImage,          // ad creatives from a shared pool
  kFont,             // font files, shared across sites
  kXhr,              // API calls, not cacheable
  kBeacon,           // the analytics hit: 204, not cacheable
};

struct Entry {
  std::string url;
  Kind kind;
  int after = -1;  // parent entry, -1 for the document
  int gap_ms = 0;  // discovery time after the parent finished
};

struct Site {
  std::string host, asset_host, version;
  int stylesheets, scripts, ui_images, background_images;
  int font_family = -1, font_files = 0;  // -1: no web fonts
  std::vector<std::string> libraries;
  bool analytics, ads;
};

std::string Hex(uint64_t value, int digits) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, value >>= 4)
    out[static_cast<size_t>(i)] = kDigits[value & 15];
  return out;
}

std::string Str(int64_t v) { return std::to_string(v); }

class SyntheticModel {
 public:
  explicit SyntheticModel(uint64_t seed) : seed_(seed) {}

  Site MakeSite(int index) const {
    SyntheticRandom rng(SyntheticHash(seed_, "site:" + Str(index)));
    Site site;
    site.host = "www.site" + Str(index) + ".test";
    site.asset_host = rng.Chance(0.5) ? "static.site" + Str(index) + ".test" : site.host;
    site.version = Hex(rng.Next(), 8);
    site.stylesheets = static_cast<int>(rng.Between(1, 3));
    site.scripts = static_cast<int>(rng.Between(3, 10));
    site.ui_images = static_cast<int>(rng.Between(2, 8));
    site.background_images = static_cast<int>(rng.Between(0, 4));
    if (rng.Chance(0.7)) {
      site.font_family = static_cast<int>(rng.Between(0, 11));
      site.font_files = static_cast<int>(rng.Between(1, 4));
    }
    static const char* const kLibraries[] = {"jquery", "react",  "lodash", "bootstrap",
                                             "vue",    "swiper", "moment", "gsap"};
    int libraries = rng.Chance(0.6) ? static_cast<int>(rng.Between(1, 3)) : 0;
    for (int i = 0; i < libraries; ++i) {
      std::string name = kLibraries[rng.Between(0, 7)];
      site.libraries.push_back("https://cdn.shared-cdn.test/npm/" + name + "@" +
                               Str(rng.Between(1, 3)) + ".0.0/dist/" + name + ".min.js");
    }
    site.analytics = rng.Chance(0.8);
    site.ads = rng.Chance(0.35);
    return site;
  }

  // The entries of page `page` of `site`, parents before children.
  std::vector<Entry> MakePage(const Site& site, int site_index, int page) const {
    SyntheticRandom rng(SyntheticHash(seed_, "page:" + Str(site_index) + ":" + Str(page)));
    std::vector<Entry> entries;
    auto add = [&](std::string url, Kind kind, int after, int64_t gap_lo, int64_t gap_hi) {
      int gap = after < 0 ? 0 : static_cast<int>(rng.Between(gap_lo, gap_hi));
      entries.push_back({std::move(url), kind, after, gap});
      return static_cast<int>(entries.size()) - 1;
    };
    std::string origin = "https://" + site.host;
    std::string assets = "https://" + site.asset_host;
    add(page == 0 ? origin + "/" : origin + "/p/" + Str(page), Kind::kDocument, -1, 0, 0);

    std::vector<int> stylesheets, scripts;
    for (int i = 0; i < site.stylesheets; ++i) {
      stylesheets.push_back(add(assets + "/css/site-" + Str(i) + "." + site.version + ".css",
                                Kind::kSiteStylesheet, 0, 1, 15));
    }
    int font_css = -1;
    if (site.font_family >= 0) {
      font_css = add("https://fonts.shared-fonts.test/css2?family=Family" + Str(site.font_family),
                     Kind::kFontStylesheet, 0, 1, 15);
    }
    for (const std::string& library : site.libraries) add(library, Kind::kLibrary, 0, 5, 40);
    for (int i = 0; i < site.scripts; ++i) {
      scripts.push_back(
          add(assets + "/js/" + Str(i) + "." + site.version + ".js", Kind::kSiteScript, 0, 5, 60));
    }
    int page_scripts = static_cast<int>(rng.Between(0, 3));
    for (int i = 0; i < page_scripts; ++i) {
      scripts.push_back(
          add(origin + "/js/p" + Str(page) + "-" + Str(i) + ".js", Kind::kPageScript, 0, 20, 120));
    }
    int analytics = -1, ads = -1;
    if (site.analytics) {
      analytics =
          add("https://analytics.shared-metrics.test/a.js", Kind::kAnalyticsScript, 0, 30, 150);
    }
    if (site.ads) ads = add("https://ads.shared-ads.test/tag.js", Kind::kAdScript, 0, 30, 150);
    for (int i = 0; i < site.ui_images; ++i) {
      add(assets + "/img/ui-" + Str(i) + "." + site.version + ".png", Kind::kSiteImage, 0, 10, 100);
    }
    int images = static_cast<int>(std::lround(rng.LogNormal(page == 0 ? 40 : 30, 0.7, 0, 150)));
    for (int i = 0; i < images; ++i) {
      add(assets + "/media/" + Str(page) + "-" + Str(i) + (i % 4 == 3 ? ".png" : ".jpg"),
          Kind::kPageImage, 0, 10, 250);
    }
    for (int i = 0; i < site.font_files; ++i) {
      add("https://fonts.shared-static.test/s/family" + Str(site.font_family) + "/v" + Str(i) +
              ".woff2",
          Kind::kFont, font_css, 1, 10);
    }
    for (int i = 0; i < site.background_images; ++i) {
      add(assets + "/img/bg-" + Str(i) + "." + site.version + ".jpg", Kind::kSiteImage,
          stylesheets[0], 2, 20);
    }
    int xhrs = static_cast<int>(rng.Between(0, 4));
    for (int i = 0; i < xhrs; ++i) {
      int parent =
          scripts[static_cast<size_t>(rng.Between(0, static_cast<int64_t>(scripts.size()) - 1))];
      add(origin + "/api/p" + Str(page) + "/" + Str(i), Kind::kXhr, parent, 20, 300);
    }
    if (analytics >= 0) {
      add("https://analytics.shared-metrics.test/collect?sid=" + Str(site_index) +
              "&p=" + Str(page),
          Kind::kBeacon, analytics, 50, 400);
    }
    if (ads >= 0) {
      int creatives = static_cast<int>(rng.Between(1, 3));
      for (int i = 0; i < creatives; ++i) {
        add("https://img.shared-ads.test/c/" + Str(rng.Between(0, 199)) + ".jpg", Kind::kAdImage,
            ads, 50, 300);
      }
    }
    return entries;
  }

  // One entry as JSON. Size, server time and caching come from the URL's own hash, so a URL
  // looks the same on every page that uses it.
  void AppendEntry(const Entry& e, std::string* out) const {
    SyntheticRandom rng(SyntheticHash(seed_, e.url));
    const char* type = "other";
    const char* content_type = "application/octet-stream";
    std::string cache_control;
    double bytes = 0, server_ms = 0;
    int status = 200;
    auto static_server = [&] { return rng.LogNormal(8, 0.5, 1, 100); };
    switch (e.kind) {
      case Kind::kDocument:
        type = "document";
        content_type = "text/html; charset=utf-8";
        bytes = rng.LogNormal(30'000, 0.8, 2'000, 1'000'000);
        server_ms = rng.LogNormal(120, 0.6, 15, 3'000);
        cache_control = rng.Chance(0.6) ? "no-cache" : "max-age=300";
        break;
      case Kind::kSiteStylesheet:
      case Kind::kFontStylesheet:
        type = "stylesheet";
        content_type = "text/css";
        bytes = e.kind == Kind::kFontStylesheet ? rng.LogNormal(1'500, 0.3, 300, 10'000)
                                                : rng.LogNormal(12'000, 1.0, 500, 500'000);
        server_ms = static_server();
        cache_control = e.kind == Kind::kFontStylesheet ? "max-age=86400"
                                                        : "public, max-age=31536000, immutable";
        break;
      case Kind::kSiteScript:
      case Kind::kPageScript:
      case Kind::kLibrary:
      case Kind::kAnalyticsScript:
      case Kind::kAdScript:
        type = "script";
        content_type = "application/javascript";
        bytes = rng.LogNormal(e.kind == Kind::kLibrary ? 35'000 : 25'000, 1.0, 300, 2'000'000);
        server_ms = static_server();
        cache_control = e.kind == Kind::kPageScript        ? "max-age=3600"
                        : e.kind == Kind::kAnalyticsScript ? "max-age=7200"
                        : e.kind == Kind::kAdScript        ? "max-age=900"
                                                           : "public, max-age=31536000, immutable";
        break;
      case Kind::kSiteImage:
      case Kind::kPageImage:
      case Kind::kAdImage: {
        type = "image";
        bool png = e.url.size() > 4 && e.url.compare(e.url.size() - 4, 4, ".png") == 0;
        content_type = png ? "image/png" : "image/jpeg";
        bytes = e.kind == Kind::kSiteImage ? rng.LogNormal(4'000, 1.0, 100, 500'000)
                                           : rng.LogNormal(12'000, 1.4, 100, 5'000'000);
        server_ms = static_server();
        cache_control =
            e.kind == Kind::kSiteImage ? "public, max-age=31536000, immutable" : "max-age=86400";
        break;
      }
      case Kind::kFont:
        type = "font";
        content_type = "font/woff2";
        bytes = rng.LogNormal(25'000, 0.5, 5'000, 300'000);
        server_ms = static_server();
        cache_control = "public, max-age=31536000, immutable";
        break;
      case Kind::kXhr:
        type = "xhr";
        content_type = "application/json";
        bytes = rng.LogNormal(2'000, 1.0, 50, 200'000);
        server_ms = rng.LogNormal(60, 0.6, 5, 2'000);
        cache_control = "no-store";
        break;
      case Kind::kBeacon:
        type = "image";
        content_type = "";
        status = 204;
        server_ms = rng.LogNormal(15, 0.4, 2, 200);
        cache_control = "no-store";
        break;
    }
    *out += "{\"url\":\"" + e.url + "\",\"type\":\"" + type + "\"";
    if (status != 200) *out += ",\"status\":" + Str(status);
    *out += ",\"bytes\":" + Str(std::llround(bytes)) +
            ",\"server_ms\":" + Str(std::llround(server_ms)) + ",\"headers\":{";
    if (*content_type) *out += "\"Content-Type\":\"" + std::string(content_type) + "\",";
    *out += "\"Cache-Control\":\"" + cache_control + "\"}";
    if (e.after >= 0) *out += ",\"after\":" + Str(e.after) + ",\"gap_ms\":" + Str(e.gap_ms);
    *out += "}";
  }

  void AppendEntries(const std::vector<Entry>& entries, size_t count, std::string* out) const {
    *out += "\"entries\":[";
    for (size_t i = 0; i < count && i < entries.size(); ++i) {
      if (i) *out += ",";
      AppendEntry(entries[i], out);
    }
    *out += "]";
  }

 private:
  uint64_t seed_;
};

}  // namespace

std::string SyntheticSessionOptions::Describe() const {
  std::string out = "--synthetic --seed " + std::to_string(seed);
  if (pages) out += " --pages " + std::to_string(pages);
  if (requests) out += " --requests " + std::to_string(requests);
  out +=
      " --sites " + std::to_string(sites) + " --pages-per-site " + std::to_string(pages_per_site);
  char think[32];
  std::snprintf(think, sizeof(think), "%g", think_median_s);
  out += std::string(" --think-s ") + think;
  char share[32];
  std::snprintf(share, sizeof(share), "%g", http2_share);
  out += std::string(" --http2-share ") + share;
  out += behavior.Describe();
  return out;
}

bool SyntheticSessionOptions::Validate(std::string* error) const {
  if (pages == 0 && requests == 0) {
    *error = "give --pages N or --requests N (a positive count)";
  } else if (sites < 1 || sites > kMaxSites) {
    *error = "--sites: " + std::to_string(sites) + " is out of range (1 to " +
             std::to_string(kMaxSites) + ")";
  } else if (pages_per_site < 1 || pages_per_site > kMaxPagesPerSite) {
    *error = "--pages-per-site: " + std::to_string(pages_per_site) + " is out of range (1 to " +
             std::to_string(kMaxPagesPerSite) + ")";
  } else if (static_cast<int64_t>(sites) * pages_per_site > kMaxDefinedPages) {
    *error = "--sites × --pages-per-site is " +
             std::to_string(static_cast<int64_t>(sites) * pages_per_site) +
             ", more than the session reader's limit of " + std::to_string(kMaxDefinedPages) +
             " defined pages";
  } else if (!(think_median_s > 0) || think_median_s > 3600) {
    *error = "--think-s: must be above 0 and at most 3600";
  } else if (!(http2_share >= 0) || http2_share > 1) {
    *error = "--http2-share: must be from 0 to 1";
  } else {
    // The user model's own flags (--day-pages, --routine-sites, --stray-hover).
    return Behavior().Validate(error);
  }
  return false;
}

namespace {

// The synthetic sites and pages as the user model sees them: pages are defined ("page" lines)
// the first time they are visited, and the last one is cut inline to meet a request budget.
class SyntheticCatalog : public PageCatalog {
 public:
  SyntheticCatalog(const SyntheticSessionOptions& options)
      : options_(options),
        model_(options.seed),
        defined_(static_cast<size_t>(options.sites) * static_cast<size_t>(options.pages_per_site),
                 0) {}

  int sites() const override { return options_.sites; }
  int pages(int) const override { return options_.pages_per_site; }
  std::string Url(int site, int page) const override {
    std::string origin = "https://www.site" + Str(site) + ".test";
    return page == 0 ? origin + "/" : origin + "/p/" + Str(page);
  }
  std::string Name(int site) const override { return "site" + Str(site) + ".test"; }
  uint64_t pages_defined() const override { return pages_defined_; }

  void AppendHosts(std::string* out) const override {
    auto line = [&](const std::string& host) {
      SyntheticRandom rng(SyntheticHash(options_.seed, "protocol:" + host));
      *out += "{\"type\":\"host\",\"host\":\"" + host + "\",\"protocol\":\"" +
              (rng.Chance(options_.http2_share) ? "h2" : "http/1.1") + "\"}\n";
    };
    for (int i = 0; i < options_.sites; ++i) {
      Site site = model_.MakeSite(i);
      line(site.host);
      if (site.asset_host != site.host) line(site.asset_host);
    }
    for (const char* host : kSharedHosts) line(host);
  }

  uint64_t AppendNavigate(int site_index, int page, int64_t t, uint64_t budget,
                          std::string* out) override {
    size_t slot = static_cast<size_t>(site_index) * static_cast<size_t>(options_.pages_per_site) +
                  static_cast<size_t>(page);
    std::string id = "s" + Str(site_index) + "p" + Str(page);
    std::string t_text = Str(t);
    std::vector<Entry> entries;
    uint64_t count = defined_[slot];
    if (count == 0) {
      entries = model_.MakePage(model_.MakeSite(site_index), site_index, page);
      count = entries.size();
    }
    if (budget != 0 && count > budget) {
      // The budget ends inside this page: write its first `budget` entries inline.
      if (entries.empty()) entries = model_.MakePage(model_.MakeSite(site_index), site_index, page);
      *out += "{\"type\":\"navigate\",\"t\":" + t_text + ",\"page\":{";
      model_.AppendEntries(entries, static_cast<size_t>(budget), out);
      *out += "}}\n";
      return budget;
    }
    if (defined_[slot] == 0) {
      *out += "{\"type\":\"page\",\"id\":\"" + id + "\",";
      model_.AppendEntries(entries, entries.size(), out);
      *out += "}\n";
      defined_[slot] = static_cast<uint32_t>(count);
      ++pages_defined_;
    }
    *out += "{\"type\":\"navigate\",\"t\":" + t_text + ",\"page\":\"" + id + "\"}\n";
    return count;
  }

 private:
  const SyntheticSessionOptions& options_;
  SyntheticModel model_;
  // Entries per page once it has been defined (0: not yet): the only per-page state kept.
  std::vector<uint32_t> defined_;
  uint64_t pages_defined_ = 0;
};

}  // namespace

BehaviorOptions SyntheticSessionOptions::Behavior() const {
  BehaviorOptions b = behavior;
  b.seed = seed;
  b.pages = pages;
  b.requests = requests;
  b.think_median_s = think_median_s;
  return b;
}

bool WriteSyntheticSession(const SyntheticSessionOptions& options, std::FILE* out,
                           SessionStats* stats, std::string* error) {
  if (!options.Validate(error)) return false;
  SessionStats local;
  if (!stats) stats = &local;
  *stats = {};
  SyntheticCatalog catalog(options);
  return WriteSessionFile(options.Behavior(), options.Describe(), &catalog, out, stats, error);
}

}  // namespace netstack

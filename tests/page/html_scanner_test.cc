#include "tools/page/html_scanner.h"

#include <catch2/catch.hpp>
#include <string>

#include "net/base/net_error.h"
#include "tests/support/test_url.h"

namespace netstack {
namespace {

using test::U;

Url Doc() { return U("https://www.example.test/dir/page.html"); }

std::vector<std::string> Urls(const ScanResult& r) {
  std::vector<std::string> out;
  for (const Subresource& s : r.subresources) out.push_back(s.url.spec());
  return out;
}

const Subresource* Find(const ScanResult& r, const std::string& spec) {
  for (const Subresource& s : r.subresources) {
    if (s.url.spec() == spec) return &s;
  }
  return nullptr;
}

TEST_CASE("scanner lists subresources in document order with Chrome-like priorities",
          "[page][scanner]") {
  ScanResult r = ScanHtml(R"(<!doctype html><html><head>
      <link rel=stylesheet href="/a.css">
      <script src="head.js"></script>
      <script async src="https://cdn.test/async.js"></script>
      <script defer src="defer.js"></script>
      <script type="module" src="mod.js"></script>
      <link rel="stylesheet" media="print" href="print.css">
    </head><body>
      <script src="early-body.js"></script>
      <img src="//img.test/1.png">
      <script src="late-body.js"></script>
      <iframe src="frame.html"></iframe>
      <input type="image" src="button.png">
    </body></html>)",
                          Doc());
  CHECK(Urls(r) == std::vector<std::string>{
                       "https://www.example.test/a.css",
                       "https://www.example.test/dir/head.js",
                       "https://cdn.test/async.js",
                       "https://www.example.test/dir/defer.js",
                       "https://www.example.test/dir/mod.js",
                       "https://www.example.test/dir/print.css",
                       "https://www.example.test/dir/early-body.js",
                       "https://img.test/1.png",
                       "https://www.example.test/dir/late-body.js",
                       "https://www.example.test/dir/frame.html",
                       "https://www.example.test/dir/button.png",
                   });
  REQUIRE(r.subresources.size() == 11);
  CHECK(r.subresources[0].priority == HIGHEST);
  CHECK(r.subresources[0].type == SubresourceType::kStylesheet);
  CHECK(r.subresources[1].priority == MEDIUM);
  CHECK(r.subresources[1].detail == "blocking");
  CHECK(r.subresources[2].priority == LOW);
  CHECK(r.subresources[2].detail == "async");
  CHECK(r.subresources[3].priority == LOW);
  CHECK(r.subresources[4].detail == "module");
  CHECK(r.subresources[4].priority == LOW);
  CHECK(r.subresources[5].priority == IDLE);
  CHECK(r.subresources[6].priority == MEDIUM);  // before the first image
  CHECK(r.subresources[7].priority == LOWEST);
  CHECK(r.subresources[7].type == SubresourceType::kImage);
  CHECK(r.subresources[8].priority == LOW);  // after an image
  CHECK(r.subresources[9].type == SubresourceType::kIframe);
  CHECK(r.subresources[10].priority == LOWEST);
  CHECK(r.hints.empty());
  CHECK(r.bad_urls == 0);
  CHECK_FALSE(r.document_truncated);
}

TEST_CASE("scanner separates resource hints and fetches preloads by their as", "[page][scanner]") {
  ScanResult r = ScanHtml(R"(<head>
      <link rel="dns-prefetch" href="//dns.test">
      <link rel="preconnect" href="https://pc.test">
      <link rel="preload" as="style" href="/p.css">
      <link rel="preload" as="font" href="/f.woff2" crossorigin>
      <link rel="preload" as="image" href="/hero.jpg">
      <link rel="preload" href="/no-as.js">
      <link rel="modulepreload" href="/m.js">
      <link rel="prefetch" href="https://next.test/next.html">
      <link rel="PRELOAD" as="SCRIPT" href="/s.js">
      <link rel="icon" href="/favicon.ico">
    </head><body><img src="/hero.jpg"><script src="/s.js"></script></body>)",
                          Doc());
  // Preloads are requested by the page itself, so they are not also fetch-ahead hints (that
  // would fetch each twice); the prefetch (for a later page) is a hint only.
  REQUIRE(r.hints.size() == 3);
  CHECK(r.hints[0].kind == StaticHintKind::kDnsPrefetch);
  CHECK(r.hints[0].url.host() == "dns.test");
  CHECK(r.hints[1].kind == StaticHintKind::kPreconnect);
  CHECK(r.hints[1].url.scheme_host_port() == (SchemeHostPort{"https", "pc.test", 443}));
  CHECK(r.hints[2].kind == StaticHintKind::kPrefetch);
  CHECK(r.hints[2].rel == "prefetch");
  CHECK(r.hints[2].url.spec() == "https://next.test/next.html");
  for (const ResourceHint& h : r.hints) CHECK(h.kind != StaticHintKind::kPreload);
  // The preload without `as` is ignored, each URL is fetched once, and the prefetch not at all.
  CHECK(Urls(r) == std::vector<std::string>{
                       "https://www.example.test/p.css",
                       "https://www.example.test/f.woff2",
                       "https://www.example.test/hero.jpg",
                       "https://www.example.test/m.js",
                       "https://www.example.test/s.js",
                   });
  CHECK(Find(r, "https://www.example.test/p.css")->priority == HIGHEST);
  CHECK(Find(r, "https://www.example.test/f.woff2")->priority == MEDIUM);
  CHECK(Find(r, "https://www.example.test/hero.jpg")->priority == LOWEST);
  CHECK(Find(r, "https://www.example.test/m.js")->priority == MEDIUM);
  CHECK(Find(r, "https://www.example.test/s.js")->priority == MEDIUM);
  CHECK(Find(r, "https://next.test/next.html") == nullptr);
}

TEST_CASE("scanner honours the first base href", "[page][scanner]") {
  ScanResult r = ScanHtml(R"(<head><base href="https://static.test/v2/"><base href="/other/">
      <link rel=stylesheet href="s.css"></head><body><img src="/root.png"></body>)",
                          Doc());
  CHECK(r.base.spec() == "https://static.test/v2/");
  CHECK(Urls(r) ==
        std::vector<std::string>{"https://static.test/v2/s.css", "https://static.test/root.png"});
}

TEST_CASE("scanner skips other schemes, bad URLs, templates and duplicates", "[page][scanner]") {
  ScanLimits limits;
  limits.max_url_length = 100;
  std::string long_path(200, 'x');
  ScanResult r = ScanHtml(R"(<body>
      <img src="data:image/png;base64,AAAA">
      <script src="javascript:void 0"></script>
      <img src="ftp://ftp.test/a.png">
      <img src="http://[::1">
      <img src="http://bad host/">
      <img src="/)" + long_path +
                              R"(">
      <img src="">
      <img src="  /spaced.png  ">
      <img src="/spaced.png">
      <img src="/t	ab.png">
      <script type="text/template" src="/tmpl.js"></script>
      <template><img src="/in-template.png"></template>
      <noscript><img src="/in-noscript.png"></noscript>
    </body>)",
                          Doc(), limits);
  CHECK(Urls(r) == std::vector<std::string>{"https://www.example.test/spaced.png",
                                            "https://www.example.test/tab.png"});
  CHECK(r.skipped_schemes == 3);
  CHECK(r.bad_urls == 3);
}

TEST_CASE("scanner recovers from malformed HTML", "[page][scanner]") {
  ScanResult r = ScanHtml(
      "<html><head><link rel=stylesheet href=a.css<script src=b.js>"
      "</div></span><img src=c.png <p><<<>>><img src='d.png'>",
      Doc());
  // Whatever gumbo recovered (an attribute value with '<' in it is not a URL), it never fails,
  // and well-formed parts after the mess are found.
  CHECK(r.bad_urls <= 1);
  CHECK(Find(r, "https://www.example.test/dir/d.png") != nullptr);
  ScanResult empty = ScanHtml("", Doc());
  CHECK(empty.subresources.empty());
  ScanResult binary = ScanHtml(std::string("\0\xff\xfe<img src=x.png>\0", 18), Doc());
  CHECK(binary.subresources.size() <= 1);
}

TEST_CASE("scanner bounds the document, the subresources and the hints", "[page][scanner]") {
  ScanLimits limits;
  limits.max_document_bytes = 1000;
  limits.max_subresources = 5;
  limits.max_hints = 2;
  std::string html = "<head>";
  for (int i = 0; i < 4; ++i)
    html += "<link rel=preconnect href=https://h" + std::to_string(i) + ".test>";
  html += "</head><body>";
  for (int i = 0; i < 10; ++i) html += "<img src=/" + std::to_string(i) + ".png>";
  ScanResult r = ScanHtml(html, Doc(), limits);
  CHECK(r.subresources.size() == 5);
  CHECK(r.subresources_dropped == 5);
  CHECK(r.hints.size() == 2);
  CHECK(r.hints_dropped == 2);
  CHECK_FALSE(r.document_truncated);

  // Past the size bound only the prefix is parsed.
  std::string big = "<body><img src=/first.png>" + std::string(2000, ' ') + "<img src=/late.png>";
  ScanResult cut = ScanHtml(big, Doc(), limits);
  CHECK(cut.document_truncated);
  CHECK(Urls(cut) == std::vector<std::string>{"https://www.example.test/first.png"});
}

TEST_CASE("scanner parses deep nesting up to its bound", "[page][scanner]") {
  // Each level costs the parser a walk of the open elements: 100000 levels would take minutes.
  std::string html = "<body><img src=/shallow.png>";
  for (int i = 0; i < 100000; ++i) html += "<div><span>";
  html += "<img src=/deep.png>";
  ScanResult r = ScanHtml(html, Doc());
  CHECK(r.nesting_truncated);
  CHECK_FALSE(r.document_truncated);
  CHECK(Urls(r) == std::vector<std::string>{"https://www.example.test/shallow.png"});

  // Closed elements, void and implicitly closed ones, and tags inside scripts add no depth.
  std::string flat = "<body><script>if (a<b) x='<div><div><div>';</script>";
  for (int i = 0; i < 2000; ++i)
    flat += "<div><p>text<li>item<br><img src=/i.png></div><!-- <div> -->";
  flat += "<img src=/last.png>";
  ScanLimits limits;
  limits.max_nesting_depth = 8;
  ScanResult ok = ScanHtml(flat, Doc(), limits);
  CHECK_FALSE(ok.nesting_truncated);
  CHECK(Urls(ok) == std::vector<std::string>{"https://www.example.test/i.png",
                                             "https://www.example.test/last.png"});
}

}  // namespace
}  // namespace netstack

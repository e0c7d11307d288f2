// The lab's site generator (tools/bench/lab_site_plan.h, lab_site_writer.h): the recording's
// structure kept (request counts per host, sizes, hosts, references), bounds, and bad inputs as
// one-line errors that leave nothing behind. No root, no lab: plain files.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tools/bench/lab_site_plan.h"
#include "tools/bench/lab_site_writer.h"
#include "tools/page/html_scanner.h"

namespace netstack {
namespace {

namespace fs = std::filesystem;

TraceEntry Entry(const std::string& url, const std::string& type, int64_t bytes, int parent,
                 const std::string& mime = "") {
  TraceEntry e;
  e.url = url;
  e.resource_type = type;
  e.response_body_bytes = bytes;
  e.parent = parent;
  if (!mime.empty()) e.response_headers.push_back({"Content-Type", mime});
  return e;
}

// A document on a.example, a stylesheet with a font, a script that loads an image (found by
// the script: no loader without JS sees it), images on a second host.
TracePage SamplePage() {
  TracePage page;
  page.id = "page_1";
  page.entries.push_back(Entry("https://a.example/", "document", 5000, -1, "text/html"));
  page.entries.push_back(Entry("https://a.example/s.css", "stylesheet", 3000, 0));
  page.entries.push_back(Entry("https://cdn.example/app.js", "script", 20000, 0));
  page.entries.push_back(Entry("https://cdn.example/x.jpg", "image", 700, 0, "image/jpeg"));
  page.entries.push_back(Entry("https://a.example/f.woff2", "font", 9000, 1));
  page.entries.push_back(Entry("https://cdn.example/late.png", "image", 100, 2));
  TraceEntry cached = Entry("https://a.example/c.png", "image", 50, 0);
  cached.recorded_from_cache = true;
  page.entries.push_back(cached);
  return page;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path TempDir(const std::string& tag) {
  fs::path p = fs::temp_directory_path() / ("lab_site_test_" + tag + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

TEST_CASE("lab site keeps request counts per host, sizes and host sharing") {
  LabSitePlan plan;
  std::string error;
  REQUIRE(PlanLabSite(SamplePage(), "t", LabSiteOptions(), &plan, &error));
  REQUIRE(plan.hosts.size() == 2);
  CHECK(plan.hosts[0].recorded == "a.example");
  CHECK(plan.hosts[0].lab == "h0.site1.lab");
  CHECK(plan.hosts[0].requests == 3);
  CHECK(plan.hosts[1].lab == "h1.site1.lab");
  CHECK(plan.hosts[1].requests == 3);
  REQUIRE(plan.files.size() == 6);
  CHECK(plan.omitted_cached == 1);
  CHECK(plan.files[0].url == "https://h0.site1.lab/");
  CHECK(plan.files[2].url == "https://h1.site1.lab/r2.js");
  CHECK(plan.files[3].extension == "jpg");
  CHECK(plan.files[4].extension == "woff2");
  for (size_t i = 0; i < plan.files.size(); ++i) {
    CHECK(plan.files[i].bytes == plan.files[i].recorded_bytes);
    CHECK(static_cast<int64_t>(LabSiteFileBody(plan, i).size()) == plan.files[i].bytes);
  }
  CHECK(LabSiteFileBody(plan, 2) == LabSiteFileBody(plan, 2));  // deterministic
}

TEST_CASE("lab site references follow the recorded dependencies a loader can follow") {
  LabSitePlan plan;
  std::string error;
  REQUIRE(PlanLabSite(SamplePage(), "t", LabSiteOptions(), &plan, &error));
  CHECK(plan.files[1].reference == LabSiteReference::kDocument);
  CHECK(plan.files[1].how == "link");
  CHECK(plan.files[4].reference == LabSiteReference::kStylesheet);
  CHECK(plan.files[4].referenced_from == 1);
  CHECK(plan.files[4].how == "css-background");
  CHECK(plan.files[5].reference == LabSiteReference::kDocumentFlat);  // the script's image
  // The document, scanned as netstack's page loader scans it, names exactly the requests
  // referenced from it; the font is in the stylesheet's url().
  const std::string html = LabSiteFileBody(plan, 0);
  Url base;
  std::string message;
  REQUIRE(Url::Parse(plan.files[0].url, &base, &message) == 0);
  const ScanResult scan = ScanHtml(html, base, ScanLimits());
  std::vector<std::string> found;
  for (const Subresource& s : scan.subresources) found.push_back(s.url.spec());
  CHECK(found == std::vector<std::string>{plan.files[1].url, plan.files[2].url, plan.files[3].url,
                                          plan.files[5].url});
  const std::string css = LabSiteFileBody(plan, 1);
  CHECK(css.find("url(\"" + plan.files[4].url + "\")") != std::string::npos);

  LabSiteOptions flat;
  flat.flat = true;
  REQUIRE(PlanLabSite(SamplePage(), "t", flat, &plan, &error));
  CHECK(plan.files[4].reference == LabSiteReference::kDocumentFlat);
  CHECK(plan.files[4].how == "img");
}

TEST_CASE("lab site grows a document whose references do not fit its recorded size") {
  TracePage page = SamplePage();
  page.entries[0].response_body_bytes = 10;
  LabSitePlan plan;
  std::string error;
  REQUIRE(PlanLabSite(page, "t", LabSiteOptions(), &plan, &error));
  CHECK(plan.files[0].bytes > 10);
  CHECK(static_cast<int64_t>(LabSiteFileBody(plan, 0).size()) == plan.files[0].bytes);
}

TEST_CASE("lab site refuses pages it cannot build and bounds, with one-line errors") {
  LabSitePlan plan;
  std::string error;
  CHECK_FALSE(PlanLabSite(TracePage(), "r.har: page 1", LabSiteOptions(), &plan, &error));
  CHECK(error == "r.har: page 1: the page has no requests");

  TracePage image_first;
  image_first.entries.push_back(Entry("https://a.example/i.png", "image", 10, -1));
  CHECK_FALSE(PlanLabSite(image_first, "r.har: page 1", LabSiteOptions(), &plan, &error));
  CHECK(error.rfind("r.har: page 1: the page's first request (image, status 200)", 0) == 0);

  LabSiteOptions few;
  few.max_files = 3;
  CHECK_FALSE(PlanLabSite(SamplePage(), "t", few, &plan, &error));
  CHECK(error == "t: more than 3 requests to generate (the bound on files)");

  LabSiteOptions small;
  small.max_file_bytes = 10000;
  CHECK_FALSE(PlanLabSite(SamplePage(), "t", small, &plan, &error));
  CHECK(error.find("request 2 (script) has 20000 bytes, over the bound of 10000") !=
        std::string::npos);

  LabSiteOptions total;
  total.max_site_bytes = 30000;
  CHECK_FALSE(PlanLabSite(SamplePage(), "t", total, &plan, &error));
  CHECK(error == "t: the site would hold over 30000 bytes (the bound on a site)");
  CHECK(error.find('\n') == std::string::npos);
}

TEST_CASE("lab site redirects lead to the document they end at") {
  TracePage page;
  TraceEntry redirect = Entry("http://a.example/", "document", 0, -1);
  redirect.status = 301;
  page.entries.push_back(redirect);
  page.entries.push_back(Entry("https://www.a.example/", "document", 900, 0, "text/html"));
  page.entries.push_back(Entry("https://www.a.example/i.gif", "image", 30, 1, "image/gif"));
  LabSitePlan plan;
  std::string error;
  REQUIRE(PlanLabSite(page, "t", LabSiteOptions(), &plan, &error));
  REQUIRE(plan.files.size() == 2);
  CHECK(plan.files[0].recorded_url == "https://www.a.example/");
  CHECK(plan.files[1].reference == LabSiteReference::kDocument);
  CHECK(plan.omitted_status == 1);
}

TEST_CASE("lab site writes the layout and the manifest, and never overwrites") {
  const fs::path dir = TempDir("w");
  const fs::path site = dir / "site";
  const std::string manifest = (dir / "site.manifest.json").string();
  fs::create_directories(dir);
  LabSitePlan plan;
  std::string error;
  REQUIRE(PlanLabSite(SamplePage(), "t", LabSiteOptions(), &plan, &error));
  REQUIRE(WriteLabSite(plan, "t", 1, site.string(), manifest, &error));
  CHECK(fs::file_size(site / "h0.site1.lab" / "index.html") == 5000);
  CHECK(fs::file_size(site / "h1.site1.lab" / "r2.js") == 20000);
  CHECK(ReadAll(site / "h0.site1.lab" / "r1.css") == LabSiteFileBody(plan, 1));
  const nlohmann::json m = nlohmann::json::parse(ReadAll(manifest));
  CHECK(m["files"].size() == 6);
  CHECK(m["files"][5]["recorded_url"] == "https://cdn.example/late.png");
  CHECK(m["files"][5]["reference"] == "document-flattened");
  CHECK(m["omitted"]["cached"] == 1);

  // Again onto the same folder: refused, and what is there stays as it was.
  CHECK_FALSE(WriteLabSite(plan, "t", 1, site.string(), (dir / "other.json").string(), &error));
  CHECK(error == site.string() + ": exists and is not an empty folder (not overwritten)");
  CHECK_FALSE(fs::exists(dir / "other.json"));
  // A folder that cannot be created: nothing left behind.
  const fs::path blocked = dir / "file";
  std::ofstream(blocked) << "x";
  CHECK_FALSE(
      WriteLabSite(plan, "t", 1, (blocked / "site").string(), (dir / "m2.json").string(), &error));
  CHECK(error.find("cannot create") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "m2.json"));
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += e.path().filename() != "" ? 1 : 0;
  CHECK(entries == 3);  // site, site.manifest.json, file
  fs::remove_all(dir);
}

}  // namespace
}  // namespace netstack

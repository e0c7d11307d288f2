#include "tools/replay/gen/har_session.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "net/base/net_error.h"
#include "net/base/url.h"
#include "tools/replay/gen/synthetic_random.h"
#include "tools/replay/trace/host_protocol.h"
#include "tools/replay/trace/recording_reader.h"

namespace netstack {
namespace {

std::string JsonString(const std::string& s) { return nlohmann::json(s).dump(); }

// True if `s` can be written as a JSON string on one line: valid UTF-8 (nlohmann's strict dump
// checks it) without control characters.
bool IsJsonText(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  try {
    JsonString(s);
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

struct HarSite {
  std::string path;  // as written in the session
  std::string name;  // what the user types
  std::vector<std::string> ids, urls;
  std::vector<uint64_t> entries;
};

class HarCatalog : public PageCatalog {
 public:
  HarCatalog(std::vector<HarSite> sites, HostProtocols hosts)
      : sites_(std::move(sites)), hosts_(std::move(hosts)), defined_(sites_.size()) {
    for (size_t i = 0; i < sites_.size(); ++i) defined_[i].assign(sites_[i].ids.size(), false);
  }
  int sites() const override { return static_cast<int>(sites_.size()); }
  int pages(int site) const override { return static_cast<int>(sites_[site].ids.size()); }
  std::string Url(int site, int page) const override { return sites_[site].urls[page]; }
  std::string Name(int site) const override { return sites_[site].name; }
  uint64_t pages_defined() const override { return pages_defined_; }
  void AppendHosts(std::string* out) const override {
    for (const auto& [host, protocol] : hosts_) {
      *out += "{\"type\":\"host\",\"host\":" + JsonString(host) + ",\"protocol\":\"" +
              TraceProtocolName(protocol) + "\"}\n";
    }
  }
  uint64_t AppendNavigate(int site, int page, int64_t t, uint64_t, std::string* out) override {
    const HarSite& s = sites_[site];
    std::string id = "h" + std::to_string(site) + "p" + std::to_string(page);
    if (!defined_[site][page]) {
      defined_[site][page] = true;
      ++pages_defined_;
      *out += "{\"type\":\"page\",\"id\":\"" + id + "\",\"har\":" + JsonString(s.path) +
              ",\"page\":" + JsonString(s.ids[page]) + "}\n";
    }
    *out += "{\"type\":\"navigate\",\"t\":" + std::to_string(t) + ",\"page\":\"" + id + "\"}\n";
    return s.entries[page];
  }

 private:
  std::vector<HarSite> sites_;
  HostProtocols hosts_;  // what the HAR files recorded, by majority over all of them
  std::vector<std::vector<bool>> defined_;
  uint64_t pages_defined_ = 0;
};

// `path` as the session (in `dir`) should name it: relative when it can be.
std::string PathFrom(const std::string& dir, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return path;
  fs::path base = fs::absolute(dir.empty() ? fs::path(".") : fs::path(dir), ec);
  if (ec) return absolute.string();
  fs::path relative = fs::relative(absolute, base, ec);
  return ec || relative.empty() ? absolute.string() : relative.string();
}

}  // namespace

std::string HarSessionOptions::Describe() const {
  std::string out = "--har";
  for (const std::string& h : hars) out += " " + h;
  out += " --seed " + std::to_string(behavior.seed) + " --pages " + std::to_string(behavior.pages);
  char think[32];
  std::snprintf(think, sizeof(think), "%g", behavior.think_median_s);
  out += std::string(" --think-s ") + think + behavior.Describe();
  return out;
}

bool WriteHarSession(const HarSessionOptions& options, std::FILE* out, SessionStats* stats,
                     std::string* error) {
  SessionStats local;
  if (!stats) stats = &local;
  *stats = {};
  if (options.hars.empty()) {
    *error = "--har: give at least one HAR file";
    return false;
  }
  if (options.behavior.requests != 0) {
    *error = "--requests works with --synthetic only (give --pages N)";
    return false;
  }
  if (!options.behavior.Validate(error)) return false;
  std::vector<HarSite> sites;
  HostProtocolTally protocols;
  for (const std::string& path : options.hars) {
    HarFile har;
    if (!ReadRecordingFile(path, &har, error)) return false;
    protocols.AddPages(har.pages);
    HarSite site;
    site.path = PathFrom(options.output_dir, path);
    if (!IsJsonText(site.path)) {
      // The session names the file in JSON (and the comment line): a byte that is not UTF-8
      // would make nlohmann's dump throw, a newline would split the line.
      *error = path + ": a HAR path must be UTF-8 text without control characters";
      return false;
    }
    for (const TracePage& page : har.pages) {
      if (page.entries.empty()) continue;
      site.ids.push_back(page.id);
      site.urls.push_back(page.entries[0].url);
      site.entries.push_back(page.entries.size());
    }
    if (site.ids.empty()) {
      *error = path + ": no page with entries";
      return false;
    }
    Url url;
    std::string message;
    if (Url::Parse(site.urls[0], &url, &message) != OK) {
      *error = path + ": the first page's URL does not parse: " + message;
      return false;
    }
    site.name = url.host();
    if (site.name.rfind("www.", 0) == 0) site.name = site.name.substr(4);
    sites.push_back(std::move(site));
  }
  // Each seed's user has its own favourite sites (Fisher-Yates, seeded).
  SyntheticRandom rng(SyntheticHash(options.behavior.seed, "har-order"));
  for (size_t i = sites.size(); i > 1; --i)
    std::swap(sites[i - 1],
              sites[static_cast<size_t>(rng.Between(0, static_cast<int64_t>(i) - 1))]);
  HarCatalog catalog(std::move(sites), protocols.Result());

  return WriteSessionFile(options.behavior, options.Describe(), &catalog, out, stats, error);
}

}  // namespace netstack

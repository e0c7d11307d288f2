#include "tools/replay/gen/session_behavior.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include "tools/replay/gen/synthetic_random.h"

namespace netstack {
namespace {

constexpr int64_t kHourMs = 3'600'000;

std::string Str(int64_t v) { return std::to_string(v); }

// JSON string contents: the catalog's URLs and names are plain ASCII, but a HAR's URL may
// carry anything.
std::string JsonEscape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

class UserModel {
 public:
  UserModel(const BehaviorOptions& options, PageCatalog* catalog)
      : options_(options),
        catalog_(catalog),
        visit_rng_(SyntheticHash(options.seed, "session")),
        user_rng_(SyntheticHash(options.seed, "behavior")),
        sites_(ZipfCumulative(catalog->sites())),
        inner_(static_cast<size_t>(catalog->sites())),
        visits_(static_cast<size_t>(catalog->sites()), 0) {}

  // The next page by popularity (the model before user events: same draws).
  void PickPage(int* site, int* page) {
    *site = static_cast<int>(visit_rng_.Pick(sites_));
    int pages = catalog_->pages(*site);
    std::vector<double>& inner = inner_[static_cast<size_t>(*site)];
    if (pages > 1 && inner.empty()) inner = ZipfCumulative(pages - 1);
    *page =
        pages == 1 || visit_rng_.Chance(0.35) ? 0 : 1 + static_cast<int>(visit_rng_.Pick(inner));
  }

  int64_t Think() {
    return std::llround(visit_rng_.LogNormal(options_.think_median_s * 1000, 1.0, 1000, 1'800'000));
  }

  // The omnibox's suggestion for `text`: the most visited site whose name starts with it, else
  // the most popular such site, else what was typed.
  std::string Suggest(const std::string& text) const {
    int best = -1, popular = -1;
    for (int s = 0; s < catalog_->sites(); ++s) {
      if (catalog_->Name(s).compare(0, text.size(), text) != 0) continue;
      if (popular < 0) popular = s;
      if (visits_[static_cast<size_t>(s)] > 0 &&
          (best < 0 || visits_[static_cast<size_t>(s)] > visits_[static_cast<size_t>(best)]))
        best = s;
    }
    if (best >= 0) return catalog_->Url(best, 0);
    if (popular >= 0) return catalog_->Url(popular, 0);
    std::string host = text;
    while (!host.empty() && (host.back() == '.' || host.back() == '-')) host.pop_back();
    return "https://" + (host.empty() ? std::string("x") : host) + "/";
  }

  bool Run(std::string* out, BehaviorStats* stats, const std::function<bool(std::string*)>& flush);

 private:
  struct Timed {
    int64_t lead_ms;  // before the navigation
    std::string line;
  };
  bool Budget(const BehaviorStats& stats) const {
    return (options_.pages == 0 || stats.navigations < options_.pages) &&
           (options_.requests == 0 || stats.requests < options_.requests);
  }

  const BehaviorOptions& options_;
  PageCatalog* catalog_;
  SyntheticRandom visit_rng_, user_rng_;
  std::vector<double> sites_;
  std::vector<std::vector<double>> inner_;
  std::vector<uint32_t> visits_;
};

bool UserModel::Run(std::string* out, BehaviorStats* stats,
                    const std::function<bool(std::string*)>& flush) {
  *out += "{\"type\":\"startup\",\"t\":0}\n";
  ++stats->startups;
  const int routine = std::min(options_.routine_sites, catalog_->sites());
  int64_t t = 0;
  int64_t earliest = 0;  // no event before this (the last navigation's time)
  int day_navigations = 0, current_site = -1;
  bool first = true;
  while (Budget(*stats)) {
    int site = 0, page = 0;
    bool typed = false;
    std::vector<Timed> before;  // the events that lead to this navigation, earliest first
    if (!options_.user_events) {
      PickPage(&site, &page);
    } else {
      if (day_navigations == 0) {
        if (!first) {
          *out += "{\"type\":\"startup\",\"t\":" + Str(t) + "}\n";
          ++stats->startups;
        }
        earliest = t;
        t += user_rng_.Between(1000, 5000);  // the browser window comes up
      }
      if (day_navigations < routine) {
        site = day_navigations;
        page = 0;
        typed = true;
      } else {
        PickPage(&site, &page);
        typed = site != current_site && user_rng_.Chance(0.6);
        if (typed) page = 0;
      }
      const std::string target = catalog_->Url(site, page);
      if (typed) {
        const std::string name = catalog_->Name(site);
        std::vector<std::pair<int64_t, std::string>> keys;  // (time since the first key, line)
        int64_t at = 0;
        for (size_t k = 1; k <= name.size(); ++k) {
          if (k > 1) at += user_rng_.Between(150, 250);
          std::string text = name.substr(0, k);
          std::string suggestion = Suggest(text);
          keys.push_back({at, "{\"type\":\"omnibox\",\"t\":%T,\"text\":\"" + JsonEscape(text) +
                                  "\",\"url\":\"" + JsonEscape(suggestion) + "\"}\n"});
          if (k >= 2 && suggestion == target) break;
        }
        int64_t enter = user_rng_.Between(150, 400);
        int64_t lead = at + enter;
        for (auto& [key_at, line] : keys) before.push_back({lead - key_at, line});
        stats->omnibox += keys.size();
      } else {
        int64_t hover = std::llround(user_rng_.LogNormal(200, 0.4, 50, 1000));
        double stray = options_.stray_hover / (1 - options_.stray_hover);
        if (user_rng_.Chance(stray)) {
          int other = static_cast<int>(user_rng_.Between(0, catalog_->sites() - 1));
          int other_page = static_cast<int>(user_rng_.Between(0, catalog_->pages(other) - 1));
          before.push_back({hover + user_rng_.Between(300, 3000),
                            "{\"type\":\"hover\",\"t\":%T,\"url\":\"" +
                                JsonEscape(catalog_->Url(other, other_page)) + "\"}\n"});
          ++stats->hovers;
        }
        before.push_back(
            {hover, "{\"type\":\"hover\",\"t\":%T,\"url\":\"" + JsonEscape(target) + "\"}\n"});
        ++stats->hovers;
      }
    }
    // Room for the lead events after the previous navigation.
    int64_t lead = before.empty() ? 0 : before.front().lead_ms;
    if (!before.empty() && t - lead < earliest) t = earliest + lead;
    for (const Timed& e : before) {
      std::string line = e.line;
      line.replace(line.find("%T"), 2, Str(t - e.lead_ms));
      *out += line;
    }
    uint64_t budget = options_.requests ? options_.requests - stats->requests : 0;
    stats->requests += catalog_->AppendNavigate(site, page, t, budget, out);
    *out += "{\"type\":\"wait\",\"t\":" + Str(t) + "}\n";
    ++stats->navigations;
    ++visits_[static_cast<size_t>(site)];
    current_site = site;
    earliest = t;
    first = false;
    if (options_.user_events && ++day_navigations >= options_.day_pages) {
      day_navigations = 0;
      current_site = -1;
      t += user_rng_.Between(8 * kHourMs, 16 * kHourMs);  // the night
    } else {
      t += Think();
    }
    if (!flush(out)) return false;
  }
  return true;
}

}  // namespace

std::string BehaviorOptions::Describe() const {
  if (!user_events) return " --no-user-events";
  char stray[32];
  std::snprintf(stray, sizeof(stray), "%g", stray_hover);
  return " --day-pages " + Str(day_pages) + " --routine-sites " + Str(routine_sites) +
         " --stray-hover " + stray;
}

bool BehaviorOptions::Validate(std::string* error) const {
  if (pages == 0 && requests == 0) {
    *error = "give --pages N or --requests N (a positive count)";
  } else if (pages > kMaxPages) {
    *error = "--pages: " + std::to_string(pages) + " is out of range (1 to " +
             std::to_string(kMaxPages) + ")";
  } else if (requests > kMaxRequests) {
    *error = "--requests: " + std::to_string(requests) + " is out of range (1 to " +
             std::to_string(kMaxRequests) + ")";
  } else if (!(think_median_s > 0) || think_median_s > 3600) {
    *error = "--think-s: must be above 0 and at most 3600";
  } else if (day_pages < 1 || day_pages > kMaxDayPages) {
    *error = "--day-pages: " + Str(day_pages) + " is out of range (1 to " + Str(kMaxDayPages) + ")";
  } else if (routine_sites < 0 || routine_sites > kMaxRoutineSites) {
    *error = "--routine-sites: " + Str(routine_sites) + " is out of range (0 to " +
             Str(kMaxRoutineSites) + ")";
  } else if (!(stray_hover >= 0) || stray_hover > 0.9) {
    *error = "--stray-hover: must be from 0 to 0.9";
  } else {
    return true;
  }
  return false;
}

bool WriteBehaviorEvents(const BehaviorOptions& options, PageCatalog* catalog, std::string* out,
                         BehaviorStats* stats, const std::function<bool(std::string*)>& flush) {
  *stats = {};
  UserModel model(options, catalog);
  return model.Run(out, stats, flush);
}

bool WriteSessionFile(const BehaviorOptions& options, const std::string& description,
                      PageCatalog* catalog, std::FILE* out, SessionStats* stats,
                      std::string* error) {
  constexpr size_t kFlushBytes = 1 << 16;
  bool ok = true;
  auto write = [&](std::string* text, bool force) {
    if (!ok || (!force && text->size() < kFlushBytes)) return ok;
    if (!text->empty() && std::fwrite(text->data(), 1, text->size(), out) != text->size()) {
      ok = false;
      *error = std::string("write error: ") + std::strerror(errno);
    }
    stats->bytes_written += text->size();
    text->clear();
    return ok;
  };
  std::string buffer = "# netstack gen-session " + description + "\n";
  catalog->AppendHosts(&buffer);
  BehaviorStats behavior;
  WriteBehaviorEvents(options, catalog, &buffer, &behavior,
                      [&](std::string* text) { return write(text, false); });
  write(&buffer, true);
  stats->navigations = behavior.navigations;
  stats->requests = behavior.requests;
  stats->pages_defined = catalog->pages_defined();
  stats->behavior = behavior;
  if (ok && std::fflush(out) != 0) {
    ok = false;
    *error = std::string("write error: ") + std::strerror(errno);
  }
  return ok;
}

}  // namespace netstack

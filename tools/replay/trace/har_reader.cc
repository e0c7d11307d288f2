#include "tools/replay/trace/har_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "tools/replay/trace/dependency_inference.h"
#include "tools/replay/trace/har_browser_state.h"
#include "tools/replay/trace/har_date.h"
#include "tools/replay/trace/har_entry.h"
#include "tools/replay/trace/har_stream.h"
#include "tools/replay/trace/trace_file.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {

constexpr uint64_t kMaxHarBytes = 512ull << 20;
constexpr size_t kMaxHarEntries = 100'000;
constexpr size_t kMaxHarPages = 10'000;
constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct PageBuild {
  TracePage page;
  HarPageState state;  // filled by ReadPages (run) and FinishPage (per entry)
  bool has_declared_start = false;
  double declared_start = 0;  // the page's startedDateTime, ms since the epoch
  std::vector<HarReadEntry> entries;
};

std::string_view StripBom(std::string_view text) {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

bool ReadPages(const nlohmann::json& pages, const std::string& name, std::vector<PageBuild>* out,
               std::string* error) {
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < pages.size(); ++i) {
    JsonFields fields(pages[i], "log.pages[" + std::to_string(i) + "]");
    PageBuild build;
    std::string started;
    fields.String("id", &build.page.id, /*required=*/true);
    fields.String("title", &build.page.title);
    bool has_started = fields.String("startedDateTime", &started);
    // WebPageTest's run number, read leniently (another type means "not said").
    const nlohmann::json* run = fields.Get("_run");
    if (run && run->is_number_integer() && run->get<int64_t>() >= 0)
      build.state.run = run->get<int64_t>();
    const nlohmann::json* timings = fields.Object("pageTimings");
    if (timings) {
      JsonFields page_timings(*timings, fields.PathOf("pageTimings"));
      page_timings.Number("onContentLoad", &build.page.recorded_content_load_ms);
      page_timings.Number("onLoad", &build.page.recorded_onload_ms);
      if (!page_timings.ok()) {
        *error = name + ": " + page_timings.error();
        return false;
      }
    }
    if (!fields.ok()) {
      *error = name + ": " + fields.error();
      return false;
    }
    if (has_started) {
      if (!ParseIso8601(started, &build.declared_start)) {
        *error = name + ": " + fields.PathOf("startedDateTime") + ": '" + started.substr(0, 64) +
                 "' is not an ISO 8601 date";
        return false;
      }
      build.has_declared_start = true;
    }
    if (!seen.emplace(build.page.id, i).second) {
      *error = name + ": " + fields.PathOf("id") + ": page id '" + build.page.id.substr(0, 64) +
               "' is already used by log.pages[" + std::to_string(seen[build.page.id]) + "]";
      return false;
    }
    out->push_back(std::move(build));
  }
  return true;
}

// The page an entry without a (known) pageref belongs to: the latest page that started at or
// before it, else the first.
size_t PageForOrphan(const std::vector<PageBuild>& pages, double start_epoch_ms) {
  size_t best = 0;
  double best_start = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < pages.size(); ++i) {
    if (pages[i].has_declared_start && pages[i].declared_start <= start_epoch_ms &&
        pages[i].declared_start > best_start) {
      best = i;
      best_start = pages[i].declared_start;
    }
  }
  return best;
}

// Sorts a page's entries by start, makes times relative to the first, and infers dependencies.
void FinishPage(PageBuild* build, const std::string& name) {
  std::stable_sort(build->entries.begin(), build->entries.end(),
                   [](const HarReadEntry& a, const HarReadEntry& b) {
                     return a.extras.start_epoch_ms < b.extras.start_epoch_ms;
                   });
  TracePage& page = build->page;
  double start = build->entries.front().extras.start_epoch_ms;
  page.started_epoch_ms = static_cast<int64_t>(std::floor(start));
  // pageTimings count from the page's own startedDateTime; entries count from the first entry.
  double shift = build->has_declared_start ? build->declared_start - start : 0;
  for (double* t : {&page.recorded_content_load_ms, &page.recorded_onload_ms}) {
    *t = *t < 0 ? -1 : std::max(0.0, *t + shift);
  }
  std::vector<DependencyHints> hints;
  hints.reserve(build->entries.size());
  page.entries.reserve(build->entries.size());
  build->state.connection_reused.reserve(build->entries.size());
  for (HarReadEntry& read : build->entries) {
    read.entry.start_ms = read.extras.start_epoch_ms - start;
    page.entries.push_back(std::move(read.entry));
    hints.push_back(std::move(read.extras.hints));
    build->state.connection_reused.push_back(read.extras.connection_reused);
  }
  build->entries.clear();
  InferDependencies(&page.entries, hints);
  if (page.title.empty()) page.title = page.entries.front().url;
  page.source = name + "#" + page.id;
}

// Builds `out` from a parsed document (see ParseHar); errors may still hold control
// characters.
bool BuildHar(HarStream& stream, const std::string& name, HarFile* out, std::string* error);

// "name:line:column: JSON syntax error: message".
std::string SyntaxErrorMessage(const std::string& name, const JsonSyntaxError& syntax) {
  if (syntax.line == 0) return name + ": JSON syntax error: " + syntax.message;
  return name + ":" + std::to_string(syntax.line) + ":" + std::to_string(syntax.column) +
         ": JSON syntax error: " + syntax.message;
}

}  // namespace

bool ParseHar(std::string_view text, const std::string& name, HarFile* out, std::string* error) {
  *out = HarFile();
  text = StripBom(text);
  if (text.size() > kMaxHarBytes) {
    *error = name + ": larger than the limit of " + FormatByteLimit(kMaxHarBytes);
    return false;
  }
  HarStream stream;
  JsonSyntaxError syntax;
  if (!StreamHarText(text, kMaxHarEntries, &stream, &syntax)) {
    *error = SyntaxErrorMessage(name, syntax);
  } else if (BuildHar(stream, name, out, error)) {
    return true;
  }
  *out = HarFile();
  MakeOneLine(error);
  return false;
}

bool ReadHarFile(const std::string& path, HarFile* out, std::string* error) {
  *out = HarFile();
  HarStream stream;
  JsonSyntaxError syntax;
  std::string problem;
  if (!StreamHarFile(path, kMaxHarBytes, kMaxHarEntries, &stream, &syntax, &problem)) {
    *error = problem.empty() ? SyntaxErrorMessage(path, syntax) : path + ": " + problem;
  } else if (BuildHar(stream, path, out, error)) {
    return true;
  }
  *out = HarFile();
  MakeOneLine(error);
  return false;
}

namespace {

// Counts a skipped entry on its page.
void CountSkipped(const HarSkippedEntry& skipped, const std::string& name, TracePage* page) {
  ++page->skipped_entries;
  switch (skipped.reason) {
    case HarSkipReason::kNotHttp:
      ++page->skipped_not_http;
      break;
    case HarSkipReason::kInvalidUrl:
      ++page->skipped_invalid_url;
      if (page->first_invalid_url.empty()) page->first_invalid_url = name + ": " + skipped.detail;
      break;
    case HarSkipReason::kUnfinished:
      ++page->skipped_unfinished;
      break;
    case HarSkipReason::kNoResponse:
    case HarSkipReason::kNone:
      ++page->skipped_no_response;
      break;
  }
}

// Adds `from`'s skipped counts to `to` (a page whose every entry was skipped is not replayed;
// its counts go to a neighbour so that the replay still reports them).
void MoveSkipped(const TracePage& from, TracePage* to) {
  to->skipped_entries += from.skipped_entries;
  to->skipped_not_http += from.skipped_not_http;
  to->skipped_invalid_url += from.skipped_invalid_url;
  to->skipped_no_response += from.skipped_no_response;
  to->skipped_unfinished += from.skipped_unfinished;
  if (to->first_invalid_url.empty()) to->first_invalid_url = from.first_invalid_url;
}

// Clears the connection ids that HAR's "connection" gave when every one of them is its entry's
// port (Firefox writes the port there, not a connection: all of a host's entries would share
// one id). WebPageTest's "_socket" ids are kept.
void DropPortConnectionIds(std::vector<HarReadEntry>* entries) {
  bool any = false;
  for (const HarReadEntry& read : *entries) {
    if (!read.extras.connection_is_port && read.extras.connection_named) return;
    any |= read.extras.connection_is_port;
  }
  if (!any) return;
  for (HarReadEntry& read : *entries) {
    if (read.extras.connection_is_port) read.entry.connection_id.clear();
  }
}

bool BuildHar(HarStream& stream, const std::string& name, HarFile* out, std::string* error) {
  const nlohmann::json& doc = stream.doc;
  if (!doc.is_object()) {
    *error = name + ": expected a JSON object with \"log\", got " + JsonTypeName(doc);
    return false;
  }
  JsonFields root(doc, "");
  const nlohmann::json* log = root.Object("log", /*required=*/true);
  if (!root.ok()) {
    *error = name + ": " + root.error();
    return false;
  }
  JsonFields log_fields(*log, "log");
  const nlohmann::json* creator = log_fields.Object("creator");
  const nlohmann::json* pages_json = log_fields.Array("pages");
  log_fields.Array("entries", /*required=*/true);
  if (creator) {
    JsonFields creator_fields(*creator, "log.creator");
    creator_fields.String("name", &out->creator);
    if (!creator_fields.ok()) {
      *error = name + ": " + creator_fields.error();
      return false;
    }
  }
  if (!log_fields.ok()) {
    *error = name + ": " + log_fields.error();
    return false;
  }
  if (pages_json && pages_json->size() > kMaxHarPages) {
    *error = name + ": log.pages: " + std::to_string(pages_json->size()) +
             " pages, more than the limit of " + std::to_string(kMaxHarPages);
    return false;
  }
  if (stream.entry_count > kMaxHarEntries) {
    *error = name + ": log.entries: " + std::to_string(stream.entry_count) +
             " entries, more than the limit of " + std::to_string(kMaxHarEntries);
    return false;
  }

  std::vector<PageBuild> pages;
  if (pages_json && !ReadPages(*pages_json, name, &pages, error)) return false;
  if (!stream.entry_error.empty()) {
    *error = name + ": " + stream.entry_error;
    return false;
  }
  std::map<std::string, size_t> page_by_id;
  for (size_t i = 0; i < pages.size(); ++i) page_by_id[pages[i].page.id] = i;
  bool made_page = pages.empty();
  if (made_page) {
    pages.emplace_back();
    pages.back().page.id = "(no page)";
  }
  auto page_for = [&](const std::string& pageref, double start_epoch_ms) -> size_t {
    auto it = page_by_id.find(pageref);
    if (it != page_by_id.end()) return it->second;
    return made_page ? 0 : PageForOrphan(pages, start_epoch_ms);
  };
  DropPortConnectionIds(&stream.entries);
  for (HarReadEntry& read : stream.entries) {
    size_t page_index = page_for(read.extras.pageref, read.extras.start_epoch_ms);
    pages[page_index].entries.push_back(std::move(read));
  }
  for (const HarSkippedEntry& skipped : stream.skipped) {
    CountSkipped(skipped, name, &pages[page_for(skipped.pageref, skipped.start_epoch_ms)].page);
  }
  stream.entries.clear();
  stream.skipped.clear();

  // Pages with something to replay, by start; the counts of pages with only skipped entries
  // go to the next such page in file order (or the last).
  std::vector<std::pair<double, size_t>> order;  // page start, index
  TracePage carried;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (pages[i].entries.empty()) {
      MoveSkipped(pages[i].page, &carried);
      continue;
    }
    MoveSkipped(carried, &pages[i].page);
    carried = TracePage();
    FinishPage(&pages[i], name);
    order.emplace_back(static_cast<double>(pages[i].page.started_epoch_ms), i);
  }
  if (carried.skipped_entries > 0) {
    if (order.empty()) {
      *error = name + ": no entry can be replayed: " + std::to_string(carried.skipped_entries) +
               " skipped (" + std::to_string(carried.skipped_not_http) + " not http(s), " +
               std::to_string(carried.skipped_invalid_url) + " invalid URL, " +
               std::to_string(carried.skipped_no_response) + " never answered" +
               (carried.skipped_unfinished > 0
                    ? ", " + std::to_string(carried.skipped_unfinished) + " never finished"
                    : std::string()) +
               ")";
      if (!carried.first_invalid_url.empty()) {
        *error += "; the first invalid URL: " + carried.first_invalid_url.substr(name.size() + 2);
      }
      return false;
    }
    MoveSkipped(carried, &pages[order.back().second].page);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  out->pages.reserve(order.size());
  std::vector<HarPageState> states;
  states.reserve(order.size());
  for (const auto& [start, index] : order) {
    out->pages.push_back(std::move(pages[index].page));
    states.push_back(std::move(pages[index].state));
  }
  MarkNewRuns(&out->pages, states);
  MarkWarmConnections(&out->pages, states);
  return true;
}

}  // namespace

bool LooksLikeHar(std::string_view text_start) {
  std::string_view text = StripBom(text_start);
  size_t pos = text.find_first_not_of(" \t\r\n");
  if (pos == std::string_view::npos || text[pos] != '{') return false;
  ++pos;
  size_t line_end = text.find('\n', pos);
  std::string_view first_line = text.substr(
      pos, line_end == std::string_view::npos ? std::string_view::npos : line_end - pos);
  // A pretty-printed object: "{" alone on its line. Session events are one line each.
  if (first_line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
  // A one-line HAR: a "log" member.
  for (size_t at = first_line.find("\"log\""); at != std::string_view::npos;
       at = first_line.find("\"log\"", at + 1)) {
    size_t after = first_line.find_first_not_of(" \t", at + 5);
    if (after != std::string_view::npos && first_line[after] == ':') return true;
  }
  return false;
}

}  // namespace netstack

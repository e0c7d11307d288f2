#include "tools/replay/trace/session_reader.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <unordered_map>

#include "net/base/url.h"
#include "tools/replay/trace/recording_reader.h"
#include "tools/replay/trace/session_har_cache.h"
#include "tools/replay/trace/session_line_reader.h"
#include "tools/replay/trace/session_page.h"
#include "tools/replay/trace/trace_file.h"
#include "tools/replay/trace/trace_json.h"

namespace netstack {

namespace {

constexpr size_t kMaxLineBytes = 16u << 20;
constexpr size_t kMaxDefinedPages = 10'000;
constexpr size_t kMaxCachedHarFiles = 64;
constexpr uint64_t kMaxCachedHarBytes = 256ull << 20;
constexpr size_t kMaxPageIdLength = 256;
// About 31.7 years. Not kMaxTraceMs (115 days, a bound on one recorded page): a synthetic
// session of a million requests with think times spans longer than that (replay-bench's
// 1M trace reaches about 2.5e10 ms). In microseconds it stays far inside TimeTicks' int64.
constexpr double kMaxEventMs = 1e12;
// Defined pages are held for the whole session (a navigation may name them at any time), so
// their memory is bounded on its own, apart from the HAR cache: a page taken from a HAR file
// stays alive here after its file leaves the cache.
constexpr uint64_t kMaxDefinedPageBytes = 256ull << 20;

uint64_t HeaderBytes(const HeaderList& headers) {
  uint64_t bytes = headers.capacity() * sizeof(headers[0]);
  for (const auto& [name, value] : headers) bytes += name.capacity() + value.capacity();
  return bytes;
}

// The memory `page` holds (its entries and their strings), near enough for a bound.
uint64_t PageBytes(const TracePage& page) {
  uint64_t bytes = sizeof(TracePage) + page.id.capacity() + page.title.capacity() +
                   page.source.capacity() + page.entries.capacity() * sizeof(TraceEntry);
  for (const TraceEntry& e : page.entries) {
    bytes += e.url.capacity() + e.method.capacity() + e.status_text.capacity() +
             e.resource_type.capacity() + e.http_version.capacity() + e.initiator_url.capacity() +
             HeaderBytes(e.request_headers) + HeaderBytes(e.response_headers);
  }
  return bytes;
}
constexpr uint64_t kSniffBytes = 64 * 1024;
constexpr uint64_t kMaxHarBytes = 512ull << 20;

class SessionSource : public TraceSource {
 public:
  SessionSource(std::unique_ptr<std::istream> in, std::string prefix, std::string name,
                std::string base_dir)
      : reader_(std::move(in), std::move(prefix), kMaxLineBytes),
        name_(std::move(name)),
        base_dir_(std::move(base_dir)),
        har_cache_(kMaxCachedHarFiles, kMaxCachedHarBytes) {}

  bool Next(SessionEvent* event, std::string* error) override {
    std::string_view line;
    while (!done_ && NextLine(&line, error)) {
      bool produced = false;
      std::string problem;
      if (!HandleLine(line, event, &produced, &problem)) return Fail(error, problem);
      if (produced) return true;
    }
    return false;
  }

  bool ReadHostProtocols(HostProtocols* out, std::string* error) override {
    std::string_view line;
    std::string failure;
    while (!done_ && !has_pending_ && !seen_other_line_ && NextLine(&line, &failure)) {
      nlohmann::json json;
      JsonSyntaxError syntax;
      if (!ParseJsonText(line, &json, &syntax) || !json.is_object() ||
          json.value("type", nlohmann::json()) != "host") {
        // Not a host line: Next reads it (and reports what is wrong with it).
        pending_.assign(line);
        has_pending_ = true;
        break;
      }
      std::string problem;
      if (!ParseSessionHostLine(json, &hosts_, &problem)) return Fail(error, problem);
    }
    if (!failure.empty()) {
      *error = failure;
      return false;
    }
    *out = hosts_;
    return true;
  }

  const std::string& name() const override { return name_; }

 private:
  std::string Where() const { return name_ + ":" + std::to_string(reader_.line_number()); }

  // The next line that is neither blank nor a comment (the one ReadHostProtocols kept first):
  // true with `line` set; false at the end (`error` empty, done_ set) or on a read error.
  bool NextLine(std::string_view* line, std::string* error) {
    if (has_pending_) {
      has_pending_ = false;
      *line = pending_;
      return true;
    }
    while (true) {
      switch (reader_.Next(line)) {
        case SessionLineReader::Result::kEnd:
          done_ = true;
          return false;
        case SessionLineReader::Result::kTooLong:
          return Fail(error, "line longer than the limit of " + FormatByteLimit(kMaxLineBytes));
        case SessionLineReader::Result::kError:
          done_ = true;
          *error = name_ + ": read error after line " + std::to_string(reader_.line_number());
          MakeOneLine(error);
          return false;
        case SessionLineReader::Result::kLine:
          break;
      }
      size_t first = line->find_first_not_of(" \t");
      if (first != std::string_view::npos && (*line)[first] != '#') return true;
    }
  }

  bool Fail(std::string* error, const std::string& problem) {
    done_ = true;
    *error = Where() + ": " + problem;
    MakeOneLine(error);
    return false;
  }

  bool HandleLine(std::string_view line, SessionEvent* event, bool* produced, std::string* error) {
    nlohmann::json json;
    JsonSyntaxError syntax;
    if (!ParseJsonText(line, &json, &syntax)) {
      // Columns count within the line: "s.jsonl:3:17: JSON syntax error: ...".
      *error =
          "JSON syntax error at column " + std::to_string(syntax.column) + ": " + syntax.message;
      return false;
    }
    if (!json.is_object()) {
      *error = std::string("expected a JSON object, got ") + JsonTypeName(json);
      return false;
    }
    JsonFields fields(json, "");
    std::string type;
    fields.String("type", &type, /*required=*/true);
    if (!fields.ok()) {
      *error = fields.error();
      return false;
    }
    if (type == "host") {
      if (seen_other_line_) {
        *error = "a host line must come before the session's first event or page line";
        return false;
      }
      return ParseSessionHostLine(json, &hosts_, error);
    }
    seen_other_line_ = true;
    if (type == "page") return DefinePage(json, error);

    struct EventKind {
      const char* name;
      SessionEvent::Type type;
      std::vector<std::string_view> fields;
    };
    static const EventKind kKinds[] = {
        {"startup", SessionEvent::Type::kStartup, {"type", "t"}},
        {"navigate", SessionEvent::Type::kNavigate, {"type", "t", "url", "page"}},
        {"hover", SessionEvent::Type::kHover, {"type", "t", "url"}},
        {"omnibox", SessionEvent::Type::kOmnibox, {"type", "t", "url", "text"}},
        {"hint", SessionEvent::Type::kHint, {"type", "t", "url", "hint"}},
        {"wait", SessionEvent::Type::kWait, {"type", "t"}},
    };
    const EventKind* kind = nullptr;
    for (const EventKind& candidate : kKinds) {
      if (type == candidate.name) kind = &candidate;
    }
    if (!kind) {
      *error = "unknown event type '" + type.substr(0, 64) +
               "' (expected startup, navigate, hover, omnibox, hint, wait, page or host)";
      return false;
    }
    SessionEvent out;
    out.type = kind->type;
    std::string unknown;
    if (!CheckSessionFields(json, kind->fields, &unknown)) {
      *error = UnknownFieldMessage(unknown, "a " + type + " event");
      return false;
    }
    fields.NumberIn("t", 0, kMaxEventMs, &out.t_ms, /*required=*/true);
    bool has_url = fields.String("url", &out.url,
                                 /*required=*/out.type == SessionEvent::Type::kHover ||
                                     out.type == SessionEvent::Type::kOmnibox ||
                                     out.type == SessionEvent::Type::kHint);
    fields.String("text", &out.text);
    fields.String("hint", &out.hint);
    if (!fields.ok()) {
      *error = fields.error();
      return false;
    }
    if (out.t_ms < last_t_) {
      *error =
          "'t' goes backwards (" + FormatNumber(out.t_ms) + " after " + FormatNumber(last_t_) + ")";
      return false;
    }
    if (has_url && !CheckUrl(out.url, "url", error)) return false;
    if (out.type == SessionEvent::Type::kNavigate) {
      if (!NavigatePage(json, has_url, &out, error)) return false;
    }
    last_t_ = out.t_ms;
    out.where = Where();
    *event = std::move(out);
    *produced = true;
    return true;
  }

  bool CheckUrl(const std::string& text, const char* path, std::string* error) {
    std::string problem;
    if (!urls_.Check(text, &problem)) {
      *error = std::string(path) + ": " + problem;
      return false;
    }
    return true;
  }

  bool NavigatePage(const nlohmann::json& json, bool has_url, SessionEvent* out,
                    std::string* error) {
    auto page = json.find("page");
    if (page == json.end() || page->is_null()) {
      if (!has_url) {
        *error = "a navigate event needs \"url\" or \"page\"";
        return false;
      }
      // Just a URL: a page of one document.
      auto made = std::make_shared<TracePage>();
      made->id = "line " + std::to_string(reader_.line_number());
      made->title = out->url;
      made->source = Where();
      made->entries.emplace_back();
      made->entries[0].url = out->url;
      made->entries[0].resource_type = "document";
      out->page = std::move(made);
    } else if (page->is_string()) {
      const std::string& id = page->get_ref<const std::string&>();
      auto it = defined_.find(id);
      if (it == defined_.end()) {
        *error = "page '" + id.substr(0, 64) + "' is not defined (define it with a \"page\" " +
                 "line before this one)";
        return false;
      }
      out->page = it->second;
    } else if (page->is_object()) {
      static const std::vector<std::string_view> kFields = {"entries", "title", "har", "page"};
      if (!PageFromSpec(*page, "page", kFields, "line " + std::to_string(reader_.line_number()),
                        &out->page, error)) {
        return false;
      }
    } else {
      *error = std::string("page: expected a page id or an object, got ") + JsonTypeName(*page);
      return false;
    }
    if (!has_url) out->url = out->page->entries[0].url;
    return true;
  }

  // A page line: {"type": "page", "id": "home", "entries": [...]} or {..., "har": "a.har"}.
  bool DefinePage(const nlohmann::json& json, std::string* error) {
    JsonFields fields(json, "");
    std::string id;
    double ignored_t = 0;
    fields.String("id", &id, /*required=*/true);
    fields.Number("t", &ignored_t);
    if (!fields.ok()) {
      *error = fields.error();
      return false;
    }
    if (id.empty() || id.size() > kMaxPageIdLength) {
      *error = "id: must be 1 to " + std::to_string(kMaxPageIdLength) + " characters";
      return false;
    }
    if (defined_.count(id)) {
      *error = "page '" + id.substr(0, 64) + "' is already defined";
      return false;
    }
    if (defined_.size() >= kMaxDefinedPages) {
      *error = "more than " + std::to_string(kMaxDefinedPages) + " pages defined";
      return false;
    }
    std::shared_ptr<const TracePage> page;
    static const std::vector<std::string_view> kFields = {"type",  "t",   "id",  "entries",
                                                          "title", "har", "page"};
    if (!PageFromSpec(json, "", kFields, id, &page, error)) {
      return false;
    }
    // A page defined under two ids counts twice: the bound errs on the safe side.
    uint64_t bytes = PageBytes(*page);
    if (defined_bytes_ + bytes > kMaxDefinedPageBytes) {
      *error = "page '" + id.substr(0, 64) + "': defined pages would hold more than the limit of " +
               FormatByteLimit(kMaxDefinedPageBytes) + " of memory";
      return false;
    }
    defined_bytes_ += bytes;
    defined_.emplace(id, std::move(page));
    return true;
  }

  // Inline entries, or a HAR file's page.
  bool PageFromSpec(const nlohmann::json& spec, const std::string& path,
                    const std::vector<std::string_view>& allowed, const std::string& id,
                    std::shared_ptr<const TracePage>* out, std::string* error) {
    std::string unknown;
    if (!CheckSessionFields(spec, allowed, &unknown)) {
      *error = UnknownFieldMessage(unknown, path.empty() ? "a page definition" : "the page");
      return false;
    }
    JsonFields fields(spec, path);
    bool has_har = fields.Get("har") != nullptr;
    bool has_entries = fields.Get("entries") != nullptr;
    if (has_har == has_entries) {
      *error = (path.empty() ? std::string() : path + ": ") +
               (has_har ? "has both \"entries\" and \"har\""
                        : "needs \"entries\" (an inline page) or \"har\" (a HAR file)");
      return false;
    }
    if (has_entries) {
      auto page = std::make_shared<TracePage>();
      page->id = id;
      page->source = Where();
      if (!ParseInlinePage(spec, path, &urls_, page.get(), error)) return false;
      *out = std::move(page);
      return true;
    }
    std::string har_path;
    fields.String("har", &har_path, /*required=*/true);
    const nlohmann::json* selector = fields.Get("page");
    if (!fields.ok()) {
      *error = fields.error();
      return false;
    }
    if (har_path.empty()) {
      *error = fields.PathOf("har") + ": empty path";
      return false;
    }
    std::string problem;
    std::shared_ptr<const HarPages> har =
        har_cache_.Get(TraceJoinPath(base_dir_, har_path), &problem);
    if (!har) {
      *error = problem;
      return false;
    }
    std::string shown = TraceJoinPath(base_dir_, har_path);
    if (har->pages.empty()) {
      *error = shown + ": has no pages to replay";
      return false;
    }
    size_t index = 0;
    if (selector && selector->is_string()) {
      auto it = har->by_id.find(selector->get<std::string>());
      if (it == har->by_id.end()) {
        *error = fields.PathOf("page") + ": '" + selector->get<std::string>().substr(0, 64) +
                 "' is not a page of " + shown + " (it has " + PageIdList(*har) + ")";
        return false;
      }
      index = it->second;
    } else if (selector && selector->is_number()) {
      int64_t wanted = 0;
      if (!fields.Integer("page", 0, static_cast<int64_t>(har->pages.size()) - 1, &wanted)) {
        *error = fields.error() + " (" + shown + " has " + std::to_string(har->pages.size()) +
                 " page" + (har->pages.size() == 1 ? "" : "s") + ")";
        return false;
      }
      index = static_cast<size_t>(wanted);
    } else if (selector) {
      *error = fields.PathOf("page") + ": expected a page id or an index, got " +
               JsonTypeName(*selector);
      return false;
    }
    *out = har->pages[index];
    return true;
  }

  static std::string PageIdList(const HarPages& har) {
    std::string list;
    for (size_t i = 0; i < har.pages.size() && i < 5; ++i) {
      if (i) list += ", ";
      list += "'" + har.pages[i]->id.substr(0, 64) + "'";
    }
    if (har.pages.size() > 5) list += ", ...";
    return list;
  }

  SessionLineReader reader_;
  std::string name_;
  std::string base_dir_;
  SessionHarCache har_cache_;
  SessionUrlCheck urls_;
  std::unordered_map<std::string, std::shared_ptr<const TracePage>> defined_;
  uint64_t defined_bytes_ = 0;  // PageBytes of defined_, within kMaxDefinedPageBytes
  double last_t_ = 0;
  bool done_ = false;
  HostProtocols hosts_;           // the host lines
  bool seen_other_line_ = false;  // an event or page line was read: no more host lines
  std::string pending_;           // the line ReadHostProtocols read past, for Next
  bool has_pending_ = false;
};

// Reads up to `max` bytes from `in` (fewer at its end).
std::string ReadUpTo(std::istream& in, uint64_t max) {
  std::string out;
  char buffer[65536];
  while (out.size() < max && in.good()) {
    in.read(buffer,
            static_cast<std::streamsize>(std::min<uint64_t>(sizeof(buffer), max - out.size())));
    out.append(buffer, static_cast<size_t>(in.gcount()));
  }
  return out;
}

}  // namespace

std::unique_ptr<TraceSource> OpenSessionStream(std::unique_ptr<std::istream> in,
                                               const std::string& name,
                                               const std::string& base_dir) {
  return std::make_unique<SessionSource>(std::move(in), std::string(), name, base_dir);
}

namespace {

std::unique_ptr<TraceSource> OpenTraceImpl(const std::string& path, std::string* error) {
  if (path == "-") {
    auto in = std::make_unique<std::istream>(std::cin.rdbuf());
    std::string prefix = ReadUpTo(*in, kSniffBytes);
    if (SniffRecording(prefix) != RecordingKind::kNone) {
      std::string rest = ReadUpTo(*in, kMaxHarBytes + 1 - prefix.size());
      if (in->bad()) {
        *error = "stdin: read error";
        return nullptr;
      }
      HarFile har;
      if (!ParseRecording(prefix + rest, "stdin", &har, error)) return nullptr;
      return MakeHarSource(std::move(har), "stdin");
    }
    return std::make_unique<SessionSource>(std::move(in), std::move(prefix), "stdin", ".");
  }
  std::string prefix, problem;
  if (!ReadTraceFilePrefix(path, kSniffBytes, &prefix, &problem)) {
    *error = path + ": " + problem;
    return nullptr;
  }
  if (SniffRecording(prefix) != RecordingKind::kNone) {
    HarFile har;
    if (!ReadRecordingFile(path, &har, error)) return nullptr;
    return MakeHarSource(std::move(har), path);
  }
  auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!file->is_open()) {
    *error = path + ": cannot open";
    return nullptr;
  }
  return std::make_unique<SessionSource>(std::move(file), std::string(), path, TraceDirName(path));
}

}  // namespace

std::unique_ptr<TraceSource> OpenTrace(const std::string& path, std::string* error) {
  std::unique_ptr<TraceSource> source = OpenTraceImpl(path, error);
  if (!source) MakeOneLine(error);
  return source;
}

}  // namespace netstack

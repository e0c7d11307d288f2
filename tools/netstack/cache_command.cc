#include "tools/netstack/cache_command.h"

#include <uv.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "net/base/clock.h"
#include "net/base/url.h"
#include "net/base/uv_cross_thread_poster.h"
#include "net/http/content_decoder.h"
#include "net/http/http_cache_policy.h"
#include "net/http/http_cache_vary.h"
#include "net/http/http_response_info.h"
#include "tools/netstack/cache_display.h"
#include "tools/netstack/cache_loop.h"
#include "tools/netstack/fetch_options.h"
#include "tools/netstack/profile.h"
#include "tools/netstack/show_body.h"
#include "tools/netstack/terminal_text.h"

namespace netstack {
namespace {

// `show` decodes at most this much of a body; past it, only a lower bound of the decoded size
// is reported (nothing of it is held in memory, but decoding a bomb costs time).
constexpr int64_t kMaxDecodedBody = int64_t{1} << 30;

void PrintError(const std::string& message) {
  std::fprintf(stderr, "netstack: %s\n", TerminalSafe(message).c_str());
}

void PrintWarning(const std::string& message) {
  std::fprintf(stderr, "netstack: warning: %s\n", TerminalSafe(message).c_str());
}

// The libuv loop, the poster and the backend of one `netstack cache` run, torn down in the
// order their contracts ask: backend (its thread joined), poster, then the loop closed.
class CacheSession {
 public:
  CacheSession() {
    init_result_ = uv_loop_init(&loop_);
    if (init_result_ == 0) poster_ = std::make_unique<UvCrossThreadPoster>(&loop_);
  }
  ~CacheSession() {
    if (init_result_ != 0) return;  // nothing was made
    backend_.reset();
    poster_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);  // the poster's close callback
    if (uv_loop_close(&loop_) != 0)
      std::fprintf(stderr, "netstack: internal: the event loop did not close\n");
  }

  // Opens the profile's cache; false after printing why (the exit status is 1).
  bool Open(const std::string& profile_dir) {
    if (init_result_ != 0) {
      PrintError(std::string("cannot start the event loop: ") + uv_strerror(init_result_));
      return false;
    }
    std::string message;
    Profile::Status status = Profile::Open(profile_dir, /*create=*/false, &profile_, &message);
    if (status == Profile::Status::kInUse) {
      PrintError(message + ": wait for it to finish and retry");
      return false;
    }
    if (status != Profile::Status::kOk) {
      PrintError(message);
      return false;
    }
    // Inspection never evicts: the size limit belongs to the fetches that fill the cache
    // (--cache-size), and a smaller one here would throw away what they kept.
    CacheConfig config;
    config.max_bytes = kMaxCacheSize;
    OpenedDiskCache opened =
        OpenDiskCache(&loop_, poster_.get(), clock_, profile_->cache_dir(), config,
                      /*watch_disk_space=*/false);
    if (opened.result != OK || !opened.backend) {
      PrintError("cannot open the cache in " + profile_->cache_dir() + ": " + opened.message);
      return false;
    }
    if (!opened.message.empty()) PrintWarning(opened.message);
    backend_ = std::move(opened.backend);
    return true;
  }

  CacheBackend* backend() { return backend_.get(); }
  uv_loop_t* loop() { return &loop_; }
  UvCrossThreadPoster* poster() { return poster_.get(); }
  Time Now() const { return clock_.Now(); }
  const std::string& profile_dir() const { return profile_->dir(); }

  // The key for what the user typed: the URL as the HTTP cache keys it (normalized, no
  // fragment) if that is stored, else the text itself (a key copied from `ls`).
  std::string FindKey(const std::string& text) {
    CacheEntryInfo info;
    Url url;
    std::string ignored;
    if (Url::Parse(text, &url, &ignored) == OK && backend_->GetEntryInfo(url.spec(), &info))
      return url.spec();
    if (backend_->GetEntryInfo(text, &info)) return text;
    return "";
  }

  // Opens `key` and parses its stream 0. False with *error set if it cannot.
  bool ReadResponseInfo(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                        HttpResponseInfo* info, std::string* error) {
    int rv = PeekEntrySync(&loop_, poster_.get(), backend_.get(), key, entry);
    if (rv != OK || !*entry) {
      *error = rv == ERR_CACHE_MISS ? "the entry is gone or was damaged" : ErrorToString(rv);
      return false;
    }
    if (VaryIndex::IsIndex((*entry)->headers())) {
      VaryIndex index;
      *error = VaryIndex::Parse((*entry)->headers(), &index, error)
                   ? "Vary index of " + std::to_string(index.variants.size()) + " variants"
                   : *error;
      return false;
    }
    return HttpResponseInfo::Parse((*entry)->headers(), info, error);
  }

 private:
  uv_loop_t loop_;
  int init_result_ = 0;  // uv_loop_init's
  SystemClock clock_;
  std::unique_ptr<UvCrossThreadPoster> poster_;
  std::unique_ptr<Profile> profile_;
  std::unique_ptr<CacheBackend> backend_;
};

int RunList(CacheSession& s, bool json) {
  Time now = s.Now();
  for (const CacheEntryInfo& entry : s.backend()->EnumerateEntries()) {
    CacheListing listing;
    listing.entry = entry;
    std::unique_ptr<CacheEntry> opened;
    listing.parsed =
        s.ReadResponseInfo(entry.key, &opened, &listing.response, &listing.parse_error);
    if (listing.parsed) listing.freshness = GetFreshnessInfo(listing.response, now);
    std::string line = json ? ListingJson(listing, now)
                                  .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                            : ListingLine(listing, now);
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

// A URL whose responses vary: its index, one line per variant with the key to `show` it by.
int ShowVaryIndex(const std::string& key, const std::string& blob) {
  VaryIndex index;
  std::string error;
  if (!VaryIndex::Parse(blob, &index, &error)) {
    PrintError(key + ": cannot read the stored response: " + error);
    return 1;
  }
  std::string out = "Vary index: " + std::to_string(index.variants.size()) + " of at most " +
                    std::to_string(kMaxVariantsPerUrl) + " variants, oldest stored first\n";
  for (const VaryIndex::Variant& v : index.variants) {
    out += "variant:        " + TerminalSafe(VariantKey(key, v.slot)) + "\n";
    for (const HttpResponseInfo::VaryValue& value : v.selection) {
      out += "  vary:         " + TerminalSafe(value.name) + ": " +
             (value.value ? TerminalSafe(*value.value) : "(absent)") + "\n";
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int RunShow(CacheSession& s, const CacheCommandOptions& o) {
  std::string key = s.FindKey(o.url);
  if (key.empty()) {
    PrintError(o.url + " is not in the cache (" + s.profile_dir() + ")");
    return 1;
  }
  CacheEntryInfo index_info;
  s.backend()->GetEntryInfo(key, &index_info);
  std::unique_ptr<CacheEntry> entry;
  HttpResponseInfo info;
  std::string error;
  const bool read = s.ReadResponseInfo(key, &entry, &info, &error);
  if (!read && entry && VaryIndex::IsIndex(entry->headers()))
    return ShowVaryIndex(key, entry->headers());
  if (!read) {
    PrintError(key + ": cannot read the stored response: " + error);
    return 1;
  }
  FreshnessInfo freshness = GetFreshnessInfo(info, s.Now());

  // Everything stored came from a server: escaped before it reaches the terminal.
  std::string out = TerminalSafe(info.headers->GetStatusLine()) + "\n";
  for (const auto& header : info.headers->headers())
    out += TerminalSafe(header.name) + ": " + TerminalSafe(header.value) + "\n";
  out += "\n";
  out += "key:            " + TerminalSafe(key) + "\n";
  out += "request time:   " + FormatTime(info.request_time) + "\n";
  out += "response time:  " + FormatTime(info.response_time) + "\n";
  out += "freshness:      " + FreshnessLabel(freshness) + " (lifetime " +
         FormatDuration(freshness.lifetime) + " from " + FreshnessSourceName(freshness.source) +
         ", age " + FormatDuration(freshness.age) + ")\n";
  for (const HttpResponseInfo::VaryValue& v : info.vary) {
    out += "vary:           " + TerminalSafe(v.name) + ": " +
           (v.value ? TerminalSafe(*v.value) : "(absent)") + "\n";
  }
  out += "stored:         " + FormatSize(index_info.headers_size) + " headers, " +
         FormatSize(index_info.body_size) + " body; " + std::to_string(index_info.use_count) +
         (index_info.use_count == 1 ? " use" : " uses") + ", last " +
         FormatTime(index_info.last_used) + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);

  const int64_t stored = entry->body_size();
  std::string encoding;
  std::unique_ptr<ContentDecoder> decoder;
  std::string note;
  if (!o.raw && info.headers->GetNormalizedHeader("content-encoding", &encoding) &&
      !encoding.empty()) {
    if (ContentDecoder::Create(encoding, kMaxDecodedBody, &decoder, &error) != OK) {
      decoder.reset();
      note = "stored " + encoding + " bytes: decoding failed: " + error;
    } else if (decoder->passes_through()) {
      decoder.reset();  // identity or an unknown coding: shown as stored
    } else {
      note = "decoded from " + encoding + ", " + FormatSize(stored) + " stored";
    }
  }
  // The decoded size is only known at the end; the stored one now.
  ShowBodyPrinter printer(
      o.hex, o.max_bytes, decoder ? "" : FormatSize(stored), note,
      [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); });
  std::string decode_error;
  bool decoded_over_limit = false;
  std::vector<char> decoded(decoder ? 64 * 1024 : 0);
  int rv = ReadBodyChunks(s.loop(), s.poster(), entry.get(), [&](std::string_view chunk) {
    if (!decoder) {
      printer.Write(chunk);
      return !printer.full();  // the total is the stored size: no need to read on
    }
    // Decoding goes on past max_bytes only to count the decoded size; nothing is kept.
    while (true) {
      int n = decoder->Decode(&chunk, decoded.data(), decoded.size());
      if (n == ERR_RESPONSE_BODY_TOO_BIG) {
        decoded_over_limit = true;
        return false;
      }
      if (n < 0) {
        decode_error = decoder->error_message();
        return false;
      }
      if (n == 0) return true;
      printer.Write(std::string_view(decoded.data(), static_cast<size_t>(n)));
    }
  });
  if (rv == OK && decoder && decode_error.empty() && !decoded_over_limit &&
      decoder->Finish() != OK) {
    decode_error = decoder->error_message().empty() ? "the compressed body is cut short"
                                                    : decoder->error_message();
  }
  printer.Finish(decoder ? printer.seen() : stored, decoded_over_limit);
  std::fflush(stdout);
  if (rv != OK) {
    PrintError(key + ": cannot read the stored body: " + ErrorToString(rv));
    return 1;
  }
  if (!decode_error.empty()) {
    PrintError(key + ": decoding " + encoding + " failed after " + std::to_string(printer.seen()) +
               " bytes: " + decode_error + " (--raw shows the stored bytes)");
    return 1;
  }
  return 0;
}

int RunRemove(CacheSession& s, const CacheCommandOptions& o) {
  std::string key = s.FindKey(o.url);
  if (key.empty()) {
    PrintError(o.url + " is not in the cache (" + s.profile_dir() + ")");
    return 1;
  }
  s.backend()->DoomEntry(key);
  DoomVariantKeys(s.backend(), key);  // a URL with Vary: its variants go with it
  CacheBackend* backend = s.backend();
  int rv = WaitForCompletion(s.loop(), s.poster(),
                             [backend](CompletionCallback cb) { backend->Flush(std::move(cb)); });
  if (rv != OK) {
    PrintError("removing " + key + " failed: " + ErrorToString(rv));
    return 1;
  }
  std::printf("removed %s\n", TerminalSafe(key).c_str());
  return 0;
}

int RunClear(CacheSession& s) {
  int64_t count = s.backend()->GetEntryCount();
  int64_t bytes = s.backend()->GetSizeOfAllEntries();
  CacheBackend* backend = s.backend();
  int rv = WaitForCompletion(s.loop(), s.poster(), [backend](CompletionCallback cb) {
    backend->DoomAllEntries(std::move(cb));
  });
  if (rv != OK) {
    PrintError("clearing the cache failed: " + ErrorToString(rv));
    return 1;
  }
  std::printf("removed %lld entries (%s)\n", static_cast<long long>(count),
              FormatSize(bytes).c_str());
  return 0;
}

int RunStats(CacheSession& s, bool json) {
  CacheStats stats = s.backend()->GetStats();
  // The limit is the fetches' (--cache-size), not a property of what is stored; this command
  // opened the cache without one (see CacheSession::Open).
  stats.max_bytes = 0;
  if (json) {
    nlohmann::json j = stats.ToJson();
    j["max_bytes"] = nullptr;
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::fputs(StatsText(stats).c_str(), stdout);
  }
  return 0;
}

}  // namespace

CLI::App* AddCacheCommand(CLI::App* app, CacheCommandOptions* o) {
  CLI::App* cache = app->add_subcommand("cache", "inspect and edit a profile's HTTP cache");
  cache->require_subcommand(1);
  auto profile = [o](CLI::App* sub) {
    sub->add_option("--profile", o->profile_dir,
                    "profile directory; default $XDG_CACHE_HOME/netstack");
  };
  profile(cache);
  CLI::App* ls = cache->add_subcommand("ls", "one line per entry: key, size, use, freshness");
  ls->add_flag("--json", o->json, "one JSON object per entry");
  CLI::App* show = cache->add_subcommand("show", "a stored response: headers, times, body");
  show->add_option("url", o->url, "the URL (or the key `ls` prints)")->required();
  show->add_flag("--hex", o->hex, "the body as a hex dump even if it is text");
  show->add_flag("--raw", o->raw, "the body as stored, not decoded of its Content-Encoding");
  show->add_option("--max-bytes", o->max_bytes_text,
                   "show at most this much of the body (K, M, G suffixes; 0: all); default 1M");
  CLI::App* rm = cache->add_subcommand("rm", "remove one entry");
  rm->add_option("url", o->url, "the URL (or the key `ls` prints)")->required();
  CLI::App* clear = cache->add_subcommand("clear", "remove every entry");
  CLI::App* stats =
      cache->add_subcommand("stats", "entry count and size (--json: every statistic)");
  stats->add_flag("--json", o->json, "one JSON object");
  for (CLI::App* sub : {ls, show, rm, clear, stats}) {
    profile(sub);
    std::string name = sub->get_name();
    sub->callback([o, name] { o->action = name; });
  }
  return cache;
}

int RunCacheCommand(const CacheCommandOptions& o) {
  std::string dir = o.profile_dir;
  if (dir.empty()) dir = DefaultProfileDir([](const char* name) { return std::getenv(name); });
  if (dir.empty()) {
    PrintError("no profile: set --profile DIR (neither XDG_CACHE_HOME nor HOME is set)");
    return 1;
  }
  CacheCommandOptions options = o;
  if (!ParseByteSize(o.max_bytes_text, kMaxCacheSize, &options.max_bytes)) {
    PrintError("bad --max-bytes \"" + o.max_bytes_text +
               "\": expected bytes with an optional K, M or G suffix (0: no limit)");
    return 2;
  }
  CacheSession session;
  if (!session.Open(dir)) return 1;
  if (o.action == "ls") return RunList(session, o.json);
  if (o.action == "show") return RunShow(session, options);
  if (o.action == "rm") return RunRemove(session, o);
  if (o.action == "clear") return RunClear(session);
  if (o.action == "stats") return RunStats(session, o.json);
  PrintError("cache: unknown action \"" + o.action + "\"");
  return 2;
}

}  // namespace netstack

// The Sockets, DNS and Cache views' JSON and actions (tools/internals/*_view.h), over the real
// stack on the simulated network, and the cache entry read on a backend that answers later.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "net/base/weak_ptr.h"
#include "net/dns/host_resolver_manager.h"
#include "net/http/http_cache.h"
#include "net/http/url_request_context.h"
#include "net/socket/client_socket_pool.h"
#include "tests/internals/router_test_env.h"
#include "tools/internals/cache_view.h"
#include "tools/internals/dns_view.h"
#include "tools/internals/sockets_view.h"

namespace netstack::test {
namespace {

// A CacheBackend that answers PeekEntry and ReadBody later (posted on the scheduler), as the
// disk backend does, around a MemoryBackend. With `hang`, reads never complete (a backend
// that went away).
class AsyncBackend : public CacheBackend {
 public:
  AsyncBackend(Scheduler& scheduler, std::unique_ptr<MemoryBackend> memory)
      : scheduler_(scheduler), memory_(std::move(memory)) {}

  class Entry : public CacheEntry {
   public:
    Entry(AsyncBackend* owner, std::unique_ptr<CacheEntry> inner)
        : owner_(owner->weak_factory_.GetWeakPtr()), inner_(std::move(inner)) {}
    const std::string& key() const override { return inner_->key(); }
    const std::string& headers() const override { return inner_->headers(); }
    void WriteHeaders(std::string h) override { inner_->WriteHeaders(std::move(h)); }
    int64_t body_size() const override { return inner_->body_size(); }
    int ReadBody(int64_t offset, char* buf, int len, CompletionCallback callback) override {
      if (!owner_) return ERR_CACHE_READ_FAILURE;  // as DiskEntry without its backend
      owner_->reads++;
      if (owner_->hang) return ERR_IO_PENDING;
      // At most 7 bytes per read, so a body takes several.
      int rv = inner_->ReadBody(offset, buf, std::min(len, 7), nullptr);
      owner_->scheduler_.PostTask([weak = weak_factory_.GetWeakPtr(), callback, rv] {
        if (weak) callback(rv);
      });
      return ERR_IO_PENDING;
    }
    int AppendBody(const char* d, int n) override { return inner_->AppendBody(d, n); }
    void Commit(CompletionCallback c) override { inner_->Commit(std::move(c)); }
    void Doom() override { inner_->Doom(); }

   private:
    WeakPtr<AsyncBackend> owner_;
    std::unique_ptr<CacheEntry> inner_;
    WeakPtrFactory<Entry> weak_factory_{this};  // last: invalidated first
  };

  int OpenEntry(const std::string& key, std::unique_ptr<CacheEntry>* entry,
                EntryCallback callback) override {
    return memory_->OpenEntry(key, entry, std::move(callback));
  }
  int PeekEntry(const std::string& key, std::unique_ptr<CacheEntry>*,
                EntryCallback callback) override {
    auto inner = std::make_shared<std::unique_ptr<CacheEntry>>();
    int rv = memory_->PeekEntry(key, inner.get(), nullptr);
    if (rv != OK) return rv;
    scheduler_.PostTask([weak = weak_factory_.GetWeakPtr(), callback, inner] {
      if (weak) callback(OK, std::make_unique<Entry>(weak.get(), std::move(*inner)));
    });
    return ERR_IO_PENDING;
  }
  std::unique_ptr<CacheEntry> CreateEntry(const std::string& key) override {
    return memory_->CreateEntry(key);
  }
  void DoomEntry(const std::string& key) override { memory_->DoomEntry(key); }
  void DoomAllEntries(CompletionCallback c) override { memory_->DoomAllEntries(std::move(c)); }
  void DoomEntriesBetween(Time b, Time e, CompletionCallback c) override {
    memory_->DoomEntriesBetween(b, e, std::move(c));
  }
  bool GetEntryInfo(const std::string& key, CacheEntryInfo* info) const override {
    return memory_->GetEntryInfo(key, info);
  }
  std::vector<CacheEntryInfo> EnumerateEntries() const override {
    return memory_->EnumerateEntries();
  }
  int64_t GetEntryCount() const override { return memory_->GetEntryCount(); }
  int64_t GetSizeOfAllEntries() const override { return memory_->GetSizeOfAllEntries(); }
  CacheStats GetStats() const override { return memory_->GetStats(); }
  void Flush(CompletionCallback c) override { memory_->Flush(std::move(c)); }
  size_t EstimateMemoryUsage() const override { return memory_->EstimateMemoryUsage(); }

  bool hang = false;
  int reads = 0;

 private:
  Scheduler& scheduler_;
  std::unique_ptr<MemoryBackend> memory_;
  WeakPtrFactory<AsyncBackend> weak_factory_{this};  // last: invalidated first
};

// Runs ReadCacheEntry and keeps what `done` got and how often.
struct EntryAnswer {
  int calls = 0;
  InternalsResult result;
};

std::shared_ptr<EntryAnswer> ReadEntry(HttpCache* cache, Scheduler& scheduler,
                                       const std::string& key,
                                       size_t max_bytes = kCacheEntryDefaultMaxBytes) {
  auto answer = std::make_shared<EntryAnswer>();
  ReadCacheEntry(cache, scheduler, key, max_bytes, [answer](InternalsResult result) {
    answer->calls++;
    answer->result = std::move(result);
  });
  return answer;
}

const char kHead[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: max-age=60\r\n\r\n";

TEST_CASE("views: text or hex", "[internals][views]") {
  size_t n = 0;
  CHECK(IsDisplayableText("hello\tworld\r\n", true, &n));
  CHECK(n == 13);
  CHECK(IsDisplayableText("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", true, nullptr));
  CHECK_FALSE(IsDisplayableText(std::string("a\0b", 3), true, nullptr));
  CHECK_FALSE(IsDisplayableText("\x1b[2J", true, nullptr));   // ESC
  CHECK_FALSE(IsDisplayableText("a\x7f", true, nullptr));     // DEL
  CHECK_FALSE(IsDisplayableText("\xc2\x9b", true, nullptr));  // C1 CSI
  CHECK_FALSE(IsDisplayableText("\xff", true, nullptr));
  CHECK_FALSE(IsDisplayableText("\xc0\xaf", true, nullptr));      // overlong '/'
  CHECK_FALSE(IsDisplayableText("\xed\xa0\x80", true, nullptr));  // surrogate
  // A sequence cut by the end of what is shown is text only when more follows.
  CHECK_FALSE(IsDisplayableText("ab\xe2\x82", true, nullptr));
  CHECK(IsDisplayableText("ab\xe2\x82", false, &n));
  CHECK(n == 2);

  CHECK(HexLines("") == "");
  CHECK(HexLines(std::string("\x00\x01\xff", 3)) == "00 01 ff");
  CHECK(HexLines(std::string(17, 'A')) == "41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41\n41");

  nlohmann::json text = BodyJson("abc", 10);
  CHECK(
      text ==
      nlohmann::json{
          {"size", 10}, {"shown", 3}, {"encoding", "text"}, {"data", "abc"}, {"truncated", true}});
  nlohmann::json hex = BodyJson(std::string("\x89PNG\r\n\x1a\n", 8), 8);
  CHECK(hex["encoding"] == "hex");
  CHECK(hex["data"] == "89 50 4e 47 0d 0a 1a 0a");
  CHECK(hex["truncated"] == false);
  nlohmann::json cut = BodyJson("ab\xe2\x82", 6);
  CHECK(cut["encoding"] == "text");
  CHECK(cut["data"] == "ab");
  CHECK(cut["shown"] == 2);
}

TEST_CASE("views: cache list with search and paging", "[internals][views]") {
  RouterTestEnv t;
  CacheListQuery query;
  std::string error;
  CHECK_FALSE(ParseCacheListQuery({{"offset", "-1"}}, &query, &error));
  CHECK(error == "offset: not a non-negative decimal number");
  CHECK_FALSE(ParseCacheListQuery({{"limit", "ten"}}, &query, &error));
  REQUIRE(ParseCacheListQuery({{"limit", "100000"}}, &query, &error));
  CHECK(query.limit == CacheListQuery::kMaxLimit);
  REQUIRE(ParseCacheListQuery({{"limit", "0"}}, &query, &error));
  CHECK(query.limit == 1);

  const Time start = t.clock.Now();
  for (int i = 0; i < 5; ++i) {
    t.PutEntry("http://a.test/Item" + std::to_string(i), kHead, "body " + std::to_string(i));
    t.env.Advance(Seconds(1));
  }
  t.PutEntry("http://b.test/other", kHead, "x");
  CacheListQuery q;
  q.q = "ITEM";
  q.offset = 1;
  q.limit = 2;
  nlohmann::json list = CacheListJson(t.env.context->http_cache(), q);
  CHECK(list["total"] == 6);
  CHECK(list["matched"] == 5);
  CHECK(list["offset"] == 1);
  CHECK(list["stats"]["type"] == "memory");
  REQUIRE(list["entries"].size() == 2);
  // Most recently used first: Item4, Item3, ...; offset 1 skips Item4.
  CHECK(list["entries"][0]["key"] == "http://a.test/Item3");
  CHECK(list["entries"][1]["key"] == "http://a.test/Item2");
  CHECK(list["entries"][0]["body_size"] == 6);
  CHECK(list["entries"][0]["created"] == ToUnixMicros(start) / 1000 + 3000);

  nlohmann::json none = CacheListJson(nullptr, CacheListQuery());
  CHECK(none["stats"].is_null());
  CHECK(none["entries"].empty());
}

TEST_CASE("views: a cache entry, without counting a use", "[internals][views]") {
  RouterTestEnv t;
  HttpCache* cache = t.env.context->http_cache();
  t.PutEntry("http://a.test/text", kHead, "hello, world\n");
  t.PutEntry("http://a.test/png", kHead, std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + "x");

  auto text = ReadEntry(cache, t.env.scheduler, "http://a.test/text");
  REQUIRE(text->calls == 1);  // the memory backend answers at once
  REQUIRE(text->result.status == 200);
  const nlohmann::json& e = text->result.body;
  CHECK(e["key"] == "http://a.test/text");
  CHECK(e["info"]["use_count"] == 0);
  CHECK(e["response"]["status_line"] == "HTTP/1.1 200 OK");
  CHECK(e["response"]["status"] == 200);
  CHECK(e["response"]["headers"][0] == nlohmann::json::array({"Content-Type", "text/plain"}));
  CHECK(e["response_error"].is_null());
  CHECK(e["body"] == nlohmann::json{{"size", 13},
                                    {"shown", 13},
                                    {"encoding", "text"},
                                    {"data", "hello, world\n"},
                                    {"truncated", false}});
  CacheEntryInfo info;
  REQUIRE(t.backend->GetEntryInfo("http://a.test/text", &info));
  CHECK(info.use_count == 0);
  CHECK(t.backend->GetStats().open_hits == 0);

  auto png = ReadEntry(cache, t.env.scheduler, "http://a.test/png", 4);
  REQUIRE(png->calls == 1);
  CHECK(png->result.body["body"] == nlohmann::json{{"size", 17},
                                                   {"shown", 4},
                                                   {"encoding", "hex"},
                                                   {"data", "89 50 4e 47"},
                                                   {"truncated", true}});

  auto absent = ReadEntry(cache, t.env.scheduler, "http://a.test/none");
  REQUIRE(absent->calls == 1);
  CHECK(absent->result.status == 404);
  CHECK(ReadEntry(nullptr, t.env.scheduler, "x")->result.status == 404);

  // Through the router: the same, and 404 as JSON.
  CHECK(t.Get("/api/cache/entry?key=http%3A%2F%2Fa.test%2Fnone").status() == 404);
  CHECK(t.Get("/api/cache/entry").status() == 400);
  CHECK(t.Get("/api/cache/entry?key=http://a.test/png&max_bytes=x").status() == 400);
  Answer hex = t.Get("/api/cache/entry?key=http://a.test/png&max_bytes=16");
  CHECK(hex.json()["body"]["data"] == "89 50 4e 47 0d 0a 1a 0a 00 00 00 0d 49 48 44 52");
}

TEST_CASE("views: an entry whose stream 0 does not parse still shows its body",
          "[internals][views]") {
  RouterTestEnv t;
  std::unique_ptr<CacheEntry> entry = t.backend->CreateEntry("k");
  entry->WriteHeaders("not json");
  REQUIRE(entry->AppendBody("abc", 3) == OK);
  entry->Commit(nullptr);
  entry.reset();
  t.env.scheduler.RunUntilIdle();
  auto a = ReadEntry(t.env.context->http_cache(), t.env.scheduler, "k");
  REQUIRE(a->calls == 1);
  CHECK(a->result.status == 200);
  CHECK(a->result.body["response"].is_null());
  CHECK(a->result.body["response_error"].is_string());
  CHECK(a->result.body["body"]["data"] == "abc");
}

struct AsyncCacheEnv {
  AsyncCacheEnv() {
    CacheConfig config;
    config.max_bytes = 0;
    auto memory = std::make_unique<MemoryBackend>(t.env.scheduler, t.clock, config);
    t.PutEntry("http://a.test/long", kHead, std::string(100, 'z'), memory.get());
    auto async = std::make_unique<AsyncBackend>(t.env.scheduler, std::move(memory));
    backend = async.get();
    t.env.context->ResetHttpCache(std::move(async), t.clock);
    t.backend = nullptr;
  }
  RouterTestEnv t;
  AsyncBackend* backend = nullptr;
};

TEST_CASE("views: an entry read the backend answers later answers once", "[internals][views]") {
  AsyncCacheEnv a;
  auto answer =
      ReadEntry(a.t.env.context->http_cache(), a.t.env.scheduler, "http://a.test/long", 50);
  CHECK(answer->calls == 0);  // never inside the call on an asynchronous backend
  a.t.env.scheduler.RunUntilIdle();
  REQUIRE(answer->calls == 1);
  CHECK(a.backend->reads == 8);  // 50 bytes, 7 at a time
  CHECK(answer->result.body["body"]["shown"] == 50);
  CHECK(answer->result.body["body"]["data"] == std::string(50, 'z'));
  CHECK(answer->result.body["body"]["truncated"] == true);
  // The timeout was dropped with the answer: nothing more happens.
  a.t.env.Advance(Milliseconds(kCacheEntryReadTimeoutMs * 2));
  CHECK(answer->calls == 1);

  // Through the router: Respond is called once, later, with the JSON answer.
  int calls = 0;
  HttpServerResponse later;
  a.t.router->Handle(
      RouterTestEnv::MakeRequest("GET", "/api/cache/entry?key=http://a.test/long", {}),
      [&](HttpServerResponse response) {
        calls++;
        later = std::move(response);
      });
  CHECK(calls == 0);
  a.t.router.reset();  // the router may go first: the read keeps what it needs
  a.t.env.scheduler.RunUntilIdle();
  REQUIRE(calls == 1);
  CHECK(later.status == 200);
  CHECK(nlohmann::json::parse(later.body)["body"]["size"] == 100);
}

TEST_CASE("views: a read pending when the stack goes away still answers", "[internals][views]") {
  AsyncCacheEnv a;
  auto answer = ReadEntry(a.t.env.context->http_cache(), a.t.env.scheduler, "http://a.test/long");
  a.t.env.scheduler.RunUntilIdle();
  REQUIRE(answer->calls == 1);  // baseline: it completes
  answer = ReadEntry(a.t.env.context->http_cache(), a.t.env.scheduler, "http://a.test/long");
  a.t.env.context->RemoveHttpCache();  // the backend goes while the open is pending
  a.t.env.scheduler.RunUntilIdle();
  CHECK(answer->calls == 0);
  a.t.env.Advance(Milliseconds(kCacheEntryReadTimeoutMs));
  REQUIRE(answer->calls == 1);
  CHECK(answer->result.status == 504);
}

TEST_CASE("views: an entry read that never completes times out", "[internals][views]") {
  AsyncCacheEnv a;
  a.backend->hang = true;
  auto answer = ReadEntry(a.t.env.context->http_cache(), a.t.env.scheduler, "http://a.test/long");
  a.t.env.scheduler.RunUntilIdle();
  CHECK(answer->calls == 0);
  a.t.env.Advance(Milliseconds(kCacheEntryReadTimeoutMs - 1));
  CHECK(answer->calls == 0);
  a.t.env.Advance(Milliseconds(1));
  REQUIRE(answer->calls == 1);
  CHECK(answer->result.status == 504);
  a.t.env.Advance(Milliseconds(kCacheEntryReadTimeoutMs));
  CHECK(answer->calls == 1);
}

TEST_CASE("views: a pending entry read answers when its scheduler goes away",
          "[internals][views]") {
  AsyncCacheEnv a;
  a.backend->hang = true;
  auto scheduler = std::make_unique<VirtualScheduler>(SimTestEnv::kEpoch);
  auto answer = ReadEntry(a.t.env.context->http_cache(), *scheduler, "http://a.test/long");
  a.t.env.scheduler.RunUntilIdle();  // the open completes; the read hangs
  CHECK(answer->calls == 0);
  scheduler.reset();
  REQUIRE(answer->calls == 1);
  CHECK(answer->result.status == 503);
}

TEST_CASE("views: sockets and dns", "[internals][views]") {
  RouterTestEnv t;
  t.Fetch("http://a.test/");
  t.Fetch("https://b.test/");
  UrlRequestContext& context = *t.env.context;
  nlohmann::json sockets = SocketsJson(context);
  CHECK(sockets["idle_socket_count"] == 2);
  REQUIRE(sockets["groups"].contains("https://b.test:443"));
  CHECK(sockets["groups"]["https://b.test:443"]["idle_sockets"].size() == 1);
  // The simulated network speaks HTTP/1.1 here: no socket carries a session.
  CHECK(sockets["http2_sockets"] == nlohmann::json::array());
  CHECK(sockets["groups"]["https://b.test:443"]["http2_sessions"] == nlohmann::json::array());
  CHECK(CloseIdleSockets(context).body ==
        nlohmann::json{{"closed", 2}, {"http2_sessions_closed", 0}});
  CHECK(CloseIdleSockets(context).body ==
        nlohmann::json{{"closed", 0}, {"http2_sessions_closed", 0}});
  CHECK(SocketsJson(context)["idle_socket_count"] == 0);

  nlohmann::json dns = DnsJson(context, t.predictor);
  CHECK(dns["cache"]["entries"].size() == 2);
  CHECK(dns["jobs"].is_object());
  CHECK(dns["startup_list"].is_array());
  CHECK(DnsJson(context, nullptr)["startup_list"] == nlohmann::json::array());
  CHECK(ClearHostCache(context).body == nlohmann::json{{"cleared", 2}});
  CHECK(DnsJson(context, nullptr)["cache"]["entries"].empty());
}

}  // namespace
}  // namespace netstack::test

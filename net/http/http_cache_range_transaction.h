// HttpCacheRangeTransaction: one GET with a single byte Range through the HTTP cache (RFC 9111
// 3.3, 3.4). HttpCacheTransaction hands such a request here (RequestCachePolicy::Mode::kRange)
// and forwards every call. The model (parsing, pieces, combining) is http_cache_range.h.
//
//   stored whole response (200, identity coding), usable without validation
//       ├ range satisfiable   -> a 206 made from the stored body at the range's offset   "hit"
//       └ unsatisfiable       -> a 416 with "Content-Range: bytes */length"               "hit"
//   stored pieces ("<url>#partial"), usable without validation, one piece covers the range
//                             -> a 206 made from the pieces                              "hit"
//   anything else             -> the request as asked, to the network                    "miss"
//       ├ 206 with a usable Content-Range, a strong validator, identity coding, storable:
//       │     combined with the stored pieces of the same validator and length (others are
//       │     replaced); pieces making the whole representation become a 200 entry
//       ├ 200 (the server ignored Range), identity coding, storable: stored as the whole
//       └ anything else: served, not stored
//
// With the request's only-if-cached, "the network" is a 504 made here instead (RFC 9111
// 5.2.1.7). Stale entries are not validated here: the request goes to the network as asked (a plain
// Range request, not the missing part only). Bodies to store are held in memory up to
// PartialContent::kMaxBytes and written when the body ended cleanly.
#ifndef NET_HTTP_HTTP_CACHE_RANGE_TRANSACTION_H_
#define NET_HTTP_HTTP_CACHE_RANGE_TRANSACTION_H_

#include <memory>
#include <string>

#include "cache/backend.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_cache_range.h"
#include "net/http/http_response_info.h"
#include "net/http/http_transaction.h"

namespace netstack {

class HttpCache;

class HttpCacheRangeTransaction : public HttpTransaction {
 public:
  // `cache` must outlive the transaction. `decode_content` as HttpTransactionFactory says (only
  // identity-coded responses are stored or served from the cache here, so both agree).
  HttpCacheRangeTransaction(HttpCache* cache, RequestPriority priority,
                            const NetLogWithSource& net_log, bool decode_content);
  // Cancels a pending open, read or network exchange; nothing is stored.
  ~HttpCacheRangeTransaction() override;
  HttpCacheRangeTransaction(const HttpCacheRangeTransaction&) = delete;
  HttpCacheRangeTransaction& operator=(const HttpCacheRangeTransaction&) = delete;

  // HttpTransaction. `info` must carry a Range that ParseRangeHeader accepts (the policy checked).
  int Start(HttpRequestInfo info, CompletionCallback callback) override;
  int Read(char* buf, int len, CompletionCallback callback) override;
  std::shared_ptr<const HttpResponseHeaders> response_headers() const override;
  LoadTimingInfo GetLoadTimingInfo() const override;
  const ConnectionInfo& connection_info() const override;
  // The network's count when the body came from it (encoded bytes), else the bytes served.
  int64_t encoded_body_bytes() const override {
    return network_ ? network_->encoded_body_bytes() : body_bytes_;
  }
  const std::string& error_detail() const override;
  CacheDisposition cache_disposition() const override { return disposition_; }

 private:
  enum class State {
    kNone,
    kOpenWhole,
    kOpenWholeComplete,
    kOpenPartial,
    kOpenPartialComplete,
    kReadPartial,
    kReadPartialComplete,
    kSendNetwork,
    kSendNetworkComplete,
  };
  enum class Source { kNone, kWholeEntry, kMemory, kNetwork };
  enum class Store { kNone, kWhole, kPiece };

  int DoLoop(int rv);
  void OnIoComplete(int rv);
  int DoOpenWhole();
  int DoOpenWholeComplete(int rv);
  int DoOpenPartial();
  int DoOpenPartialComplete(int rv);
  int DoReadPartial();
  int DoReadPartialComplete(int rv);
  int DoSendNetwork();
  int DoSendNetworkComplete(int rv);

  // Whether a stored response may answer without validation (fresh, or stale as allowed).
  bool Usable(const HttpResponseInfo& stored, CacheDisposition* disposition);
  // Answers from stored headers `stored` (servable form made here) for a representation of
  // `length` bytes: a 206 for the resolved range (body from `source`), or a 416.
  void AnswerFromCache(const HttpResponseInfo& stored, int64_t length, Source source,
                       int64_t body_offset, CacheDisposition disposition);
  // The partial entry is damaged: doomed, and the request goes to the network.
  int PartialDamaged(const std::string& why);
  // Decides whether the network's response is stored, and how.
  void DecideStore();
  // A network read finished with `rv`: keeps the bytes to store, stores at the end.
  int OnNetworkRead(const char* buf, int rv);
  // The network body ended cleanly: writes the whole entry or the combined pieces.
  void FinishStore();
  // Writes `headers` + `body` under `key` (through HttpCacheWriter, so InvalidateKey reaches it).
  void WriteEntry(const std::string& key, std::shared_ptr<HttpResponseHeaders> headers,
                  const std::string& body);
  void LogNotStored(const std::string& why);

  HttpCache* const cache_;
  const RequestPriority priority_;
  const NetLogWithSource net_log_;
  const bool decode_content_;

  HttpRequestInfo info_;
  HttpRequestHeaders sent_headers_;
  std::string key_;
  ByteRangeSpec range_;

  State next_state_ = State::kNone;
  CompletionCallback callback_;
  CacheDisposition disposition_ = CacheDisposition::kMiss;

  std::unique_ptr<CacheEntry> entry_;
  // The stored pieces (loaded when present and sound), combined with a new piece of the same
  // representation.
  bool have_pieces_ = false;
  PartialContent pieces_;
  std::string partial_body_;
  int64_t partial_read_ = 0;

  std::unique_ptr<HttpTransaction> network_;
  Time request_time_{};
  Time response_time_{};

  std::shared_ptr<const HttpResponseHeaders> response_headers_;
  Source source_ = Source::kNone;
  int64_t read_offset_ = 0;  // kWholeEntry: the entry's offset; kMemory: into served_
  int64_t remaining_ = 0;    // bytes still to hand out from the cache
  std::string served_;       // kMemory: the bytes of the range
  int64_t body_bytes_ = 0;

  Store store_ = Store::kNone;
  ContentRange piece_range_;
  std::string validator_;
  std::string store_body_;

  ConnectionInfo no_connection_;
  TimeTicks start_ticks_{};
  TimeTicks headers_ticks_{};
  TimeTicks body_end_ticks_{};
  std::string error_detail_;

  WeakPtrFactory<HttpCacheRangeTransaction> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_RANGE_TRANSACTION_H_

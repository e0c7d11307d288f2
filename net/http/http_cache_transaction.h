// HttpCacheTransaction: one hop through the HTTP cache (Chrome's HttpCache::Transaction,
// simplified: ranges in http_cache_range_transaction.h, no waiting for another writer of the same
// entry). The decisions come from http_cache_policy.h; the storage is the HttpCache's CacheBackend.
//
//   GET:  open the entry (key: the URL without fragment)
//         ├ absent / damaged (doomed) / Vary mismatch  -> network, store if storable   "miss"
//         ├ fresh                                      -> serve the stored response     "hit"
//         ├ stale within stale-while-revalidate        -> serve it, revalidate behind   "stale"
//         └ needs validation -> conditional request (If-None-Match / If-Modified-Since)
//              ├ 304 -> stored headers merged and rewritten, stored body served  "revalidated"
//              └ other -> the new response is served and replaces the entry      "miss"
//         └ the network fails or answers 5xx, stale-if-error allows -> stored  "stale"
//   HEAD: the network only; its 200 freshens or invalidates the stored GET        "bypass"
//   OPTIONS, TRACE, GET with no-store/If-*, cache mode no-store: the network        "bypass"
//   GET with one byte Range: HttpCacheRangeTransaction, forwarded to    "hit"/"stale"/"miss"
//   cache mode reload: the network, the response stored                             "miss"
//   other methods: the network, then a 2xx/3xx invalidates the URL and same-origin
//   Location/Content-Location entries                                                "bypass"
//
// Bodies are stored as received (Content-Encoding kept; the network layer is asked for
// transactions that do not decode) and decoded here, for stored and network bodies alike, with
// the cache's max_body_bytes bound (the stream's). A stored response is only committed once its
// whole body arrived: a body cut by an error is never stored; an append that fails (entry too
// large, write queue full, disk full) drops the entry and the response goes on uncached.
//
// Damaged entries: a stream 0 that does not parse, or a body read failing before the response
// was handed out (the first body chunk is read before Start completes), dooms the entry and the
// request goes to the network. A read failing later fails the request (ERR_CACHE_READ_FAILURE
// or ERR_CACHE_CHECKSUM_MISMATCH).
#ifndef NET_HTTP_HTTP_CACHE_TRANSACTION_H_
#define NET_HTTP_HTTP_CACHE_TRANSACTION_H_

#include <memory>
#include <string>
#include <string_view>

#include "cache/backend.h"
#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/base/weak_ptr.h"
#include "net/http/content_decoder.h"
#include "net/http/http_cache_head_update.h"
#include "net/http/http_cache_policy.h"
#include "net/http/http_cache_vary.h"
#include "net/http/http_cache_writer.h"
#include "net/http/http_network_transaction.h"
#include "net/http/http_response_info.h"
#include "net/http/http_transaction.h"
#include "net/http/read_buffer_pool.h"

namespace netstack {

class HttpCache;

class HttpCacheTransaction : public HttpTransaction {
 public:
  enum class Mode {
    kNormal,
    // A stale-while-revalidate revalidation (HttpCache): always validates a stored response,
    // never serves one; after a 304 the body is empty (Read returns 0 at once).
    kBackgroundRevalidation,
  };

  // `cache` must outlive the transaction; the network is its network_layer(). Events go to
  // `net_log`. With `decode_content` false, Read returns the body as stored or received
  // (Content-Encoding kept), as HttpTransactionFactory::CreateTransaction says.
  HttpCacheTransaction(HttpCache* cache, RequestPriority priority, const NetLogWithSource& net_log,
                       bool decode_content = true, Mode mode = Mode::kNormal);
  // Cancels: a pending open or read is dropped, an entry being written is not committed.
  ~HttpCacheTransaction() override;
  HttpCacheTransaction(const HttpCacheTransaction&) = delete;
  HttpCacheTransaction& operator=(const HttpCacheTransaction&) = delete;

  // HttpTransaction. Start also returns ERR_CACHE_MISS for only-if-cached with nothing usable
  // stored (error_detail() says why).
  int Start(HttpRequestInfo info, CompletionCallback callback) override;
  int Read(char* buf, int len, CompletionCallback callback) override;
  std::shared_ptr<const HttpResponseHeaders> response_headers() const override;
  LoadTimingInfo GetLoadTimingInfo() const override;
  const ConnectionInfo& connection_info() const override;
  int64_t encoded_body_bytes() const override;
  const std::string& error_detail() const override;
  CacheDisposition cache_disposition() const override { return disposition_; }

  // The policy's decision for the stored response (kNetwork when none was found).
  CacheAction cache_action() const { return action_; }

 private:
  enum class State {
    kNone,
    kOpenEntry,
    kOpenEntryComplete,
    kReadFirstChunk,
    kReadFirstChunkComplete,
    kSendNetwork,
    kSendNetworkComplete,
    kDrainNetwork,
    kDrainNetworkComplete,
  };
  // Where body bytes come from.
  enum class Source { kNone, kEntry, kNetwork };

  int DoLoop(int rv);
  int DoOpenEntry();
  int DoOpenEntryComplete(int rv);
  int DoReadFirstChunk();
  int DoReadFirstChunkComplete(int rv);
  int DoSendNetwork();
  int DoSendNetworkComplete(int rv);
  int DoDrainNetwork();
  int DoDrainNetworkComplete(int rv);
  void OnIoComplete(int rv);

  // Start without the cache (kBypass/kInvalidate modes): a network transaction (decoding as
  // this one does) that every later call is forwarded to.
  int StartBypass(CompletionCallback callback);
  // The bypassed request's headers arrived (or it failed): invalidates for unsafe methods.
  int OnBypassHeaders(int rv);
  // only-if-cached with nothing usable: under the request's directive a 504 made here (OK),
  // under cache mode only-if-cached ERR_CACHE_MISS (`detail` in error_detail()).
  int OnlyIfCachedMiss(const std::string& detail);
  // The network failed (`error`: a net error or a 5xx status) while validating: serves the
  // stored response instead when stale-if-error allows (RFC 5861), setting the next state.
  bool ServeStaleOnError(const std::string& error);
  // Handles a 304 to the conditional request; returns the next step's result.
  int HandleNotModified();
  // Handles any other network response: storage decision, entry creation.
  void HandleNetworkResponse();
  // Vary (http_cache_vary.h): the URL's key held an index of variants (in entry_); opens the
  // variant the request selects, or goes to the network when none matches.
  int SelectVariant();
  // Vary: the key to store `info` under. A response with Vary is recorded in the URL's index
  // (written now, before its body: an index naming a variant not yet committed is a miss) and
  // gets its variant's key; one without gets "" (the URL's key), and the variants of an index
  // it replaces are doomed.
  std::string PrepareStoreKey(const HttpResponseInfo& info);
  // Dooms the entry opened for this request (damaged or superseded) and logs why.
  void DoomOpenedEntry(const std::string& reason);
  // After a damaged stored response: the network, unless only-if-cached.
  int FallBackToNetwork(const std::string& reason);

  // Body: pulls raw bytes from the source, decodes them into the caller's buffer.
  int DoReadBody();
  // Starts one raw read from the source into `buf`; bytes, 0, an error or ERR_IO_PENDING.
  int ReadRaw(char* buf, int len);
  // Takes a raw read's result (bytes into raw_pending_, 0 as the end, or an error).
  int HandleRawResult(int rv);
  // Takes the result of a raw read made straight into the caller's buffer (identity coding):
  // the bytes (> 0, already the body), 0 at the end (raw_eof_ set), or a terminal error.
  int HandleDirectResult(int rv);
  void OnRawReadComplete(int rv);
  // The body ended (0) or failed: finishes the write (commit or abandon) and the timing.
  int FinishBody(int rv);

  HttpCache* const cache_;
  const RequestPriority priority_;
  const NetLogWithSource net_log_;
  const bool decode_content_;
  const Mode mode_;

  HttpRequestInfo info_;
  // The request's headers as they will be sent (defaults added): what Vary compares.
  HttpRequestHeaders sent_headers_;
  HttpRequestInfo network_info_;  // with the validation headers when validating
  std::string key_;
  // The key opened: key_, or a Vary variant's key once the URL's index selected one.
  std::string open_key_;
  // The URL's index of Vary variants, when its key held one (has_vary_index_).
  VaryIndex vary_index_;
  bool has_vary_index_ = false;
  RequestCachePolicy policy_;
  bool bypass_ = false;

  State next_state_ = State::kNone;
  CompletionCallback callback_;
  CacheAction action_ = CacheAction::kNetwork;
  CacheDisposition disposition_ = CacheDisposition::kBypass;

  // The opened entry and what its stream 0 said.
  // Declared before entry_ and network_ so it outlives them: their destruction cancels any
  // read into it before it goes back to the pool.
  ReadBuffer raw_buf_;  // ReadBuffer::kBytes, taken on the first read that needs it
  std::unique_ptr<CacheEntry> entry_;
  HttpResponseInfo stored_;
  bool open_event_pending_ = false;
  // A conditional request was sent for `entry_`.
  bool validating_ = false;

  std::unique_ptr<HttpTransaction> network_;
  Time request_time_{};
  Time response_time_{};

  // A HEAD's 200 applied to the stored GET (RFC 9111 4.3.5), while it runs.
  std::unique_ptr<HttpCacheHeadUpdate> head_update_;

  // Stores the response being received (a miss or a replacement), when storable.
  std::unique_ptr<HttpCacheWriter> writer_;

  std::shared_ptr<const HttpResponseHeaders> response_headers_;
  Source source_ = Source::kNone;
  std::unique_ptr<ContentDecoder> decoder_;
  std::string_view raw_pending_;  // undecoded bytes in raw_buf_
  bool raw_eof_ = false;
  int body_result_ = 1;  // 0 or an error once the body ended
  int64_t raw_bytes_read_ = 0;
  // Identity coding: raw reads go straight into the caller's buffer (no copy through
  // raw_buf_), and the decoder's output bound is applied here.
  bool direct_read_pending_ = false;
  int64_t direct_bytes_ = 0;
  char* user_buf_ = nullptr;
  int user_len_ = 0;
  CompletionCallback read_callback_;
  std::unique_ptr<char[]> drain_buf_;

  ConnectionInfo no_connection_;
  TimeTicks start_ticks_{};
  TimeTicks headers_ticks_{};
  TimeTicks body_end_ticks_{};
  std::string error_detail_;

  WeakPtrFactory<HttpCacheTransaction> weak_factory_{this};
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_CACHE_TRANSACTION_H_

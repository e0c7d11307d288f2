// HttpTransactionFactory: what makes the transactions of a request's hops (Chrome's
// net::HttpTransactionFactory). Two implementations are stacked in a context: HttpNetworkLayer
// (the network) and, when there is one, HttpCache over it. UrlRequest asks its context's
// http_transaction_factory() for every hop and knows neither.
#ifndef NET_HTTP_HTTP_TRANSACTION_FACTORY_H_
#define NET_HTTP_HTTP_TRANSACTION_FACTORY_H_

#include <memory>

#include "net/base/net_log.h"
#include "net/base/request_priority.h"
#include "net/http/http_transaction.h"

namespace netstack {

class HttpTransactionFactory {
 public:
  virtual ~HttpTransactionFactory() = default;

  // A new transaction for one hop at `priority`; its events go to `net_log` (the request's
  // source). With `decode_content` true its Read returns the body decoded of Content-Encoding
  // (what UrlRequest hands its delegate); false returns it as received, chunked framing removed
  // (what an HTTP cache stores, decoding it itself). The factory must outlive the transaction.
  // Never null.
  virtual std::unique_ptr<HttpTransaction> CreateTransaction(RequestPriority priority,
                                                             const NetLogWithSource& net_log,
                                                             bool decode_content) = 0;
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_TRANSACTION_FACTORY_H_

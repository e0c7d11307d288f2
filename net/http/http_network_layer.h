// HttpNetworkLayer: the network's HttpTransactionFactory (Chrome's net::HttpNetworkLayer): each
// transaction it makes is an HttpNetworkTransaction over its context's socket pool. The context
// owns one; an HttpCache sits on top of it when the context has a cache.
#ifndef NET_HTTP_HTTP_NETWORK_LAYER_H_
#define NET_HTTP_HTTP_NETWORK_LAYER_H_

#include <memory>

#include "net/http/http_transaction_factory.h"

namespace netstack {

class UrlRequestContext;

class HttpNetworkLayer : public HttpTransactionFactory {
 public:
  // `context` (its scheduler, pool and stream settings) must outlive the layer and every
  // transaction it makes.
  explicit HttpNetworkLayer(UrlRequestContext* context);
  HttpNetworkLayer(const HttpNetworkLayer&) = delete;
  HttpNetworkLayer& operator=(const HttpNetworkLayer&) = delete;

  // An HttpNetworkTransaction (see HttpTransactionFactory).
  std::unique_ptr<HttpTransaction> CreateTransaction(RequestPriority priority,
                                                     const NetLogWithSource& net_log,
                                                     bool decode_content) override;

 private:
  UrlRequestContext* const context_;
};

}  // namespace netstack

#endif  // NET_HTTP_HTTP_NETWORK_LAYER_H_

#include "net/http/http_network_layer.h"

#include "net/http/http_network_transaction.h"

namespace netstack {

HttpNetworkLayer::HttpNetworkLayer(UrlRequestContext* context) : context_(context) {}

std::unique_ptr<HttpTransaction> HttpNetworkLayer::CreateTransaction(
    RequestPriority priority, const NetLogWithSource& net_log, bool decode_content) {
  return std::make_unique<HttpNetworkTransaction>(context_, priority, net_log, decode_content);
}

}  // namespace netstack

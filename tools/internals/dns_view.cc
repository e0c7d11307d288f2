#include "tools/internals/dns_view.h"

#include "net/dns/host_resolver_manager.h"
#include "net/http/url_request_context.h"
#include "predictor/predictor.h"

namespace netstack {

nlohmann::json DnsJson(const UrlRequestContext& context, const Predictor* predictor) {
  nlohmann::json answer = context.host_resolver()->GetPolledData();
  nlohmann::json startup = nlohmann::json::array();
  if (predictor) {
    // The whole predictor info is built to read one table: the page asks rarely, and the
    // tables are bounded, so this stays cheap and needs no new predictor API.
    nlohmann::json info = predictor->GetInfoAsJson();
    auto tables = info.find("tables");
    if (tables != info.end() && tables->is_object()) {
      auto list = tables->find("startup");
      if (list != tables->end() && list->is_array()) startup = std::move(*list);
    }
  }
  answer["startup_list"] = std::move(startup);
  return answer;
}

InternalsResult ClearHostCache(UrlRequestContext& context) {
  HostResolverManager* resolver = context.host_resolver();
  const size_t before = resolver->GetCache().size();
  resolver->ClearCache();
  return InternalsResult::Ok({{"cleared", before - resolver->GetCache().size()}});
}

}  // namespace netstack

// The internals page's DNS view (docs/internals.md, /api/dns*): the host cache, the resolver's
// jobs and configuration (HostResolverManager::GetPolledData), and the predictor's startup list.
#ifndef TOOLS_INTERNALS_DNS_VIEW_H_
#define TOOLS_INTERNALS_DNS_VIEW_H_

#include <nlohmann/json.hpp>

#include "tools/internals/internals_host.h"

namespace netstack {

class Predictor;
class UrlRequestContext;

// GET /api/dns: the resolver's polled data ({"cache": HostCache::ToJson, "jobs", "dns_config",
// "config"}) plus "startup_list": the predictor's "startup" table ([{host, count, ...}]) from
// Predictor::GetInfoAsJson, or [] when `predictor` is null or its policy has no such table.
nlohmann::json DnsJson(const UrlRequestContext& context, const Predictor* predictor);

// POST /api/dns/clear: removes every host cache entry (jobs still running store their answers
// when they finish; counters and the network generation are kept). {"cleared": N entries}.
InternalsResult ClearHostCache(UrlRequestContext& context);

}  // namespace netstack

#endif  // TOOLS_INTERNALS_DNS_VIEW_H_

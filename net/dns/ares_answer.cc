#include "net/dns/ares_answer.h"

#include <algorithm>

namespace netstack {

int MapAresStatus(int status) {
  switch (status) {
    case ARES_SUCCESS:
      return OK;
    case ARES_ENOTFOUND:
    case ARES_ENODATA:
    case ARES_EBADNAME:
      return ERR_NAME_NOT_RESOLVED;
    case ARES_ESERVFAIL:
    case ARES_EFORMERR:
    case ARES_ENOTIMP:
      return ERR_DNS_SERVER_FAILED;
    case ARES_EREFUSED:
      return ERR_DNS_REFUSED;
    case ARES_ETIMEOUT:
      return ERR_DNS_TIMED_OUT;
    case ARES_EBADRESP:
      return ERR_DNS_MALFORMED_RESPONSE;
    case ARES_ECONNREFUSED:
      // c-ares's name for "no server could be reached" (ICMP port unreachable, no route, a
      // socket that would not open). ERR_CONNECTION_REFUSED would blame the web server.
      return ERR_DNS_SERVER_UNREACHABLE;
    case ARES_ENOMEM:
      return ERR_OUT_OF_MEMORY;
    case ARES_EDESTRUCTION:
    case ARES_ECANCELLED:
      return ERR_ABORTED;
    default:
      return ERR_FAILED;
  }
}

std::string DescribeAresFailure(int status, const AresServerInfo& info) {
  const std::string from = " from " + info.servers;
  switch (status) {
    case ARES_ENOTFOUND:
      return "NXDOMAIN" + from;
    case ARES_ENODATA:
      return "no address records (NODATA)" + from;
    case ARES_ESERVFAIL:
      return "SERVFAIL" + from;
    case ARES_EFORMERR:
      return "FORMERR" + from;
    case ARES_ENOTIMP:
      return "NOTIMP" + from;
    case ARES_EREFUSED:
      return "REFUSED" + from;
    case ARES_EBADRESP:
      return "malformed answer" + from;
    case ARES_ETIMEOUT: {
      std::string text = "no answer" + from + " after " + std::to_string(info.tries) +
                         (info.tries == 1 ? " try" : " tries");
      if (info.servers.find(',') != std::string::npos) text += " each";
      return text;
    }
    case ARES_ECONNREFUSED:
      return "cannot reach " + info.servers + " (port closed or no route)";
    case ARES_EBADNAME:
      return "c-ares rejected the name";
    case ARES_ENOMEM:
      return "c-ares ran out of memory";
    default:
      return std::string("c-ares: ") + ares_strerror(status);
  }
}

AresFamilyResult ConvertAresAnswer(int status, const ares_addrinfo* answer, int family) noexcept {
  AresFamilyResult result;
  result.status = status;
  if (status != ARES_SUCCESS) {
    result.error = MapAresStatus(status);
    return result;
  }
  try {
    for (const ares_addrinfo_node* node = answer ? answer->nodes : nullptr; node;
         node = node->ai_next) {
      auto endpoint = IPEndPoint::FromSockAddr(node->ai_addr);
      if (!endpoint) continue;
      // Only the family asked (see the header).
      if ((family == AF_INET && !endpoint->address().IsIPv4()) ||
          (family == AF_INET6 && !endpoint->address().IsIPv6())) {
        continue;
      }
      // ai_socktype 0 can yield one node per socket type; keep each address once.
      if (std::find(result.addresses.begin(), result.addresses.end(), endpoint->address()) ==
          result.addresses.end()) {
        result.addresses.push_back(endpoint->address());
      }
      result.ttl = std::min(result.ttl, Seconds(std::max(node->ai_ttl, 0)));
    }
    // A CNAME on the way to the addresses bounds the answer's life too.
    for (const ares_addrinfo_cname* cname = answer ? answer->cnames : nullptr; cname;
         cname = cname->next) {
      result.ttl = std::min(result.ttl, Seconds(std::max(cname->ttl, 0)));
    }
  } catch (...) {
    result = AresFamilyResult();
    result.status = ARES_ENOMEM;
    result.error = ERR_OUT_OF_MEMORY;
    return result;
  }
  // NOERROR with no usable address record is NODATA: the name has no address of this family.
  if (result.addresses.empty()) {
    result.status = ARES_ENODATA;
    result.error = ERR_NAME_NOT_RESOLVED;
  } else {
    result.error = OK;
  }
  return result;
}

DnsTransportResult CombineAresFamilies(const std::vector<AresFamilyResult>& parts,
                                       const AresServerInfo& info) {
  DnsTransportResult result;
  TimeDelta ttl = TimeDelta::max();
  for (const AresFamilyResult& part : parts) {
    if (part.error != OK) continue;
    result.addresses.insert(result.addresses.end(), part.addresses.begin(), part.addresses.end());
    ttl = std::min(ttl, part.ttl);
  }
  if (!result.addresses.empty()) {
    result.error = OK;
    result.ttl = ttl == TimeDelta::max() ? TimeDelta::zero() : ttl;
    return result;
  }
  const AresFamilyResult* chosen = parts.empty() ? nullptr : &parts.back();
  auto nxdomain = std::find_if(parts.begin(), parts.end(), [](const AresFamilyResult& part) {
    return part.status == ARES_ENOTFOUND;
  });
  if (nxdomain != parts.end()) {
    chosen = &*nxdomain;
  } else {
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      if (it->error != ERR_NAME_NOT_RESOLVED) {
        chosen = &*it;
        break;
      }
    }
  }
  result.error = chosen ? chosen->error : ERR_NAME_NOT_RESOLVED;
  if (chosen) result.detail = DescribeAresFailure(chosen->status, info);
  return result;
}

}  // namespace netstack

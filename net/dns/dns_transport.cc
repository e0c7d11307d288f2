#include "net/dns/dns_transport.h"

namespace netstack {

int DnsRcodeToNetError(int rcode) {
  switch (rcode) {
    case 0:  // NOERROR
      return OK;
    case 3:  // NXDOMAIN
      return ERR_NAME_NOT_RESOLVED;
    case 5:  // REFUSED
      return ERR_DNS_REFUSED;
    case 2:  // SERVFAIL
    default:
      // FORMERR (1) and NOTIMP (4) mean the server could not or would not answer our
      // well-formed query; to the user that is a server failure, as in Chrome.
      return ERR_DNS_SERVER_FAILED;
  }
}

nlohmann::json IPAddressesToJson(const std::vector<IPAddress>& addresses) {
  nlohmann::json list = nlohmann::json::array();
  for (const IPAddress& address : addresses) list.push_back(address.ToString());
  return list;
}

const char* AddressFamilyToString(AddressFamily family) {
  switch (family) {
    case AddressFamily::kIPv4:
      return "ipv4";
    case AddressFamily::kIPv6:
      return "ipv6";
    case AddressFamily::kUnspecified:
      break;
  }
  return "unspecified";
}

}  // namespace netstack

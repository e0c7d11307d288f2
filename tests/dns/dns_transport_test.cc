#include "net/dns/dns_transport.h"

#include <catch2/catch.hpp>

#include "net/dns/ares_dns_transport.h"

using namespace netstack;

TEST_CASE("DNS response codes map to distinct net errors") {
  CHECK(DnsRcodeToNetError(0) == OK);
  CHECK(DnsRcodeToNetError(1) == ERR_DNS_SERVER_FAILED);  // FORMERR
  CHECK(DnsRcodeToNetError(2) == ERR_DNS_SERVER_FAILED);  // SERVFAIL
  CHECK(DnsRcodeToNetError(3) == ERR_NAME_NOT_RESOLVED);  // NXDOMAIN
  CHECK(DnsRcodeToNetError(4) == ERR_DNS_SERVER_FAILED);  // NOTIMP
  CHECK(DnsRcodeToNetError(5) == ERR_DNS_REFUSED);        // REFUSED
}

TEST_CASE("c-ares statuses map to distinct net errors") {
  CHECK(MapAresStatus(ARES_SUCCESS) == OK);
  CHECK(MapAresStatus(ARES_ENOTFOUND) == ERR_NAME_NOT_RESOLVED);
  CHECK(MapAresStatus(ARES_ENODATA) == ERR_NAME_NOT_RESOLVED);
  CHECK(MapAresStatus(ARES_ESERVFAIL) == ERR_DNS_SERVER_FAILED);
  CHECK(MapAresStatus(ARES_EREFUSED) == ERR_DNS_REFUSED);
  CHECK(MapAresStatus(ARES_ETIMEOUT) == ERR_DNS_TIMED_OUT);
  CHECK(MapAresStatus(ARES_EBADRESP) == ERR_DNS_MALFORMED_RESPONSE);
  CHECK(MapAresStatus(ARES_ECONNREFUSED) == ERR_DNS_SERVER_UNREACHABLE);  // Not a web server.
  CHECK(MapAresStatus(ARES_EDESTRUCTION) == ERR_ABORTED);
  CHECK(MapAresStatus(ARES_ENOMEM) == ERR_OUT_OF_MEMORY);
  CHECK(MapAresStatus(9999) == ERR_FAILED);
}

TEST_CASE("address helpers") {
  CHECK(IPAddressesToJson({*IPAddress::Parse("10.0.0.1"), *IPAddress::Parse("::1")}) ==
        nlohmann::json({"10.0.0.1", "::1"}));
  CHECK(std::string(AddressFamilyToString(AddressFamily::kIPv6)) == "ipv6");
}

// ConvertAresAnswer on hand-built c-ares answers (net/dns/ares_answer.h).
#include "net/dns/ares_answer.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <catch2/catch.hpp>

namespace netstack {
namespace {

// One answer with an IPv4 node (TTL 30) followed by an IPv6 node (TTL 60), as c-ares gives
// when a reply holds both kinds of records, whatever the query asked for.
struct MixedAnswer {
  sockaddr_in v4{};
  sockaddr_in6 v6{};
  ares_addrinfo_node node6{};
  ares_addrinfo_node node4{};
  ares_addrinfo info{};

  MixedAnswer() {
    v4.sin_family = AF_INET;
    inet_pton(AF_INET, "192.0.2.1", &v4.sin_addr);
    v6.sin6_family = AF_INET6;
    inet_pton(AF_INET6, "2001:db8::1", &v6.sin6_addr);
    node4 = {30, 0, AF_INET, 0, 0, sizeof(v4), reinterpret_cast<sockaddr*>(&v4), &node6};
    node6 = {60, 0, AF_INET6, 0, 0, sizeof(v6), reinterpret_cast<sockaddr*>(&v6), nullptr};
    info.nodes = &node4;
  }
};

// Found by tests/fuzz/fuzz_ares_answer (corpus/ares_answer/regress-aaaa-answered-with-a): a server
// answering the AAAA query with an A record put an IPv4 address in the IPv6 part.
TEST_CASE("an answer keeps only the family its query asked for") {
  MixedAnswer answer;
  AresFamilyResult v6 = ConvertAresAnswer(ARES_SUCCESS, &answer.info, AF_INET6);
  REQUIRE(v6.error == OK);
  REQUIRE(v6.addresses.size() == 1);
  CHECK(v6.addresses[0].IsIPv6());
  CHECK(v6.ttl == Seconds(60));  // the dropped record's TTL does not count

  AresFamilyResult v4 = ConvertAresAnswer(ARES_SUCCESS, &answer.info, AF_INET);
  REQUIRE(v4.addresses.size() == 1);
  CHECK(v4.addresses[0].IsIPv4());
  CHECK(v4.ttl == Seconds(30));

  CHECK(ConvertAresAnswer(ARES_SUCCESS, &answer.info, AF_UNSPEC).addresses.size() == 2);
}

TEST_CASE("an answer with only the other family's records is NODATA") {
  MixedAnswer answer;
  answer.node4.ai_next = nullptr;  // the IPv4 node alone
  AresFamilyResult v6 = ConvertAresAnswer(ARES_SUCCESS, &answer.info, AF_INET6);
  CHECK(v6.error == ERR_NAME_NOT_RESOLVED);
  CHECK(v6.status == ARES_ENODATA);
  CHECK(v6.addresses.empty());
}

}  // namespace
}  // namespace netstack

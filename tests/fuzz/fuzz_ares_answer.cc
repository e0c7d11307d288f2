// libFuzzer target for DNS answer handling: c-ares (configured as AresDnsTransport configures
// it) reads the input as the DNS server's replies, and net/dns/ares_answer.h turns its
// answers into addresses, a TTL and a one-line failure. The server is faked with c-ares's
// socket functions (no network): a query "sent" is captured, and the reply "received" is the
// input with the query's ID patched in. Input: a 2-byte big-endian length, the reply to the
// AAAA query (that many bytes), then the reply to the A query.
// Promises checked: each family's callback runs exactly once; a success has addresses of the
// family asked, a failure none; the combined result has addresses exactly when it is OK, a
// TTL of zero on failure, and a one-line detail only on failure.
#include <ares.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "net/base/net_error.h"
#include "net/dns/ares_answer.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

constexpr ares_socket_t kFakeSocket = 1000;

// The fake server's state for the query in flight.
struct FakeServer {
  std::string query;  // the last query sent
  std::string reply;  // the reply to hand out once a query was sent
  bool replied = false;
};
FakeServer server;

ares_socket_t FakeSocket(int, int type, int, void*) {
  if (type != SOCK_DGRAM) {
    errno = EAFNOSUPPORT;  // no TCP fallback: a truncated reply fails the query
    return ARES_SOCKET_BAD;
  }
  return kFakeSocket;
}
int FakeClose(ares_socket_t, void*) { return 0; }
int FakeConnect(ares_socket_t, const sockaddr*, ares_socklen_t, void*) { return 0; }
ares_ssize_t FakeRecvFrom(ares_socket_t, void* buf, size_t len, int, sockaddr* from,
                          ares_socklen_t* from_len, void*) {
  if (server.replied || server.query.size() < 2) {
    errno = EAGAIN;
    return -1;
  }
  server.replied = true;
  std::string reply = server.reply;
  if (reply.size() >= 2) reply.replace(0, 2, server.query.substr(0, 2));  // the query's ID
  size_t n = std::min(len, reply.size());
  std::memcpy(buf, reply.data(), n);
  if (from && from_len) {  // c-ares drops replies from other addresses
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(53);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::memcpy(from, &sin, std::min<size_t>(*from_len, sizeof(sin)));
    *from_len = sizeof(sin);
  }
  return static_cast<ares_ssize_t>(n);
}
ares_ssize_t FakeSendV(ares_socket_t, const iovec* iov, int count, void*) {
  server.query.clear();
  for (int i = 0; i < count; ++i)
    server.query.append(static_cast<char*>(iov[i].iov_base), iov[i].iov_len);
  return static_cast<ares_ssize_t>(server.query.size());
}
const ares_socket_functions kFakeFunctions = {FakeSocket, FakeClose, FakeConnect, FakeRecvFrom,
                                              FakeSendV};

ares_channel Channel() {
  static ares_channel channel = [] {
    if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS) __builtin_trap();
    ares_options opts = {};
    opts.flags = ARES_FLAG_NOCHECKRESP | ARES_FLAG_STAYOPEN;
    opts.timeout = 1000;
    opts.tries = 1;
    char lookups[] = "b";
    opts.lookups = lookups;
    opts.domains = nullptr;
    opts.ndomains = 0;
    ares_channel c = nullptr;
    int optmask =
        ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_LOOKUPS | ARES_OPT_DOMAINS;
    if (ares_init_options(&c, &opts, optmask) != ARES_SUCCESS) __builtin_trap();
    if (ares_set_servers_ports_csv(c, "127.0.0.1:53") != ARES_SUCCESS) __builtin_trap();
    ares_set_socket_functions(c, &kFakeFunctions, nullptr);
    return c;
  }();
  return channel;
}

struct Answer {
  int family = AF_UNSPEC;
  int calls = 0;
  netstack::AresFamilyResult result;
};

void OnAnswer(void* arg, int status, int, ares_addrinfo* info) {
  auto* answer = static_cast<Answer*>(arg);
  ++answer->calls;
  answer->result = netstack::ConvertAresAnswer(status, info, answer->family);
  if (info) ares_freeaddrinfo(info);
}

// Asks for `family` addresses of "a.test"; `reply` is the server's answer.
netstack::AresFamilyResult Resolve(int family, std::string_view reply) {
  server = FakeServer();
  server.reply = std::string(reply);
  Answer answer;
  answer.family = family;
  ares_addrinfo_hints hints = {};
  hints.ai_family = family;
  hints.ai_flags = ARES_AI_NOSORT;
  ares_getaddrinfo(Channel(), "a.test", nullptr, &hints, &OnAnswer, &answer);
  // Deliver the reply (twice: a second read finds nothing), then give up on the query.
  for (int i = 0; i < 2 && answer.calls == 0; ++i) {
    ares_process_fd(Channel(), kFakeSocket, ARES_SOCKET_BAD);
  }
  ares_cancel(Channel());
  FUZZ_CHECK(answer.calls == 1);
  const netstack::AresFamilyResult& r = answer.result;
  FUZZ_CHECK((r.error == netstack::OK) == !r.addresses.empty());
  for (const netstack::IPAddress& address : r.addresses) {
    FUZZ_CHECK(family == AF_INET ? address.IsIPv4() : address.IsIPv6());
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > 4096) return 0;
  size_t first = std::min<size_t>((size_t{data[0]} << 8) | data[1], size - 2);
  std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  std::vector<netstack::AresFamilyResult> parts;
  parts.push_back(Resolve(AF_INET6, rest.substr(0, first)));
  parts.push_back(Resolve(AF_INET, rest.substr(first)));
  netstack::AresServerInfo info{"127.0.0.1:53", 1};
  netstack::DnsTransportResult combined = netstack::CombineAresFamilies(parts, info);
  FUZZ_CHECK((combined.error == netstack::OK) == !combined.addresses.empty());
  if (combined.error == netstack::OK) {
    FUZZ_CHECK(combined.detail.empty());
    FUZZ_CHECK(combined.ttl >= netstack::TimeDelta::zero());
  } else {
    FUZZ_CHECK(combined.ttl == netstack::TimeDelta::zero());
    FUZZ_CHECK(combined.detail.find('\n') == std::string::npos);
  }
  for (const auto& part : parts) {
    FUZZ_CHECK(netstack::DescribeAresFailure(part.status, info).find('\n') == std::string::npos);
  }
  return 0;
}

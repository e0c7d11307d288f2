// FaultDnsServer: a tiny UDP DNS server on loopback that fails on purpose, for what a real
// server will not do on demand. It runs on a libuv loop (the test's own loop, or its own in
// fault_dns_server_main). Modes:
//   servfail - answers every query with a copy of its question, QR set, RCODE=SERVFAIL.
//   refused  - the same with RCODE=REFUSED.
//   silent   - never answers (the client times out).
//   garbage  - answers with the query's header and question (so the client takes it as the
//              answer) and an answer section cut short: a malformed response. Random bytes would
//              not do: a resolver drops a datagram that does not match its query, which is a
//              timeout, not a malformed answer.
#ifndef TESTS_DNS_FAULT_DNS_SERVER_H_
#define TESTS_DNS_FAULT_DNS_SERVER_H_

#include <uv.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace netstack {

class FaultDnsServer {
 public:
  enum class Mode { kServfail, kRefused, kSilent, kGarbage };
  // "servfail", "refused", "silent", "garbage"; nullopt for anything else.
  static std::optional<Mode> ParseMode(std::string_view text);
  static const char* ModeToString(Mode mode);

  // Builds the reply to `query` in `mode` (empty: do not answer, including for a datagram that
  // is not a DNS query). Exposed for tests of the server itself.
  static std::vector<uint8_t> BuildReply(const uint8_t* query, size_t length, Mode mode);

  // `loop` must outlive the server.
  explicit FaultDnsServer(uv_loop_t* loop);
  // Closes the socket; the handle is freed in its close callback, so run the loop afterwards.
  ~FaultDnsServer();
  FaultDnsServer(const FaultDnsServer&) = delete;
  FaultDnsServer& operator=(const FaultDnsServer&) = delete;

  // Binds 127.0.0.1:`port` (0 picks a free port) and serves. Returns 0 or a libuv error.
  int Start(Mode mode, uint16_t port = 0);
  // Stops serving and closes the socket (also done by the destructor).
  void Close();

  void set_mode(Mode mode) { mode_ = mode; }
  uint16_t port() const { return port_; }
  // Datagrams received so far.
  size_t queries() const { return queries_; }

 private:
  static void OnAlloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void OnReceive(uv_udp_t* handle, ssize_t nread, const uv_buf_t* buf, const sockaddr* from,
                        unsigned flags);

  uv_loop_t* const loop_;
  uv_udp_t* udp_ = nullptr;  // Freed in its close callback.
  Mode mode_ = Mode::kSilent;
  uint16_t port_ = 0;
  size_t queries_ = 0;
  std::array<char, 4096> buffer_;  // One datagram at a time (the loop is single-threaded).
};

}  // namespace netstack

#endif  // TESTS_DNS_FAULT_DNS_SERVER_H_

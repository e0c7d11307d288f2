#include "tests/dns/fault_dns_server.h"

#include <netinet/in.h>

namespace netstack {

namespace {

constexpr size_t kHeaderSize = 12;
constexpr uint8_t kRcodeServfail = 2;
constexpr uint8_t kRcodeRefused = 5;

// Offset just past the first question (QNAME, QTYPE, QCLASS), or 0 if it does not parse.
size_t EndOfQuestion(const uint8_t* message, size_t length) {
  size_t offset = kHeaderSize;
  while (offset < length) {
    uint8_t label = message[offset];
    if (label == 0) {
      offset += 1 + 4;  // Root label, then QTYPE and QCLASS.
      return offset <= length ? offset : 0;
    }
    if (label & 0xC0) return 0;  // No compression in a query's QNAME.
    offset += 1 + label;
  }
  return 0;
}

}  // namespace

std::optional<FaultDnsServer::Mode> FaultDnsServer::ParseMode(std::string_view text) {
  if (text == "servfail") return Mode::kServfail;
  if (text == "refused") return Mode::kRefused;
  if (text == "silent") return Mode::kSilent;
  if (text == "garbage") return Mode::kGarbage;
  return std::nullopt;
}

const char* FaultDnsServer::ModeToString(Mode mode) {
  switch (mode) {
    case Mode::kServfail:
      return "servfail";
    case Mode::kRefused:
      return "refused";
    case Mode::kSilent:
      return "silent";
    case Mode::kGarbage:
      break;
  }
  return "garbage";
}

std::vector<uint8_t> FaultDnsServer::BuildReply(const uint8_t* query, size_t length, Mode mode) {
  if (mode == Mode::kSilent || length < kHeaderSize) return {};
  if (query[2] & 0x80) return {};  // A response, not a query.
  uint16_t qdcount = static_cast<uint16_t>((query[4] << 8) | query[5]);
  size_t question_end = EndOfQuestion(query, length);
  if (qdcount != 1 || question_end == 0) return {};

  // Header and question only: drops any additional records (EDNS OPT) of the query.
  std::vector<uint8_t> reply(query, query + question_end);
  reply[2] = static_cast<uint8_t>(0x80 | (query[2] & 0x79));  // QR, same opcode, keep RD.
  reply[3] = 0x80;                                            // RA, RCODE filled below.
  for (size_t i = 6; i < kHeaderSize; ++i) reply[i] = 0;      // AN, NS, AR counts.
  switch (mode) {
    case Mode::kServfail:
      reply[3] |= kRcodeServfail;
      break;
    case Mode::kRefused:
      reply[3] |= kRcodeRefused;
      break;
    case Mode::kGarbage:
      // NOERROR with one answer record that stops after its name and type: TYPE A, then the
      // message ends where CLASS, TTL, RDLENGTH and RDATA should be.
      reply[7] = 1;
      reply.insert(reply.end(), {0xC0, 0x0C, 0x00, 0x01, 0x00});
      break;
    case Mode::kSilent:
      break;
  }
  return reply;
}

FaultDnsServer::FaultDnsServer(uv_loop_t* loop) : loop_(loop) {}

FaultDnsServer::~FaultDnsServer() { Close(); }

int FaultDnsServer::Start(Mode mode, uint16_t port) {
  Close();
  mode_ = mode;
  udp_ = new uv_udp_t;
  int rv = uv_udp_init(loop_, udp_);
  if (rv != 0) {
    delete udp_;  // Not initialised: no close callback to wait for.
    udp_ = nullptr;
    return rv;
  }
  udp_->data = this;
  sockaddr_in address = {};
  uv_ip4_addr("127.0.0.1", port, &address);
  rv = uv_udp_bind(udp_, reinterpret_cast<const sockaddr*>(&address), 0);
  if (rv == 0) rv = uv_udp_recv_start(udp_, &OnAlloc, &OnReceive);
  if (rv != 0) {
    Close();
    return rv;
  }
  sockaddr_storage bound = {};
  int length = sizeof(bound);
  uv_udp_getsockname(udp_, reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return 0;
}

void FaultDnsServer::Close() {
  if (!udp_) return;
  uv_udp_recv_stop(udp_);
  udp_->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(udp_),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_udp_t*>(handle); });
  udp_ = nullptr;
}

void FaultDnsServer::OnAlloc(uv_handle_t* handle, size_t /*suggested*/, uv_buf_t* buf) {
  auto* self = static_cast<FaultDnsServer*>(handle->data);
  if (!self) {
    *buf = uv_buf_init(nullptr, 0);
    return;
  }
  *buf = uv_buf_init(self->buffer_.data(), static_cast<unsigned>(self->buffer_.size()));
}

void FaultDnsServer::OnReceive(uv_udp_t* handle, ssize_t nread, const uv_buf_t* buf,
                               const sockaddr* from, unsigned /*flags*/) {
  auto* self = static_cast<FaultDnsServer*>(handle->data);
  if (!self || nread <= 0 || !from) return;  // nread 0 with no sender: nothing to read.
  ++self->queries_;
  std::vector<uint8_t> reply = BuildReply(reinterpret_cast<const uint8_t*>(buf->base),
                                          static_cast<size_t>(nread), self->mode_);
  if (reply.empty()) return;
  // Loopback UDP: a synchronous send either goes out now or is dropped, like a lossy network.
  uv_buf_t out =
      uv_buf_init(reinterpret_cast<char*>(reply.data()), static_cast<unsigned>(reply.size()));
  uv_udp_try_send(handle, &out, 1, from);
}

}  // namespace netstack

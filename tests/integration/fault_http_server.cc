#include "tests/integration/fault_http_server.h"

#include <arpa/inet.h>
#include <brotli/encode.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace netstack::test {
namespace {

// Bounds: a request head larger than this is refused; so is a body or a connection count.
constexpr size_t kMaxRequestHead = 64 * 1024;
constexpr size_t kMaxRequestBody = 16 * 1024 * 1024;
constexpr int kMaxConnections = 10000;

std::string Brotli(const std::string& in) {
  size_t size = BrotliEncoderMaxCompressedSize(in.size());
  std::string out(size, '\0');
  if (!BrotliEncoderCompress(5, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, in.size(),
                             reinterpret_cast<const uint8_t*>(in.data()), &size,
                             reinterpret_cast<uint8_t*>(out.data()))) {
    return "";
  }
  out.resize(size);
  return out;
}

// window_bits 15: zlib format (HTTP "deflate"); 31: gzip.
std::string Zlib(const std::string& in, int window_bits) {
  z_stream s{};
  if (deflateInit2(&s, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&s, in.size()), '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s.avail_in = static_cast<uInt>(in.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  int rv = deflate(&s, Z_FINISH);
  out.resize(s.total_out);
  deflateEnd(&s);
  return rv == Z_STREAM_END ? out : "";
}

std::string Head(const std::string& status, const std::vector<std::string>& headers) {
  std::string h = "HTTP/1.1 " + status + "\r\nServer: netstack-fault\r\n";
  for (const std::string& line : headers) h += line + "\r\n";
  return h + "\r\n";
}

std::string WithLength(const std::string& status, std::vector<std::string> headers,
                       const std::string& body) {
  headers.push_back("Content-Length: " + std::to_string(body.size()));
  return Head(status, headers) + body;
}

std::string Hex(size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%zx", n);
  return buf;
}

// Case-insensitive search for a header's value in a request head; "" if absent.
std::string HeaderValue(const std::string& head, const std::string& name) {
  std::string lower = head;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t pos = lower.find("\r\n" + name + ":");
  if (pos == std::string::npos) return "";
  pos += name.size() + 3;
  size_t end = head.find("\r\n", pos);
  std::string v = head.substr(pos, end - pos);
  while (!v.empty() && v.front() == ' ') v.erase(0, 1);
  return v;
}

}  // namespace

struct FaultHttpServer::Connection {
  int fd = -1;  // -1 once the serving thread closed it (under mutex_).
  std::thread thread;
};

const std::string& FaultHttpServer::Payload() {
  static const std::string* payload = [] {
    auto* s = new std::string;
    for (int i = 0; s->size() < 20000; ++i) {
      *s += "line " + std::to_string(i) + ": netstack fault server payload, compressible\n";
    }
    s->resize(20000);
    return s;
  }();
  return *payload;
}

std::string FaultHttpServer::Request::Header(const std::string& name) const {
  return HeaderValue(head, name);
}

std::string FaultHttpServer::Response(const std::string& status,
                                      const std::vector<std::string>& headers,
                                      const std::string& body) {
  return WithLength(status, headers, body);
}

FaultHttpServer::FaultHttpServer() = default;

FaultHttpServer::~FaultHttpServer() { Stop(); }

bool FaultHttpServer::Start(int port, std::string* error) {
  if (::pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    *error =
        std::string("listen on 127.0.0.1:") + std::to_string(port) + ": " + std::strerror(errno);
    return false;
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return true;
}

void FaultHttpServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (wake_pipe_[1] >= 0) {
    char c = 1;
    (void)!::write(wake_pipe_[1], &c, 1);
  }
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::unique_ptr<Connection>> conns;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& conn : conns_) {
      if (conn->fd >= 0) ::shutdown(conn->fd, SHUT_RDWR);
    }
    conns.swap(conns_);
  }
  for (auto& conn : conns) {
    if (conn->thread.joinable()) conn->thread.join();
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (int& fd : wake_pipe_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  listen_fd_ = -1;
}

std::string FaultHttpServer::Url(const std::string& path, const std::string& host) const {
  return "http://" + host + ":" + std::to_string(port_) + path;
}

std::vector<std::string> FaultHttpServer::paths() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return paths_;
}

std::vector<FaultHttpServer::Request> FaultHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

int FaultHttpServer::CountPath(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  int n = 0;
  for (const std::string& p : paths_) n += p == path ? 1 : 0;
  return n;
}

void FaultHttpServer::AcceptLoop() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || connections_ >= kMaxConnections) {
      ::close(fd);
      continue;
    }
    ++connections_;
    auto conn = std::make_unique<Connection>();
    conn->fd = fd;
    Connection* raw = conn.get();
    conns_.push_back(std::move(conn));
    raw->thread = std::thread([this, raw] { Serve(raw); });
  }
}

bool FaultHttpServer::Wait(int ms) {
  pollfd p = {wake_pipe_[0], POLLIN, 0};
  return ::poll(&p, 1, ms) == 0 && !stopping_;
}

bool FaultHttpServer::SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

void FaultHttpServer::Serve(Connection* conn) {
  // Taking the lock orders this thread after AcceptLoop's assignment of conn->thread.
  int fd;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fd = conn->fd;
  }
  std::string buffer;
  char chunk[16384];
  bool keep_alive = true;
  while (keep_alive && !stopping_) {
    size_t head_end;
    while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (buffer.size() > kMaxRequestHead) break;
      pollfd fds[2] = {{fd, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
      if (fds[1].revents) break;
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) break;
      buffer.append(chunk, static_cast<size_t>(n));
    }
    if (head_end == std::string::npos) break;
    const std::string head = buffer.substr(0, head_end + 2);
    buffer.erase(0, head_end + 4);
    // Drop a request body (POST) so the next request on the connection parses.
    size_t body = std::min<size_t>(
        std::strtoull(HeaderValue(head, "content-length").c_str(), nullptr, 10), kMaxRequestBody);
    while (buffer.size() < body && !stopping_) {
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) break;
      buffer.append(chunk, static_cast<size_t>(n));
    }
    Request request;
    request.body = buffer.substr(0, std::min(body, buffer.size()));
    buffer.erase(0, std::min(body, buffer.size()));
    size_t sp1 = head.find(' ');
    size_t sp2 = head.find(' ', sp1 + 1);
    request.method = sp1 == std::string::npos ? "" : head.substr(0, sp1);
    request.target = sp1 == std::string::npos ? "/" : head.substr(sp1 + 1, sp2 - sp1 - 1);
    request.path = request.target.substr(0, request.target.find('?'));
    request.head = head;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      paths_.push_back(request.path);
      requests_.push_back(request);
    }
    keep_alive = Respond(fd, request);
    if (HeaderValue(head, "connection") == "close") keep_alive = false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (conn->fd >= 0) ::close(conn->fd);
  conn->fd = -1;
}

bool FaultHttpServer::Respond(int fd, const Request& request) {
  if (handler_) {
    if (std::optional<std::string> response = handler_(request)) return SendAll(fd, *response);
  }
  const std::string& path = request.path;
  const std::string& payload = Payload();
  const std::string text = "Content-Type: text/plain";
  if (path == "/ok") return SendAll(fd, WithLength("200 OK", {text}, "ok\n"));
  if (path.rfind("/delay/", 0) == 0) {
    if (!Wait(std::atoi(path.c_str() + 7))) return false;
    return SendAll(fd, WithLength("200 OK", {text}, "delayed\n"));
  }
  if (path == "/reset-mid-body") {
    SendAll(fd, Head("200 OK", {text, "Content-Length: 100000"}) + std::string(10000, 'r'));
    Wait(100);  // Let the client take in the head before the reset.
    linger lin = {1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
    return false;  // Serve() closes: with a zero linger that sends RST.
  }
  if (path == "/truncated-chunked") {
    SendAll(fd, Head("200 OK", {text, "Transfer-Encoding: chunked"}) + "a\r\n0123456789\r\n" +
                    "1000\r\n" + std::string(0x800, 't'));
    ::shutdown(fd, SHUT_WR);
    return false;
  }
  if (path == "/huge-headers") {
    std::string head = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; head.size() < kHugeHeaderBytes; ++i) {
      head += "X-Pad-" + std::to_string(i) + ": " + std::string(1000, 'h') + "\r\n";
    }
    SendAll(fd, head + "Content-Length: 3\r\n\r\nhi\n");
    return false;
  }
  if (path == "/never") {
    Wait(-1);
    return false;
  }
  if (path == "/malformed-status") {
    SendAll(fd, "HTTP/1.1 2x0 OK\r\nContent-Length: 3\r\n\r\nhi\n");
    return false;
  }
  if (path == "/loop") return SendAll(fd, WithLength("302 Found", {"Location: /loop"}, ""));
  if (path == "/br")
    return SendAll(fd, WithLength("200 OK", {text, "Content-Encoding: br"}, Brotli(payload)));
  if (path == "/deflate") {
    return SendAll(fd,
                   WithLength("200 OK", {text, "Content-Encoding: deflate"}, Zlib(payload, 15)));
  }
  if (path == "/gzip") {
    return SendAll(fd, WithLength("200 OK", {text, "Content-Encoding: gzip"}, Zlib(payload, 31)));
  }
  if (path == "/bad-br") {
    return SendAll(fd, WithLength("200 OK", {text, "Content-Encoding: br"},
                                  "this is not a brotli stream at all"));
  }
  if (path == "/chunked") {
    std::string out = Head("200 OK", {text, "Transfer-Encoding: chunked"});
    for (size_t i = 0; i < payload.size(); i += 1000) {
      std::string piece = payload.substr(i, 1000);
      out += Hex(piece.size()) + "\r\n" + piece + "\r\n";
    }
    return SendAll(fd, out + "0\r\n\r\n");
  }
  if (path == "/close-delimited") {
    SendAll(fd, Head("200 OK", {text, "Connection: close"}) + payload);
    return false;
  }
  return SendAll(fd, WithLength("404 Not Found", {text}, "not found\n"));
}

}  // namespace netstack::test

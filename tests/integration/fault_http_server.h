// An HTTP/1.1 server on 127.0.0.1 that misbehaves on demand, for the failure paths real servers
// will not produce: the path of each request selects what it does.
//
//   /ok                   200, "ok\n", Content-Length, keep-alive
//   /delay/<ms>           waits <ms> milliseconds, then answers like /ok
//   /reset-mid-body       Content-Length 100000, sends 10000 body bytes, then resets (RST)
//   /truncated-chunked    chunked body: one full chunk, then half a chunk, then FIN
//   /huge-headers         300 KiB of response headers
//   /never                reads the request and never answers (until the server stops)
//   /malformed-status     "HTTP/1.1 2x0 OK" status line
//   /loop                 302 Location: /loop (a redirect loop)
//   /br, /deflate, /gzip  Payload() encoded with brotli / zlib (RFC 1950) / gzip
//   /bad-br               Content-Encoding: br over bytes that are not brotli
//   /chunked              Payload() in 1000-byte chunks
//   /close-delimited      Payload() with neither Content-Length nor chunking, closed by the server
//   anything else         404
//
// A test may also install a Handler that answers chosen requests itself (any headers: caching
// tests), and read back every request the server saw (method, path, headers), to count what
// reached the origin.
//
// The server runs on its own threads (one acceptor, one per connection) inside the test
// process, so a test drives it while the netstack binary runs as a child process.
#ifndef TESTS_INTEGRATION_FAULT_HTTP_SERVER_H_
#define TESTS_INTEGRATION_FAULT_HTTP_SERVER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace netstack::test {

class FaultHttpServer {
 public:
  // One request as received.
  struct Request {
    std::string method;
    std::string target;  // as sent: path and query
    std::string path;    // target without the query
    std::string head;    // the request line and headers, CRLF-separated
    std::string body;
    // A header's value (case-insensitive name, leading spaces trimmed); "" if absent.
    std::string Header(const std::string& name) const;
  };
  // Returns the whole response (status line, headers, body) for `request`, or nullopt to let
  // the built-in paths answer. Runs on the server's connection threads: it must be thread-safe.
  using Handler = std::function<std::optional<std::string>(const Request& request)>;

  // "HTTP/1.1 <status>" + headers (one "Name: value" each) + Content-Length + body.
  static std::string Response(const std::string& status, const std::vector<std::string>& headers,
                              const std::string& body);

  // The decoded body of /br, /deflate, /gzip, /chunked and /close-delimited (20000 bytes of
  // text), so tests can compare what the client decoded byte for byte.
  static const std::string& Payload();
  // Size of the headers /huge-headers sends.
  static constexpr size_t kHugeHeaderBytes = 300 * 1024;

  FaultHttpServer();
  // Stops the server (see Stop()).
  ~FaultHttpServer();
  FaultHttpServer(const FaultHttpServer&) = delete;
  FaultHttpServer& operator=(const FaultHttpServer&) = delete;

  // Installs a handler consulted before the built-in paths. Call before Start().
  void set_handler(Handler handler) { handler_ = std::move(handler); }

  // Listens on 127.0.0.1:`port` (0 picks a free port) and starts serving. Returns false with
  // *error set if the socket cannot be bound.
  bool Start(int port, std::string* error);

  // Closes the listener and every connection (a /never or /delay request ends at once) and
  // joins all threads. Idempotent.
  void Stop();

  int port() const { return port_; }
  // "http://127.0.0.1:<port>" + path (or another host name that resolves to 127.0.0.1).
  std::string Url(const std::string& path, const std::string& host = "127.0.0.1") const;

  // Connections accepted so far, and the request paths seen, in arrival order.
  int connections() const { return connections_.load(); }
  std::vector<std::string> paths() const;
  // Every request seen so far, in arrival order.
  std::vector<Request> requests() const;
  // How many requests had this path.
  int CountPath(const std::string& path) const;

 private:
  struct Connection;

  void AcceptLoop();
  void Serve(Connection* conn);
  // Handles one request on `fd`; returns true if the connection may carry another request.
  bool Respond(int fd, const Request& request);
  // Waits up to `ms` (or forever if negative) unless the server stops first; false if stopping.
  bool Wait(int ms);
  bool SendAll(int fd, const std::string& data);

  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  mutable std::mutex mutex_;  // Guards conns_ and paths_.
  std::vector<std::unique_ptr<Connection>> conns_;
  std::vector<std::string> paths_;
  std::vector<Request> requests_;
  Handler handler_;
};

}  // namespace netstack::test

#endif  // TESTS_INTEGRATION_FAULT_HTTP_SERVER_H_

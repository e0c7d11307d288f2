// A StreamSocket whose reads and writes follow a script, for unit tests on virtual time. It
// keeps Chrome's async contract (stream_socket.h): a step in kSync mode completes inside the
// call; a step in kAsync mode returns ERR_IO_PENDING and completes from a task posted on the
// Scheduler (after the step's delay), never inside the call.
//
//   VirtualScheduler scheduler;
//   ScriptedStreamSocket socket(scheduler,
//       {ScriptedRead::Data("HTTP/1.1 200 OK\r\n", IoMode::kAsync),
//        ScriptedRead::Data("Content-Length: 0\r\n\r\n"),
//        ScriptedRead::Eof()},
//       {ScriptedWrite::Accept(10), ScriptedWrite::Accept(kAll, IoMode::kAsync)});
//   ... drive the code under test; scheduler.RunUntilIdle() delivers async steps ...
//   CHECK(socket.written() == "GET / HTTP/1.1\r\n...");
//
// Reads: each Read() takes the next step. A Data step larger than the reader's buffer is
// split: the rest stays at the front of the script and is returned synchronously by the next
// Read (it has "arrived" already). When the read script runs out, Read() returns
// ERR_IO_PENDING and waits for AddRead() (or stays pending forever), so code under test can
// be driven step by step.
// Writes: each Write() takes the next step, which accepts some bytes (a partial write when
// fewer than offered), fails or hangs. When the write script runs out, writes accept
// everything synchronously (or return an error, see set_write_script_end). Everything
// accepted is appended to written().
#ifndef TESTS_SUPPORT_SCRIPTED_STREAM_SOCKET_H_
#define TESTS_SUPPORT_SCRIPTED_STREAM_SOCKET_H_

#include <cstddef>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "net/base/ip_address.h"
#include "net/base/net_log.h"
#include "net/base/scheduler.h"
#include "net/base/time.h"
#include "net/socket/stream_socket.h"

namespace netstack {

enum class IoMode { kSync, kAsync };

// One step of a read script.
struct ScriptedRead {
  enum class Kind { kData, kError, kEof, kHang };

  // Returns (up to the reader's buffer size of) `bytes`; must not be empty.
  static ScriptedRead Data(std::string bytes, IoMode mode = IoMode::kSync,
                           TimeDelta delay = TimeDelta::zero());
  // Returns `error` (a net error such as ERR_CONNECTION_RESET).
  static ScriptedRead Error(int error, IoMode mode = IoMode::kSync,
                            TimeDelta delay = TimeDelta::zero());
  // Returns 0: the peer closed the connection. Later reads return 0 again.
  static ScriptedRead Eof(IoMode mode = IoMode::kSync, TimeDelta delay = TimeDelta::zero());
  // Returns ERR_IO_PENDING and never completes (a silent server); later steps are not reached.
  static ScriptedRead Hang();

  Kind kind = Kind::kData;
  std::string data;
  int error = 0;
  IoMode mode = IoMode::kSync;
  TimeDelta delay{};  // kAsync only: how long after the Read() call it completes
};

// One step of a write script.
struct ScriptedWrite {
  enum class Kind { kAccept, kError, kHang };
  static constexpr size_t kAll = std::numeric_limits<size_t>::max();

  // Accepts up to `max_bytes` of the offered bytes (a partial write when fewer).
  static ScriptedWrite Accept(size_t max_bytes = kAll, IoMode mode = IoMode::kSync,
                              TimeDelta delay = TimeDelta::zero());
  static ScriptedWrite Error(int error, IoMode mode = IoMode::kSync,
                             TimeDelta delay = TimeDelta::zero());
  // Returns ERR_IO_PENDING and never completes (a peer that stopped reading).
  static ScriptedWrite Hang();

  Kind kind = Kind::kAccept;
  size_t max_bytes = kAll;
  int error = 0;
  IoMode mode = IoMode::kSync;
  TimeDelta delay{};
};

class ScriptedStreamSocket : public StreamSocket {
 public:
  // The socket starts connected (as sockets come out of a pool). `scheduler` runs the async
  // completions and must outlive the socket.
  ScriptedStreamSocket(Scheduler& scheduler, std::vector<ScriptedRead> reads,
                       std::vector<ScriptedWrite> writes = {});
  ~ScriptedStreamSocket() override;

  // Appends a step. If a Read() is waiting on an exhausted script, the step is delivered to it
  // (from a task, after the step's delay even for a kSync step).
  void AddRead(ScriptedRead step);
  void AddWrite(ScriptedWrite step);

  // What happens to writes once the write script is exhausted: OK (the default) accepts
  // everything synchronously; an error makes every further write fail with it.
  void set_write_script_end(int result) { write_script_end_ = result; }
  // Result of Connect() (default OK, synchronous) and whether the socket starts connected.
  void set_connect_result(int result, IoMode mode = IoMode::kSync);
  void set_connected(bool connected) { connected_ = connected; }
  void set_peer_address(const IPEndPoint& address) { peer_address_ = address; }
  void set_net_log(const NetLogWithSource& net_log) { net_log_ = net_log; }
  void set_was_session_resumed(bool resumed) { session_resumed_ = resumed; }
  void set_tls_version(std::string version) { tls_version_ = std::move(version); }

  // Every byte accepted by writes, in order.
  const std::string& written() const { return written_; }
  // Bytes returned by reads, in order.
  const std::string& read_data() const { return read_data_; }
  bool AllReadsConsumed() const { return reads_.empty(); }
  bool AllWritesConsumed() const { return writes_.empty(); }
  size_t read_calls() const { return read_calls_; }
  size_t write_calls() const { return write_calls_; }
  bool read_pending() const { return read_pending_; }
  bool write_pending() const { return write_pending_; }
  // How many times Disconnect() was called (the destructor does not count).
  int disconnect_calls() const { return disconnect_calls_; }

  // StreamSocket:
  int Connect(CompletionCallback callback) override;
  int Read(char* buf, int len, CompletionCallback callback) override;
  int Write(const char* data, int len, CompletionCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override { return connected_; }
  // Connected, no EOF or error returned yet, and no split Data step waiting at the front.
  bool IsConnectedAndIdle() const override;
  bool WasEverUsed() const override { return was_used_; }
  int GetPeerAddress(IPEndPoint* address) const override;
  const NetLogWithSource& NetLog() const override { return net_log_; }
  bool WasSessionResumed() const override { return session_resumed_; }
  std::string TlsVersion() const override { return tls_version_; }

 private:
  // Runs the front read step into (buf, len); returns the read result.
  int TakeRead(char* buf, int len);
  int TakeWrite(const char* data, int len);
  void StartPendingRead();
  void CancelTasks();

  Scheduler& scheduler_;
  std::deque<ScriptedRead> reads_;
  std::deque<ScriptedWrite> writes_;
  int write_script_end_ = 0;
  int connect_result_ = 0;
  IoMode connect_mode_ = IoMode::kSync;

  bool connected_ = true;
  bool was_used_ = false;
  bool split_front_ = false;  // the front read step is the rest of a split Data step
  bool read_ended_ = false;   // EOF or an error was returned
  bool session_resumed_ = false;
  std::string tls_version_;
  IPEndPoint peer_address_;
  NetLogWithSource net_log_;

  // The pending read, if any.
  bool read_pending_ = false;
  char* read_buf_ = nullptr;
  int read_len_ = 0;
  CompletionCallback read_callback_;
  OneShotTimer read_timer_{scheduler_};  // the pending read's completion

  bool write_pending_ = false;
  CompletionCallback write_callback_;
  OneShotTimer write_timer_{scheduler_};    // the pending write's completion
  OneShotTimer connect_timer_{scheduler_};  // an async connect's completion

  std::string written_;
  std::string read_data_;
  size_t read_calls_ = 0;
  size_t write_calls_ = 0;
  int disconnect_calls_ = 0;
};

}  // namespace netstack

#endif  // TESTS_SUPPORT_SCRIPTED_STREAM_SOCKET_H_

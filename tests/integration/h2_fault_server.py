#!/usr/bin/python3
"""An HTTP/2 server that misbehaves on purpose, for netstack's integration tests.

Run by the H2FaultServer fixture (h2_fault_server.h) with Debian's python3 and python3-h2:

  h2_fault_server.py --mode MODE --events FILE [--port N] [--tls --cert PEM --key PEM]
                     [--goaway-after K] [--hold-ms MS] [--parent-pid PID]

--port 0 (the default) lets the kernel pick the port. Over TLS the server offers ALPN h2 only
(http/1.1 in alpn-http11); without --tls it speaks h2c with prior knowledge.

Modes (every other behaviour is the `ok` server's):
  ok                 answers every request: 200, text/plain "PATH ok\\n"; /page.html is an
                     HTML page whose <img> elements name /img/0.png ... /img/9.png.
  goaway-mid-page    the first connection holds each response --hold-ms (so the client's other
                     requests arrive), answers its first K streams (--goaway-after, default 3)
                     in stream order, then sends GOAWAY(NO_ERROR, last_stream_id = the K-th)
                     and closes: the streams still open were never processed ("unprocessed" in
                     the goaway event) and a client must retry them on a new connection. Later
                     connections answer everything at once.
  refused-stream     RST_STREAM(REFUSED_STREAM) for the first request of each path (on any
                     connection); a repeated request for the path is answered.
  mcs1               SETTINGS_MAX_CONCURRENT_STREAMS 1; each response is held --hold-ms
                     (default 50) so streams would overlap if the client ignored the limit.
                     Streams opened beyond 1 before the client acknowledged the SETTINGS (it
                     could not know the limit yet) are refused with REFUSED_STREAM. Every
                     request event records "open": the streams open at once, that one included.
  no-window          SETTINGS_INITIAL_WINDOW_SIZE 0 and never a WINDOW_UPDATE, so a request
                     body can never be sent past the first 65,535 bytes (the connection's
                     window); a bodiless request gets its response HEADERS and then no DATA,
                     ever. Only the client's own timeout ends the request.
  huge-headers       a 200 whose header list is over 300 KiB: x-huge (3,000 bytes) 100 times,
                     in one HEADERS frame (HPACK indexes the repeats).
  continuation-flood HEADERS without END_HEADERS, then up to 50,000 CONTINUATION frames (one
                     small header field each), never END_HEADERS: written by hand on the socket.
                     Stops when the client closes or complains.
  push-promise       a hand-written PUSH_PROMISE (promised stream 2, /pushed.txt) on the
                     request's stream before the response, whatever the client's ENABLE_PUSH.
  alpn-http11        TLS whose ALPN selects http/1.1, answering HTTP/1.1 (keep-alive).

Events: one JSON object per line, appended to --events and flushed at once; an event about
something the server sends is written before the bytes go out, so a client that has seen them
can count on the event (those about the client's doings come after, of course):
  listening {port}                      bound and listening (the fixture waits for it)
  connection {conn, tls, alpn}          a connection accepted (conn counts from 1)
  client_settings {conn, settings}      the client's SETTINGS as they stand after a change
  settings_ack {conn}                   the client acknowledged ours
  request {conn, stream, method, path, open}
  served {conn, stream, path}           a response completed (body sent with END_STREAM)
  refused {conn, stream, path, why}     RST_STREAM(REFUSED_STREAM) sent
  goaway {conn, last_stream_id, unprocessed}
  stalled {conn, stream, path}          no-window: response headers sent, no DATA will follow
  push_promise {conn, stream, promised}
  continuation_flood {conn, stream, frames, ended}  ended: how the client gave up (closed,
                                        client goaway, ...) or "cap reached"
  client_goaway {conn, error_code, last_stream_id}
  client_reset {conn, stream, error_code}
  h2_error {conn, what}                 the client broke the protocol (h2's ProtocolError)
  closed {conn, why, body_bytes}       body_bytes: request body bytes received on it

Bounds: exits on SIGTERM or when its parent process (--parent-pid, default the one that
started it) goes away (checked twice a second);
sockets time out (10 s per write, 60 s idle); the flood is capped.
"""

import argparse
import json
import os
import select
import signal
import socket
import ssl
import struct
import threading
import time
import traceback

import h2.config
import h2.connection
import h2.events
import h2.exceptions
from h2.errors import ErrorCodes
from h2.settings import SettingCodes, Settings

IDLE_TIMEOUT_S = 60
WRITE_TIMEOUT_S = 10
FLOOD_MAX_FRAMES = 50000
# huge-headers: one 3,000-byte field repeated 100 times: 303 KiB as a header list (RFC 9113's
# size: name + value + 32 per field) but some 3 KiB on the wire, since HPACK sends the repeats
# as one-byte references to the dynamic table. So the list fits one HEADERS frame and trips the
# client's header list bound (Chrome's: 256 KiB), not its bound on CONTINUATION frames.
HUGE_HEADER_FIELDS = 100
HUGE_HEADER_VALUE = 3000

# Frame types and flags written by hand (RFC 9113, section 6).
HEADERS, PUSH_PROMISE, CONTINUATION = 0x1, 0x5, 0x9
END_HEADERS = 0x4


class Events:
    """The JSON-lines event log, shared by the connection threads."""

    def __init__(self, path):
        self._file = open(path, "a", encoding="utf-8")
        self._lock = threading.Lock()

    def log(self, event, **fields):
        with self._lock:
            self._file.write(json.dumps(dict(event=event, **fields)) + "\n")
            self._file.flush()


class Server:
    """State shared by all connections: the options and what the modes remember."""

    def __init__(self, args, events):
        self.args = args
        self.events = events
        self.lock = threading.Lock()
        self.connections = 0
        self.goaway_sent = False
        self.refused_paths = set()

    def next_connection_id(self):
        with self.lock:
            self.connections += 1
            return self.connections


def frame(frame_type, flags, stream_id, payload):
    """One raw HTTP/2 frame: 9-byte header (length, type, flags, stream id) and payload."""
    header = struct.pack(">I", len(payload))[1:] + struct.pack(">BBI", frame_type, flags,
                                                               stream_id & 0x7FFFFFFF)
    return header + payload


def literal_field(name, value):
    """HPACK literal header field without indexing, new name (RFC 7541, 6.2.2), short strings
    only: the hand-written frames never touch the client's dynamic table."""
    name, value = name.encode(), value.encode()
    assert len(name) < 127 and len(value) < 127
    return bytes([0, len(name)]) + name + bytes([len(value)]) + value


def setting_name(code):
    try:
        return SettingCodes(code).name
    except ValueError:
        return str(code)


def body_for(path):
    if path == "/page.html":
        images = "".join('<img src="/img/%d.png">\n' % i for i in range(10))
        return "text/html", ("<!doctype html><title>h2 page</title>\n" + images).encode()
    return "text/plain", ("%s ok\n" % path).encode()


class H2Session:
    """One HTTP/2 connection, run on its own thread."""

    def __init__(self, server, sock, conn_id):
        self.server = server
        self.mode = server.args.mode
        self.sock = sock
        self.id = conn_id
        self.log = lambda event, **f: server.events.log(event, conn=conn_id, **f)
        self.h2 = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.paths = {}  # stream id -> path
        self.open = set()  # streams open (request seen, response not finished)
        self.refused = set()
        self.acked = False  # the client acknowledged our SETTINGS
        self.answered = 0
        self.pending = []  # (due time, stream id): held responses (mcs1)
        self.silent = False  # after a hand-written flood: read and discard only
        self.body_bytes = 0  # request body bytes received (never acknowledged in no-window)

    def run(self):
        advertised = {SettingCodes.MAX_CONCURRENT_STREAMS: 100}
        if self.mode == "mcs1":
            advertised[SettingCodes.MAX_CONCURRENT_STREAMS] = 1
        if self.mode == "no-window":
            advertised[SettingCodes.INITIAL_WINDOW_SIZE] = 0
        self.h2.local_settings = Settings(client=False, initial_values=advertised)
        self.h2.initiate_connection()
        # h2 would enforce what we advertise from the first byte, before the client can have
        # seen it; the modes police their own settings (mcs1 counts, no-window stalls).
        self.h2.local_settings = Settings(client=False, initial_values={
            SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
        self.flush()
        why = self.loop()
        self.log("closed", why=why, body_bytes=self.body_bytes)

    def loop(self):
        last_input = time.monotonic()
        while True:
            timeout = 1.0
            if self.pending:
                timeout = max(0.0, min(due for due, _ in self.pending) - time.monotonic())
            ready = True
            if not (isinstance(self.sock, ssl.SSLSocket) and self.sock.pending()):
                ready = select.select([self.sock], [], [], timeout)[0]
            if ready:
                try:
                    data = self.sock.recv(65536)
                except (OSError, ssl.SSLError) as e:
                    return "read error: %s" % e
                if not data:
                    return "client closed"
                last_input = time.monotonic()
                if self.silent:
                    continue
                try:
                    events = self.h2.receive_data(data)
                except h2.exceptions.ProtocolError as e:
                    self.log("h2_error", what=str(e))
                    if self.mode == "no-window":
                        self.silent = True  # stall whatever the client does
                        continue
                    self.flush()
                    return "protocol error"
                outcome = self.handle(events)
                if outcome:
                    return outcome
            elif time.monotonic() - last_input > IDLE_TIMEOUT_S:
                return "idle"
            outcome = self.answer_due()
            if outcome:
                return outcome
            if not self.silent:
                self.flush()

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def handle(self, events):
        for event in events:
            if isinstance(event, h2.events.RemoteSettingsChanged):
                settings = {setting_name(code): value
                            for code, value in self.h2.remote_settings.items()}
                self.log("client_settings", settings=settings)
            elif isinstance(event, h2.events.SettingsAcknowledged):
                self.acked = True
                self.log("settings_ack")
            elif isinstance(event, h2.events.RequestReceived):
                self.on_request(event)
            elif isinstance(event, h2.events.StreamEnded):
                self.on_request_complete(event.stream_id)
            elif isinstance(event, h2.events.DataReceived):
                self.body_bytes += len(event.data)
                if self.mode != "no-window":
                    self.h2.acknowledge_received_data(event.flow_controlled_length,
                                                      event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.open.discard(event.stream_id)
                self.log("client_reset", stream=event.stream_id, error_code=int(event.error_code))
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.log("client_goaway", error_code=int(event.error_code),
                         last_stream_id=event.last_stream_id)
                return "client goaway"
        return None

    def on_request(self, event):
        headers = dict(event.headers)
        sid = event.stream_id
        path = headers.get(":path", "")
        self.paths[sid] = path
        self.open.add(sid)
        self.log("request", stream=sid, method=headers.get(":method", ""), path=path,
                 open=len(self.open))
        if self.mode == "mcs1" and len(self.open) > 1 and not self.acked:
            self.refuse(sid, "opened before the client acknowledged MAX_CONCURRENT_STREAMS 1")

    def refuse(self, sid, why):
        self.h2.reset_stream(sid, error_code=ErrorCodes.REFUSED_STREAM)
        self.open.discard(sid)
        self.refused.add(sid)
        self.log("refused", stream=sid, path=self.paths[sid], why=why)

    def on_request_complete(self, sid):
        """The request on `sid` is complete: the mode decides what the client gets."""
        if sid in self.refused:
            return None
        path = self.paths.get(sid, "")
        if self.mode == "goaway-mid-page":
            with self.server.lock:
                hold = not self.server.goaway_sent
            if hold:  # let the client's other requests arrive, to be left unprocessed
                self.pending.append((time.monotonic() + self.server.args.hold_ms / 1000.0, sid))
                return None
        elif self.mode == "refused-stream":
            with self.server.lock:
                first = path not in self.server.refused_paths
                self.server.refused_paths.add(path)
            if first:
                self.refuse(sid, "first request for the path")
                return None
        elif self.mode == "mcs1":
            self.pending.append((time.monotonic() + self.server.args.hold_ms / 1000.0, sid))
            return None
        elif self.mode == "no-window":
            self.h2.send_headers(sid, [(":status", "200"), ("content-type", "text/plain"),
                                       ("content-length", "1000")])
            self.log("stalled", stream=sid, path=path)
            return None
        elif self.mode == "continuation-flood":
            self.flood(sid)
            return None
        elif self.mode == "push-promise":
            self.push_promise(sid)
        self.answer(sid)
        return None

    def answer(self, sid):
        path = self.paths.get(sid, "")
        content_type, body = body_for(path)
        headers = [(":status", "200"), ("content-type", content_type),
                   ("content-length", str(len(body)))]
        if self.mode == "huge-headers":
            headers += [("x-huge", "v" * HUGE_HEADER_VALUE)] * HUGE_HEADER_FIELDS
        self.h2.send_headers(sid, headers)
        self.h2.send_data(sid, body, end_stream=True)
        self.open.discard(sid)
        self.answered += 1
        self.log("served", stream=sid, path=path)

    def answer_due(self):
        """Answers the held responses that are due, in stream order. Returns "goaway sent" when
        goaway-mid-page's K-th answer was followed by the GOAWAY, else None."""
        now = time.monotonic()
        due = sorted(sid for when, sid in self.pending if when <= now)
        self.pending = [(when, sid) for when, sid in self.pending if when > now]
        for sid in due:
            if sid not in self.open:
                continue
            self.answer(sid)
            if self.mode == "goaway-mid-page" and self.answered >= self.server.args.goaway_after:
                with self.server.lock:
                    first = not self.server.goaway_sent
                    self.server.goaway_sent = True
                if first:
                    self.goaway(sid)
                    return "goaway sent"
        return None

    def goaway(self, last_stream_id):
        """GOAWAY(NO_ERROR, last_stream_id): the streams still open were never processed."""
        unprocessed = sorted(self.open)
        self.log("goaway", last_stream_id=last_stream_id, unprocessed=unprocessed)
        self.h2.close_connection(error_code=ErrorCodes.NO_ERROR, last_stream_id=last_stream_id)
        self.flush()
        linger(self.sock)

    def flood(self, sid):
        """HEADERS without END_HEADERS, then CONTINUATION frames until the client gives up."""
        self.flush()  # nothing of h2's may come between our HEADERS and CONTINUATIONs
        self.silent = True
        self.sock.sendall(frame(HEADERS, 0, sid, bytes([0x88])))  # :status 200 (static 8)
        sent = 0
        while sent < FLOOD_MAX_FRAMES:
            batch = b"".join(frame(CONTINUATION, 0, sid, literal_field("x-flood", str(sent + i)))
                             for i in range(100))
            try:
                self.sock.sendall(batch)
            except (OSError, ssl.SSLError) as e:
                ended = "write failed: %s" % e
                break
            sent += 100
            ended = self.client_gave_up()
            if ended:
                break
        else:
            ended = "cap reached"
        self.log("continuation_flood", stream=sid, frames=sent, ended=ended)

    def client_gave_up(self):
        """During the flood: reads what the client sent, if anything, and says how it gave up
        (closed, GOAWAY, RST_STREAM), or None while it has not."""
        if not select.select([self.sock], [], [], 0)[0]:
            return None
        try:
            data = self.sock.recv(65536)
        except (OSError, ssl.SSLError) as e:
            return "read error: %s" % e
        if not data:
            return "client closed"
        try:
            events = self.h2.receive_data(data)  # h2 never saw our raw frames: only parses
        except h2.exceptions.ProtocolError as e:
            return "client data h2 could not parse: %s" % e
        for event in events:
            if isinstance(event, h2.events.ConnectionTerminated):
                self.log("client_goaway", error_code=int(event.error_code),
                         last_stream_id=event.last_stream_id)
                return "client goaway"
            if isinstance(event, h2.events.StreamReset):
                self.log("client_reset", stream=event.stream_id, error_code=int(event.error_code))
                return "client reset the stream"
        return None

    def push_promise(self, sid):
        """A PUSH_PROMISE for stream 2 on `sid`, which a client with ENABLE_PUSH 0 must treat
        as a connection error (RFC 9113, 8.4)."""
        self.flush()
        scheme = "https" if isinstance(self.sock, ssl.SSLSocket) else "http"
        block = b"".join(literal_field(n, v) for n, v in [
            (":method", "GET"), (":scheme", scheme), (":authority", "localhost"),
            (":path", "/pushed.txt")])
        self.log("push_promise", stream=sid, promised=2)
        self.sock.sendall(frame(PUSH_PROMISE, END_HEADERS, sid, struct.pack(">I", 2) + block))


def linger(sock):
    """Half-closes and reads until the client closes (2 s at most), so the kernel does not
    answer unread client bytes with a reset that could destroy the GOAWAY in flight."""
    try:
        # socket.shutdown, not SSLSocket.shutdown (which would drop the TLS state we read with).
        socket.socket.shutdown(sock, socket.SHUT_WR)
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            if select.select([sock], [], [], 0.1)[0] and not sock.recv(65536):
                break
    except (OSError, ssl.SSLError):
        pass


def serve_http11(server, sock, conn_id):
    """Keep-alive HTTP/1.1 (alpn-http11): 200 and "PATH ok\\n" for every request."""
    log = lambda event, **f: server.events.log(event, conn=conn_id, **f)
    buffer, stream = b"", 0
    while True:
        while b"\r\n\r\n" not in buffer:
            if not select.select([sock], [], [], IDLE_TIMEOUT_S)[0]:
                return "idle"
            data = sock.recv(65536)
            if not data:
                return "client closed"
            buffer += data
        head, buffer = buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, path = (lines[0].split(" ") + ["", ""])[:2]
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip() or 0)
        while len(buffer) < length:
            data = sock.recv(65536)
            if not data:
                return "client closed"
            buffer += data
        buffer = buffer[length:]
        stream += 1
        log("request", stream=stream, method=method, path=path, open=1, protocol="http/1.1")
        content_type, body = body_for(path)
        log("served", stream=stream, path=path, protocol="http/1.1")
        sock.sendall(("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
                      % (content_type, len(body))).encode() + body)


def handle_connection(server, raw, tls_context):
    conn_id = server.next_connection_id()
    raw.settimeout(WRITE_TIMEOUT_S)
    sock, alpn = raw, None
    try:
        if tls_context:
            sock = tls_context.wrap_socket(raw, server_side=True)
            alpn = sock.selected_alpn_protocol()
        server.events.log("connection", conn=conn_id, tls=tls_context is not None, alpn=alpn)
        if server.args.mode == "alpn-http11":
            why = serve_http11(server, sock, conn_id)
            server.events.log("closed", conn=conn_id, why=why)
        else:
            H2Session(server, sock, conn_id).run()
    except (OSError, ssl.SSLError, ValueError) as e:
        server.events.log("closed", conn=conn_id, why="error: %s" % e)
    except Exception as e:  # a bug here: say so in the events the test prints, and on stderr
        server.events.log("closed", conn=conn_id, why="server bug: %r" % e)
        traceback.print_exc()
    finally:
        sock.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", required=True, choices=[
        "ok", "goaway-mid-page", "refused-stream", "mcs1", "no-window", "huge-headers",
        "continuation-flood", "push-promise", "alpn-http11"])
    parser.add_argument("--events", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--goaway-after", type=int, default=3)
    parser.add_argument("--hold-ms", type=int, default=50)
    parser.add_argument("--parent-pid", type=int, default=os.getppid(),
                        help="exit when this process is no longer our parent")
    args = parser.parse_args()

    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    tls_context = None
    if args.tls:
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(args.cert, args.key)
        tls_context.set_alpn_protocols(["http/1.1"] if args.mode == "alpn-http11" else ["h2"])

    events = Events(args.events)
    server = Server(args, events)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(128)
    listener.settimeout(0.5)
    events.log("listening", port=listener.getsockname()[1], mode=args.mode, tls=args.tls)
    while os.getppid() == args.parent_pid:
        try:
            raw, _ = listener.accept()
        except socket.timeout:
            continue
        threading.Thread(target=handle_connection, args=(server, raw, tls_context),
                         daemon=True).start()
    os._exit(0)


if __name__ == "__main__":
    main()

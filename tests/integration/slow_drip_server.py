#!/usr/bin/python3
"""A server that answers one byte at a time, for netstack's time-limit tests.

Run by the SlowDripServer fixture (slow_drip_server.h) with Debian's python3 (python3-h2 for h2c):

  slow_drip_server.py --mode MODE --proto http1|h2c --events FILE [--interval-ms MS]
                      [--body-bytes N] [--lifetime-s S]

It listens on 127.0.0.1, on a port the kernel picks. Every response is a 200 with a
Content-Length of --body-bytes (default 100) bytes of "x". Never silent for long (a byte every
--interval-ms, default 500), so an idle timeout never fires; only a total-time, minimum-rate or
headers limit stops the client.

Modes:
  headers-drip  the response's header bytes one at a time (HTTP/1.1: the status line and
                headers; h2c: the bytes of the HEADERS frame), then the body at once.
  body-drip     the headers at once, then the body one byte at a time (h2c: one DATA frame of
                one byte each time).

--proto h2c speaks HTTP/2 with prior knowledge (no TLS, no upgrade).

Events: one JSON object per line, appended to --events and flushed at once:
  listening {port}
  request {conn, path}
  closed {conn, dripped, why}   the client went away (dripped: bytes sent one at a time), or
                                "done" when everything was sent
The process exits by itself after --lifetime-s (default 120) seconds.
"""

import argparse
import json
import socket
import threading
import time

EVENTS_LOCK = threading.Lock()


def log_event(events_path, **fields):
    with EVENTS_LOCK:
        with open(events_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(fields) + "\n")
            f.flush()


def drip(sock, data, interval, progress):
    """Sends `data` a byte at a time, counting each in progress["dripped"]."""
    for i in range(len(data)):
        sock.sendall(data[i:i + 1])
        progress["dripped"] += 1
        time.sleep(interval)


def read_http1_request(sock):
    """Reads up to the end of a request head; returns its path, or None if the client left."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return None
        data += chunk
    parts = data.split(b"\r\n", 1)[0].split(b" ")
    return parts[1].decode("latin-1") if len(parts) > 1 else "/"


def serve_http1(sock, args, conn_id, progress):
    path = read_http1_request(sock)
    if path is None:
        return "no request"
    log_event(args.events, event="request", conn=conn_id, path=path)
    body = b"x" * args.body_bytes
    head = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n" %
            len(body)).encode("ascii")
    interval = args.interval_ms / 1000.0
    if args.mode == "headers-drip":
        drip(sock, head, interval, progress)
        sock.sendall(body)
    else:
        sock.sendall(head)
        drip(sock, body, interval, progress)
    return "done"


def serve_h2c(sock, args, conn_id, progress):
    import h2.config
    import h2.connection
    import h2.events

    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    interval = args.interval_ms / 1000.0
    while True:
        data = sock.recv(65536)
        if not data:
            return "no request"
        stream_id = None
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                stream_id = event.stream_id
                headers = dict((k.decode() if isinstance(k, bytes) else k,
                                v.decode() if isinstance(v, bytes) else v)
                               for k, v in event.headers)
                log_event(args.events, event="request", conn=conn_id,
                          path=headers.get(":path", "/"))
        sock.sendall(conn.data_to_send())
        if stream_id is not None:
            break
    body = b"x" * args.body_bytes
    conn.send_headers(stream_id, [(":status", "200"), ("content-type", "text/plain"),
                                  ("content-length", str(len(body)))])
    if args.mode == "headers-drip":
        drip(sock, conn.data_to_send(), interval, progress)
        conn.send_data(stream_id, body, end_stream=True)
        sock.sendall(conn.data_to_send())
        return "done"
    sock.sendall(conn.data_to_send())
    for i in range(len(body)):
        conn.send_data(stream_id, body[i:i + 1], end_stream=(i == len(body) - 1))
        sock.sendall(conn.data_to_send())
        progress["dripped"] += 1
        time.sleep(interval)
    return "done"


def handle(sock, args, conn_id):
    progress = {"dripped": 0}
    why = "error"
    try:
        if args.proto == "h2c":
            why = serve_h2c(sock, args, conn_id, progress)
        else:
            why = serve_http1(sock, args, conn_id, progress)
        # Wait for the client to finish reading and close.
        sock.settimeout(args.lifetime_s)
        while sock.recv(65536):
            pass
    except Exception as e:  # the client went away (BrokenPipeError, ...), or h2 complained
        why = type(e).__name__
    finally:
        log_event(args.events, event="closed", conn=conn_id, dripped=progress["dripped"], why=why)
        sock.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["headers-drip", "body-drip"], required=True)
    parser.add_argument("--proto", choices=["http1", "h2c"], default="http1")
    parser.add_argument("--events", required=True)
    parser.add_argument("--interval-ms", type=int, default=500)
    parser.add_argument("--body-bytes", type=int, default=100)
    parser.add_argument("--lifetime-s", type=float, default=120)
    args = parser.parse_args()

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    log_event(args.events, event="listening", port=listener.getsockname()[1])
    deadline = time.monotonic() + args.lifetime_s
    conn_id = 0
    while time.monotonic() < deadline:
        listener.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            sock, _ = listener.accept()
        except socket.timeout:
            break
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn_id += 1
        threading.Thread(target=handle, args=(sock, args, conn_id), daemon=True).start()


if __name__ == "__main__":
    main()

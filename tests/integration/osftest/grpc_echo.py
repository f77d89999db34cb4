"""A gRPC echo service on Debian's python3-grpcio, for tests of the proxy's HTTP/2
upstream leg: a real gRPC server over TLS (a TestCA leaf) on 127.0.0.1, generic
handlers (no protoc, messages are raw bytes), and a channel that reaches it through
the proxy (`grpc.http_proxy`) trusting the proxy's CA.

Methods of `echo.Echo` (paths /echo.Echo/<Name>):
  Say      unary: answers b"echo:" + the request. Request metadata steers it:
           x-initial-echo  sent back as initial metadata x-initial
           x-trailer-echo  sent back as trailing metadata x-trailer
           authorization   sent back as initial metadata x-echo-authorization and
                           trailing metadata x-trailer-authorization (a careless
                           server reflecting a credential)
           a request b"fail:<CODE>:<details>" ends with that status and details.
  Many     server streaming: b"part0".. b"part<n-1>", n = int(the request).
  Collect  client streaming: the requests joined with b"|".
  Chat     bidirectional: each request upper-cased, answered as it arrives.
Every call's method and metadata are kept in `calls`."""
import threading
from concurrent import futures

import grpc

SERVICE = "echo.Echo"


def _identity(b):
    return b


def method(name):
    return f"/{SERVICE}/{name}"


class EchoServer:
    def __init__(self, cert, key, host="127.0.0.1", workers=8):
        self.calls = []
        self._lock = threading.Lock()
        handler = grpc.method_handlers_generic_handler(SERVICE, {
            "Say": grpc.unary_unary_rpc_method_handler(self._say, _identity, _identity),
            "Many": grpc.unary_stream_rpc_method_handler(self._many, _identity, _identity),
            "Collect": grpc.stream_unary_rpc_method_handler(self._collect, _identity, _identity),
            "Chat": grpc.stream_stream_rpc_method_handler(self._chat, _identity, _identity),
        })
        self.server = grpc.server(futures.ThreadPoolExecutor(workers),
                                  options=[("grpc.max_receive_message_length", 8 << 20),
                                           ("grpc.max_send_message_length", 8 << 20)])
        self.server.add_generic_rpc_handlers((handler,))
        with open(key, "rb") as k, open(cert, "rb") as c:
            credentials = grpc.ssl_server_credentials([(k.read(), c.read())])
        self.port = self.server.add_secure_port(f"{host}:0", credentials)
        self.server.start()

    def _record(self, name, context):
        metadata = [(m.key, m.value) for m in context.invocation_metadata()]
        with self._lock:
            self.calls.append({"method": name, "metadata": metadata})
        return dict(metadata)

    def _say(self, request, context):
        md = self._record("Say", context)
        initial, trailing = [], []
        if "x-initial-echo" in md:
            initial.append(("x-initial", md["x-initial-echo"]))
        if "x-trailer-echo" in md:
            trailing.append(("x-trailer", md["x-trailer-echo"]))
        if "authorization" in md:
            initial.append(("x-echo-authorization", md["authorization"]))
            trailing.append(("x-trailer-authorization", md["authorization"]))
        if initial:
            context.send_initial_metadata(tuple(initial))
        if trailing:
            context.set_trailing_metadata(tuple(trailing))
        if request.startswith(b"fail:"):
            _, code, details = request.decode().split(":", 2)
            context.abort(getattr(grpc.StatusCode, code), details)
        return b"echo:" + request

    def _many(self, request, context):
        self._record("Many", context)
        for i in range(int(request)):
            yield b"part%d" % i

    def _collect(self, requests, context):
        self._record("Collect", context)
        return b"|".join(requests)

    def _chat(self, requests, context):
        self._record("Chat", context)
        for r in requests:
            yield r.upper()

    def stop(self):
        self.server.stop(0).wait(10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def channel(proxy, authority):
    """A TLS channel to `authority` (host:port) through `proxy` (a Proxy: CONNECT to
    its port, TLS trusting its CA); close it after use."""
    with open(proxy.ca_path, "rb") as f:
        credentials = grpc.ssl_channel_credentials(f.read())
    return grpc.secure_channel(authority, credentials,
                               options=[("grpc.http_proxy", proxy.url),
                                        ("grpc.max_receive_message_length", 8 << 20),
                                        ("grpc.max_send_message_length", 8 << 20)])


def unary(ch, name):
    return ch.unary_unary(method(name), _identity, _identity)


def unary_stream(ch, name):
    return ch.unary_stream(method(name), _identity, _identity)


def stream_unary(ch, name):
    return ch.stream_unary(method(name), _identity, _identity)


def stream_stream(ch, name):
    return ch.stream_stream(method(name), _identity, _identity)

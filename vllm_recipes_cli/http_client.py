"""The HTTP client of `vllm-recipes verify`: a server's answers, read as a hostile server's.

- **One deadline** for the whole run (`Deadline`): every connection, handshake and read gets
  the time left as its socket timeout, and a timer shuts the socket when the deadline passes,
  so neither a server that trickles one byte a second nor one that never answers holds the
  run past it.
- **A byte cap** on each answer's body (MAX_BODY): a longer or endless body is a failure, not
  a memory blow-up.
- **No redirects followed**: a 3xx answer is returned as it is (`Answer.location` says where
  it points); the caller fails on it.
- **Every failure one `HttpError`** with a one-line reason (a refused connection, a TLS reply
  or a non-HTTP reply, a bad status line, too many headers, a body cut short, the deadline):
  never an exception of `http.client`, `ssl` or `socket` to the caller.
- `base_url` checks a URL before any connection: http or https, a host, a port from 1 to
  65535, printable ASCII without spaces.

Standard library only.
"""

from __future__ import annotations

import contextlib
import http.client
import math
import socket
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass

from builder.text_safety import printable

__all__ = ["MAX_BODY", "Answer", "Deadline", "HttpError", "Server", "base_url", "timeout_value"]

MAX_BODY = 32 << 20
"""The most bytes of one answer's body that are read (an image generation's base64 PNG is a
few MB; a model list or a chat completion a few KB)."""
CHUNK = 1 << 16
SHOWN = 200
"""The most characters of a server's text (a body, a header) a message quotes."""


class HttpError(Exception):
    """A request that got no usable answer; the message says why, in one line."""

    def __init__(self, message: str, *, connection: bool = False) -> None:
        super().__init__(message)
        self.connection = connection
        """Nothing answered at all (refused, reset before a reply): a server still starting."""


class Deadline:
    """The end of the run: `left()` seconds remain."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return self.end - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    location: str | None = None
    """Where a 3xx answer points (printable, cut), else None."""


def timeout_value(text: str) -> float:
    """`--timeout`: a finite number of seconds above zero (ValueError otherwise)."""
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{text!r} is not a number of seconds above zero")
    return value


def base_url(text: str) -> str:
    """`text` as a server's base URL (no trailing slash); ValueError with the reason."""
    shown = f"'{printable(text, 80)}'"
    if not text.isascii() or not text.isprintable() or " " in text:
        raise ValueError(f"{shown}: a URL of printable ASCII without spaces or line breaks")
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError as error:
        raise ValueError(f"{shown} is not a URL ({error})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{shown} is not an http:// or https:// URL")
    if not parts.hostname:
        raise ValueError(f"{shown} names no host (http://HOST:PORT)")
    if port == 0:
        raise ValueError(f"{shown}: port 0 is not a port (1 to 65535)")
    if parts.query or parts.fragment:
        raise ValueError(f"{shown}: a server's URL has no ?query or #fragment")
    return text.rstrip("/")


class Server:
    """Requests to one server (`base`, checked by `base_url`), each within `deadline`."""

    def __init__(self, base: str, deadline: Deadline) -> None:
        parts = urllib.parse.urlsplit(base)
        self.tls = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.tls else 80)
        self.prefix = parts.path.rstrip("/")
        self.deadline = deadline

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> Answer:
        left = self.deadline.left()
        if left <= 0:
            raise HttpError(self._late())
        if self.tls:
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                self.host, self.port, timeout=left, context=ssl.create_default_context())
        else:
            connection = http.client.HTTPConnection(self.host, self.port, timeout=left)
        held: list[socket.socket] = []
        timer = threading.Timer(left, _shut, (held,))
        timer.daemon = True
        timer.start()
        try:
            connection.connect()
            if connection.sock is not None:
                held.append(connection.sock)
            connection.request(method, self.prefix + path, body=body, headers=headers or {})
            response = connection.getresponse()
            if 300 <= response.status < 400:
                where = response.getheader("Location") or "nowhere"
                return Answer(response.status, b"", printable(where, SHOWN))
            return Answer(response.status, self._body(response, held))
        except HttpError:
            raise
        except ssl.SSLError as error:
            hint = ("" if isinstance(error, ssl.SSLCertVerificationError)
                    else " (is the server plain http?)")
            raise HttpError(self._late() if self.deadline.passed() else
                            f"TLS failed: {printable(str(error.reason or error), SHOWN)}"
                            + hint) from None
        except (http.client.RemoteDisconnected, ConnectionError) as error:
            raise HttpError(self._late() if self.deadline.passed() else
                            _reason(error), connection=True) from None
        except http.client.IncompleteRead as error:
            raise HttpError(self._late() if self.deadline.passed() else
                            f"the answer was cut short ({len(error.partial)} bytes read, "
                            f"{error.expected} more expected)") from None
        except (http.client.HTTPException, OSError, ValueError) as error:
            if self.deadline.passed():
                raise HttpError(self._late()) from None
            raise HttpError(_reason(error),  # (a refused connection: a server starting)
                            connection=isinstance(error, OSError)
                            and not isinstance(error, TimeoutError | socket.gaierror)) from None
        finally:
            timer.cancel()
            connection.close()

    def _body(self, response: http.client.HTTPResponse, held: list[socket.socket]) -> bytes:
        parts: list[bytes] = []
        size = 0
        while True:
            left = self.deadline.left()
            if left <= 0:
                raise HttpError(self._late())
            for sock in held:
                sock.settimeout(left)
            chunk = response.read1(CHUNK)
            if not chunk:
                if self.deadline.passed():  # the timer shut the socket
                    raise HttpError(self._late())
                break
            size += len(chunk)
            if size > MAX_BODY:
                raise HttpError(f"the answer's body is larger than {MAX_BODY >> 20} MiB")
            parts.append(chunk)
        if response.length:  # Content-Length promised more than arrived
            raise HttpError(f"the answer was cut short ({size} bytes read, {response.length} "
                            "more expected)")
        return b"".join(parts)

    def _late(self) -> str:
        return f"no complete answer within --timeout {self.deadline.seconds:g} s"


def _shut(held: list[socket.socket]) -> None:
    """At the deadline: wake any read blocked on the connection's socket (the plain socket's
    shutdown, under a TLS socket's own, which would drop the TLS state under a reader)."""
    for sock in held:
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _reason(error: BaseException) -> str:
    if isinstance(error, ConnectionRefusedError):
        return "no connection (refused)"
    if isinstance(error, http.client.RemoteDisconnected):
        return "the server closed the connection without an answer"
    if isinstance(error, TimeoutError):
        return "no answer (timed out)"
    if isinstance(error, http.client.BadStatusLine):
        return f"not an HTTP answer (status line {printable(str(error), 80)!r})"
    if isinstance(error, http.client.LineTooLong | http.client.HTTPException):
        text = str(error) or type(error).__name__
        return f"not a usable HTTP answer ({printable(text, SHOWN)})"
    if isinstance(error, socket.gaierror):
        return f"no such host ({printable(str(error.strerror), 80)})"
    if isinstance(error, OSError):
        return f"no connection ({printable(error.strerror or str(error), SHOWN)})"
    return printable(str(error) or type(error).__name__, SHOWN)

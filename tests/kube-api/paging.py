"""List pagination (`limit` and `continue`) as the real API server does it for a list read
from etcd (k8s.io/apiserver storage/etcd3 and storage/continue.go):

- Objects come in key order (namespace/name); a page holds at most `limit` objects that match
  the selectors. When the limit is reached and any stored object follows the last one returned
  (matching or not: etcd only says whether keys remain), the list's metadata carries `continue`,
  and `remainingItemCount` when no selector was given. So a selected list may end with an
  empty page, as on a real server.
- The token is base64url (no padding) of `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>\\u0000"}`,
  the key relative to the list's prefix; a malformed one is a 400 "continue key is not valid".
  Every page answers the first page's resourceVersion.

Not as the real server: a continued page reads the objects as they are now, not the snapshot
at the token's resourceVersion (an object created or deleted between pages shows up or not
according to its name), and a token never expires (no 410 Gone: the store keeps no history to
compact)."""

from __future__ import annotations

import base64
import json
from typing import Callable

from api_errors import bad_request

TOKEN_VERSION = "meta.k8s.io/v1"


def _key(obj: dict, in_namespace: bool) -> str:
    """The object's etcd key relative to the list's prefix (/registry/<resource>/[<ns>/])."""
    meta = obj["metadata"]
    if in_namespace or not meta.get("namespace"):
        return meta["name"]
    return f"{meta['namespace']}/{meta['name']}"


def encode_token(resource_version: int, last_key: str) -> str:
    raw = json.dumps({"v": TOKEN_VERSION, "rv": resource_version, "start": last_key + "\x00"},
                     separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_token(token: str) -> tuple[int, str]:
    """(resourceVersion, start key) of a continue token; 400 when it is not one."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        decoded = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad_request(f"continue key is not valid: {exc}") from None
    if not isinstance(decoded, dict) or decoded.get("v") != TOKEN_VERSION:
        raise bad_request("continue key is not valid: server does not recognize this encoded key")
    rv, start = decoded.get("rv"), decoded.get("start")
    if not isinstance(rv, int) or rv <= 0:
        raise bad_request("continue key is not valid: incorrect encoded start resourceVersion "
                          f"(version {TOKEN_VERSION})")
    if not isinstance(start, str) or not start or start.startswith("/") or ".." in start:
        raise bad_request("continue key is not valid: encoded start key is not valid")
    return rv, start


class Page:
    def __init__(self, limit: int, start: str | None, resource_version: int):
        self.limit = limit  # 0: everything
        self.start = start  # objects whose key sorts at or after it
        self.resource_version = resource_version

    @classmethod
    def of_request(cls, limit: str | None, continue_token: str | None, current_rv: int) -> "Page":
        try:
            size = int(limit) if limit else 0
        except ValueError:
            raise bad_request(f"limit: Invalid value: \"{limit}\": must be an integer") from None
        if continue_token:
            rv, start = decode_token(continue_token)
            return cls(max(size, 0), start, rv)
        return cls(max(size, 0), None, current_rv)

    def select(self, scanned: list[dict], matches: Callable[[dict], bool], counts_remaining: bool,
               in_namespace: bool) -> tuple[list[dict], str | None, int | None]:
        """(the page's objects, the next continue token or None, remainingItemCount or None) of
        `scanned` (every stored object of the list, in key order)."""
        if self.limit:
            scanned = sorted(scanned, key=lambda o: _key(o, in_namespace))  # etcd's order: the key as a string
        items: list[dict] = []
        position = 0
        if self.start is not None:
            while position < len(scanned) and _key(scanned[position], in_namespace) < self.start:
                position += 1
        while position < len(scanned):
            obj = scanned[position]
            position += 1
            if not matches(obj):
                continue
            items.append(obj)
            if self.limit and len(items) == self.limit:
                break
        if not self.limit or len(items) < self.limit or position >= len(scanned):
            return items, None, None
        token = encode_token(self.resource_version, _key(items[-1], in_namespace))
        return items, token, (len(scanned) - position if counts_remaining else None)

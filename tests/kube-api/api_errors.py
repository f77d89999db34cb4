"""Kubernetes `Status` errors, shaped like the real API server's so kubectl prints its usual
messages (`Error from server (NotFound): pods "x" not found`)."""

from __future__ import annotations

import json


class ApiError(Exception):
    """An error answered to the client as a `Status` object."""

    def __init__(self, code: int, reason: str, message: str, details: dict | None = None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self) -> dict:
        body = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details is not None:
            body["details"] = self.details
        return body


def qualified_resource(group: str, plural: str) -> str:
    """`pods` for the core group, `sandboxclaims.extensions.agents.x-k8s.io` otherwise."""
    return plural if not group else f"{plural}.{group}"


def qualified_kind(group: str, kind: str) -> str:
    return kind if not group else f"{kind}.{group}"


def not_found(group: str, plural: str, name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{qualified_resource(group, plural)} "{name}" not found',
                    {"name": name, "group": group, "kind": plural})


def already_exists(group: str, plural: str, name: str) -> ApiError:
    return ApiError(409, "AlreadyExists", f'{qualified_resource(group, plural)} "{name}" already exists',
                    {"name": name, "group": group, "kind": plural})


def conflict(group: str, plural: str, name: str) -> ApiError:
    return ApiError(409, "Conflict",
                    f'Operation cannot be fulfilled on {qualified_resource(group, plural)} "{name}": '
                    "the object has been modified; please apply your changes to the latest version and try again",
                    {"name": name, "group": group, "kind": plural})


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def method_not_allowed(message: str = "the server does not allow this method on the requested resource") -> ApiError:
    return ApiError(405, "MethodNotAllowed", message)


def unsupported_media_type(content_type: str) -> ApiError:
    return ApiError(415, "UnsupportedMediaType", f'the body of the request was in an unknown format - accepted media types include: '
                    f'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, '
                    f'application/strategic-merge-patch+json (got "{content_type}")')


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized", "Unauthorized")


def gone(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


class FieldError:
    """One `field.Error` of k8s.io/apimachinery: a type, a JSON path, the bad value, a detail."""

    _TYPE_TEXT = {
        "FieldValueRequired": "Required value",
        "FieldValueInvalid": "Invalid value",
        "FieldValueNotSupported": "Unsupported value",
        "FieldValueDuplicate": "Duplicate value",
        "FieldValueTooLong": "Too long",
        "FieldValueTooMany": "Too many",
        "FieldValueForbidden": "Forbidden",
        "FieldValueNotFound": "Not found",
    }
    _NO_VALUE = {"FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"}

    def __init__(self, type_: str, field: str, value=None, detail: str = ""):
        self.type = type_
        self.field = field
        self.value = value
        self.detail = detail

    def body(self) -> str:
        text = self._TYPE_TEXT[self.type]
        if self.type not in self._NO_VALUE:
            text += ": " + format_bad_value(self.value)
        if self.detail:
            text += ": " + self.detail
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"

    def __repr__(self) -> str:
        return f"FieldError({self})"


def format_bad_value(value) -> str:
    """Formats a bad value as Go's `field.Error.ErrorBody` does for the common cases."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def invalid(group: str, kind: str, name: str, errors: list[FieldError]) -> ApiError:
    """422 Invalid as `apierrors.NewInvalid` builds it."""
    qkind = qualified_kind(group, kind)
    if len(errors) == 1:
        aggregate = str(errors[0])
    else:
        aggregate = "[" + ", ".join(str(e) for e in errors) + "]"
    message = f'{qkind} "{name}" is invalid: {aggregate}' if errors else f'{qkind} "{name}" is invalid'
    causes = [{"reason": e.type, "message": e.body(), "field": e.field} for e in errors]
    return ApiError(422, "Invalid", message, {"name": name, "group": group, "kind": kind, "causes": causes})


def strict_decoding(kind: str, version: str, unknown_paths: list[str]) -> ApiError:
    """400 BadRequest for unknown fields under `fieldValidation=Strict`."""
    fields = ", ".join(f'unknown field "{p}"' for p in unknown_paths)
    return bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: {fields}')

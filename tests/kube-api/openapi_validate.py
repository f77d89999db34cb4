"""A small validator for Kubernetes structural OpenAPI v3 schemas (CRD `openAPIV3Schema`).

It does what the API server does to a custom resource, in the same order:
1. prune: drop fields the schema does not declare (reported as unknown fields, which
   `fieldValidation=Strict` turns into errors) and null values of non-nullable fields;
2. default: fill `default` values of missing properties;
3. validate: types, required, enum, pattern, lengths, bounds, list uniqueness,
   `x-kubernetes-int-or-string`, `x-kubernetes-embedded-resource`, anyOf/allOf/oneOf/not.
Errors are `FieldError`s with the messages kube-openapi produces (`spec.x in body must be of
type integer: "string"`). CEL rules (`x-kubernetes-validations`) are not evaluated.
"""

from __future__ import annotations

import copy
import datetime
import re

from api_errors import FieldError

# Fields of ObjectMeta a client may send; anything else under `metadata` is unknown.
OBJECT_META_FIELDS = {
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
    "annotations", "ownerReferences", "finalizers", "managedFields",
}


def join(path: str, key: str) -> str:
    return key if not path else f"{path}.{key}"


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def type_name(value) -> str:
    """The JSON type name kube-openapi reports for a value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _preserves_unknown(schema: dict) -> bool:
    return bool(schema.get("x-kubernetes-preserve-unknown-fields"))


def prune(schema: dict, value, path: str = "", unknown: list[str] | None = None, *, is_root: bool = True):
    """Returns `value` without undeclared fields; appends their paths to `unknown`."""
    if unknown is None:
        unknown = []
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        addl = schema.get("additionalProperties")
        embedded = schema.get("x-kubernetes-embedded-resource")
        result = {}
        for key, item in value.items():
            child_path = join(path, key)
            if (is_root or embedded) and key in ("apiVersion", "kind"):
                result[key] = item
                continue
            if (is_root or embedded) and key == "metadata" and isinstance(item, dict):
                # ObjectMeta is validated by the server itself, not by the CRD schema; under an
                # embedded resource (and at the root) only the ObjectMeta fields survive.
                meta_schema = (props or {}).get("metadata", {})
                if meta_schema.get("properties"):
                    result[key] = prune(meta_schema, item, child_path, unknown, is_root=False)
                else:
                    result[key] = {}
                    for mkey, mval in item.items():
                        if mkey in OBJECT_META_FIELDS:
                            result[key][mkey] = mval
                        else:
                            unknown.append(join(child_path, mkey))
                continue
            if props is not None and key in props:
                sub = props[key]
                if item is None and not sub.get("nullable"):
                    continue  # the API server drops nulls of non-nullable fields
                result[key] = prune(sub, item, child_path, unknown, is_root=False)
            elif isinstance(addl, dict):
                if item is None and not addl.get("nullable"):
                    continue
                result[key] = prune(addl, item, child_path, unknown, is_root=False)
            elif addl is True or _preserves_unknown(schema) or (props is None and addl is None
                                                                   and not _is_declared_object(schema)):
                result[key] = item
            else:
                unknown.append(child_path)
        return result
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            return [prune(items, v, index(path, i), unknown, is_root=False) for i, v in enumerate(value)]
        return value
    return value


def _is_declared_object(schema: dict) -> bool:
    """`type: object` without properties or additionalProperties declares an empty object whose
    unknown fields are pruned (unless it preserves unknown fields)."""
    return schema.get("type") == "object"


def apply_defaults(schema: dict, value):
    """Fills schema `default`s for missing properties of present objects (in place; returns value)."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if key not in value and "default" in sub:
                value[key] = copy.deepcopy(sub["default"])
            if key in value:
                value[key] = apply_defaults(sub, value[key])
        addl = schema.get("additionalProperties")
        if isinstance(addl, dict):
            for key in list(value):
                if key not in (schema.get("properties") or {}):
                    value[key] = apply_defaults(addl, value[key])
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            value[i] = apply_defaults(schema["items"], item)
    return value


_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _format_ok(fmt: str, value: str) -> bool:
    if fmt == "date-time":
        if not _DATE_TIME.match(value):
            return False
        try:
            datetime.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return False
        return True
    return True  # other formats (int32, byte, ...) are not checked on strings here


def _type_ok(expected: str, value) -> bool:
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return True


def validate(schema: dict, value, path: str = "", *, is_root: bool = True) -> list[FieldError]:
    """Validates a pruned, defaulted value against a structural schema."""
    errors: list[FieldError] = []
    _validate(schema, value, path, errors, is_root)
    return errors


def _body_path(path: str) -> str:
    return path if path else "body"


def _validate(schema: dict, value, path: str, errors: list[FieldError], is_root: bool) -> None:
    if not isinstance(schema, dict):
        return
    if value is None:
        if schema.get("nullable"):
            return
        # kube-openapi: a null where a typed value is expected is a type error
        expected = schema.get("type")
        if expected:
            errors.append(FieldError("FieldValueInvalid", path, "null",
                                     f"{_body_path(path)} in body must be of type {expected}: \"null\""))
        return

    int_or_string = schema.get("x-kubernetes-int-or-string")
    expected = schema.get("type")
    if int_or_string:
        if not (isinstance(value, str) or _type_ok("integer", value)):
            errors.append(FieldError("FieldValueInvalid", path, type_name(value),
                                     f"{_body_path(path)} in body must be of type integer,string: \"{type_name(value)}\""))
            return
    elif expected and not _type_ok(expected, value):
        errors.append(FieldError("FieldValueInvalid", path, type_name(value),
                                 f"{_body_path(path)} in body must be of type {expected}: \"{type_name(value)}\""))
        return

    if "enum" in schema and value not in schema["enum"]:
        errors.append(FieldError("FieldValueNotSupported", path, value,
                                 "supported values: " + ", ".join(_quote(v) for v in schema["enum"])))

    if isinstance(value, str):
        _validate_string(schema, value, path, errors)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _validate_number(schema, value, path, errors)
    elif isinstance(value, list):
        _validate_array(schema, value, path, errors)
    elif isinstance(value, dict):
        _validate_object(schema, value, path, errors, is_root)

    _validate_combinators(schema, value, path, errors, int_or_string)


def _quote(v) -> str:
    return f'"{v}"' if isinstance(v, str) else str(v)


def _validate_string(schema: dict, value: str, path: str, errors: list[FieldError]) -> None:
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append(FieldError("FieldValueTooLong", path, value, f"may not be more than {schema['maxLength']} bytes"))
    if "minLength" in schema and len(value) < schema["minLength"]:
        errors.append(FieldError("FieldValueInvalid", path, value,
                                 f"{_body_path(path)} in body should be at least {schema['minLength']} chars long"))
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(FieldError("FieldValueInvalid", path, value,
                                 f"{_body_path(path)} in body should match '{schema['pattern']}'"))
    if "format" in schema and not _format_ok(schema["format"], value):
        errors.append(FieldError("FieldValueInvalid", path, value,
                                 f"{_body_path(path)} in body must be of type {schema['format']}: {_quote(value)}"))


def _validate_number(schema: dict, value, path: str, errors: list[FieldError]) -> None:
    if "minimum" in schema:
        if schema.get("exclusiveMinimum") and value <= schema["minimum"]:
            errors.append(FieldError("FieldValueInvalid", path, value,
                                     f"{_body_path(path)} in body should be greater than {schema['minimum']}"))
        elif value < schema["minimum"]:
            errors.append(FieldError("FieldValueInvalid", path, value,
                                     f"{_body_path(path)} in body should be greater than or equal to {schema['minimum']}"))
    if "maximum" in schema:
        if schema.get("exclusiveMaximum") and value >= schema["maximum"]:
            errors.append(FieldError("FieldValueInvalid", path, value,
                                     f"{_body_path(path)} in body should be less than {schema['maximum']}"))
        elif value > schema["maximum"]:
            errors.append(FieldError("FieldValueInvalid", path, value,
                                     f"{_body_path(path)} in body should be less than or equal to {schema['maximum']}"))
    if schema.get("format") == "int32" and not (-2**31 <= value < 2**31):
        errors.append(FieldError("FieldValueInvalid", path, value,
                                 f"{_body_path(path)} in body must be of type int32: \"{value}\""))


def _validate_array(schema: dict, value: list, path: str, errors: list[FieldError]) -> None:
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(FieldError("FieldValueTooMany", path, len(value), f"must have at most {schema['maxItems']} items"))
    if "minItems" in schema and len(value) < schema["minItems"]:
        errors.append(FieldError("FieldValueInvalid", path, len(value),
                                 f"{_body_path(path)} in body should have at least {schema['minItems']} items"))
    items = schema.get("items")
    if isinstance(items, dict):
        for i, item in enumerate(value):
            _validate(items, item, index(path, i), errors, False)
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set" or schema.get("uniqueItems"):
        seen = []
        for i, item in enumerate(value):
            if item in seen:
                errors.append(FieldError("FieldValueDuplicate", index(path, i), item))
            seen.append(item)
    elif list_type == "map":
        keys = schema.get("x-kubernetes-list-map-keys") or []
        seen_keys = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                continue
            key = tuple(item.get(k) for k in keys)
            if key in seen_keys:
                dup = {k: item.get(k) for k in keys if k in item}
                errors.append(FieldError("FieldValueDuplicate", index(path, i), dup))
            seen_keys.append(key)


def _validate_object(schema: dict, value: dict, path: str, errors: list[FieldError], is_root: bool) -> None:
    for name in schema.get("required") or []:
        if name not in value:
            errors.append(FieldError("FieldValueRequired", join(path, name), None))
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        errors.append(FieldError("FieldValueTooMany", path, len(value),
                                 f"must have at most {schema['maxProperties']} items"))
    if "minProperties" in schema and len(value) < schema["minProperties"]:
        errors.append(FieldError("FieldValueInvalid", path, len(value),
                                 f"{_body_path(path)} in body should have at least {schema['minProperties']} properties"))
    props = schema.get("properties") or {}
    addl = schema.get("additionalProperties")
    for key, item in value.items():
        if (is_root or schema.get("x-kubernetes-embedded-resource")) and key in ("apiVersion", "kind", "metadata"):
            if key != "metadata" and not isinstance(item, str):
                errors.append(FieldError("FieldValueInvalid", join(path, key), type_name(item),
                                         f"{join(path, key)} in body must be of type string: \"{type_name(item)}\""))
            if key == "metadata" and key in props and props[key].get("properties"):
                _validate(props[key], item, join(path, key), errors, False)
            continue
        if key in props:
            _validate(props[key], item, join(path, key), errors, False)
        elif isinstance(addl, dict):
            _validate(addl, item, join(path, key), errors, False)
    if schema.get("x-kubernetes-embedded-resource"):
        for name in ("apiVersion", "kind"):
            if not value.get(name):
                errors.append(FieldError("FieldValueRequired", join(path, name), None, "must not be empty"))


def _validate_combinators(schema: dict, value, path: str, errors: list[FieldError], int_or_string) -> None:
    if "anyOf" in schema and not int_or_string:
        if not any(not validate(branch, value, path, is_root=False) for branch in schema["anyOf"]):
            errors.append(FieldError("FieldValueInvalid", path, value, "must validate at least one schema (anyOf)"))
    if "oneOf" in schema:
        matches = sum(1 for branch in schema["oneOf"] if not validate(branch, value, path, is_root=False))
        if matches != 1:
            errors.append(FieldError("FieldValueInvalid", path, value, "must validate one and only one schema (oneOf)"))
    for branch in schema.get("allOf") or []:
        _validate(branch, value, path, errors, False)
    if "not" in schema and not validate(schema["not"], value, path, is_root=False):
        errors.append(FieldError("FieldValueInvalid", path, value, "must not validate the schema (not)"))


def check(schema: dict, value) -> tuple[object, list[str], list[FieldError]]:
    """Prune, default and validate like the API server: returns (object, unknown paths, errors)."""
    unknown: list[str] = []
    pruned = prune(schema, copy.deepcopy(value), "", unknown)
    apply_defaults(schema, pruned)
    return pruned, unknown, validate(schema, pruned)

"""HTTP routing of the Kubernetes REST API onto the object service."""

from __future__ import annotations

import hmac
import json
import logging

import api_errors
import discovery
import protobuf_codec
import tables
from api_errors import ApiError, bad_request
from http_server import Request, Response
from objects import ObjectService
from resources import Registry, ResourceType
from watch import watch_response

log = logging.getLogger("kube-api.api")

NOT_FOUND_RESOURCE = ApiError(404, "NotFound", "the server could not find the requested resource")


def json_response(obj, status: int = 200, headers: dict | None = None) -> Response:
    return Response(status, json.dumps(obj, separators=(",", ":")).encode(), headers or {})


def error_response(err: ApiError) -> Response:
    return json_response(err.status(), err.code)


def _warning_headers(warnings: list[str]) -> dict:
    if not warnings:
        return {}
    # One header per warning is what the server sends; joined values are equivalent in HTTP.
    return {"Warning": ", ".join('299 - "' + w.replace("\\", "\\\\").replace('"', '\\"') + '"' for w in warnings)}


class Api:
    def __init__(self, registry: Registry, objects: ObjectService, token: str, server_address: str,
                 exec_handler=None, log_handler=None, hooks=None):
        self.registry = registry
        self.objects = objects
        self.token = token
        self.server_address = server_address
        self.exec_handler = exec_handler
        self.log_handler = log_handler
        self.hooks = hooks
        self._documents: dict[str, bytes] = {}
        self.authorizer = None  # (verb, resource, namespace, name) -> a rule to refuse with 403, or None

    def _cached(self, key: str, build) -> Response:
        """Documents that depend only on the (fixed) registry are built once."""
        body = self._documents.get(key)
        if body is None:
            body = json.dumps(build(), separators=(",", ":")).encode()
            self._documents[key] = body
        return Response(200, body)

    def authorized(self, request: Request) -> bool:
        auth = request.header("authorization")
        if not auth.lower().startswith("bearer "):
            return False
        return hmac.compare_digest(auth[7:].strip().encode(), self.token.encode())

    async def __call__(self, request: Request):
        response = await self._answer(request)
        # Method, path and status only: query strings (exec commands) and bodies stay out of logs.
        log.info("%s %s %s", request.method, request.path, getattr(response, "status", "stream"))
        return response

    async def _answer(self, request: Request):
        try:
            if request.path in ("/healthz", "/livez", "/readyz"):
                return Response(200, b"ok", {"Content-Type": "text/plain"})
            if not self.authorized(request):
                raise api_errors.unauthorized()
            if request.path.startswith("/_test/") and self.hooks is not None:
                return await self.hooks.handle(request)
            return await self._route(request)
        except ApiError as err:
            if err.code >= 500:
                log.warning("%s %s -> %d %s", request.method, request.path, err.code, err.message)
            return error_response(err)

    async def _route(self, request: Request):
        path = request.path.rstrip("/") or "/"
        parts = [p for p in path.split("/") if p]
        accept = request.header("accept")
        if path == "/version":
            return json_response(discovery.VERSION_INFO)
        if path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews" and request.method == "POST":
            return self._self_subject_access_review(request)
        if path == "/api":
            media = discovery.wants_aggregated(accept)
            if media:
                return json_response(discovery.aggregated(self.registry, True, media), headers={"Content-Type": media})
            return json_response(discovery.api_versions(self.server_address))
        if path == "/apis":
            media = discovery.wants_aggregated(accept)
            if media:
                return json_response(discovery.aggregated(self.registry, False, media), headers={"Content-Type": media})
            return json_response(discovery.api_group_list(self.registry))
        if path == "/openapi/v3":
            return self._cached("openapi-v3", lambda: discovery.openapi_v3_root(self.registry))
        if path.startswith("/openapi/v3/"):
            rest = parts[2:]
            group, version = ("", rest[1]) if rest[0] == "api" and len(rest) == 2 else (
                (rest[1], rest[2]) if rest[0] == "apis" and len(rest) == 3 else (None, None))
            if version is None or not self.registry.in_group_version(group, version):
                raise NOT_FOUND_RESOURCE
            return self._cached(f"openapi-v3/{group}/{version}",
                                lambda: discovery.openapi_v3_group_version(self.registry, group, version))
        if path == "/openapi/v2":
            if "protobuf" in accept:
                return Response(200, discovery.openapi_v2_protobuf(),
                                {"Content-Type": "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"})
            return json_response(discovery.openapi_v2_json())
        if parts and parts[0] == "api":
            if len(parts) == 1:
                raise NOT_FOUND_RESOURCE
            return await self._group_version(request, "", parts[1], parts[2:])
        if parts and parts[0] == "apis":
            if len(parts) == 2:
                doc = discovery.api_group(self.registry, parts[1])
                if doc is None:
                    raise NOT_FOUND_RESOURCE
                return json_response(doc)
            if len(parts) >= 3:
                return await self._group_version(request, parts[1], parts[2], parts[3:])
        raise NOT_FOUND_RESOURCE

    async def _group_version(self, request: Request, group: str, version: str, rest: list[str]):
        if not rest:
            doc = discovery.api_resource_list(self.registry, group, version)
            if doc is None:
                raise NOT_FOUND_RESOURCE
            return json_response(doc)
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3 and not (len(rest) == 3 and rest[2] in ("status", "finalize")):
            namespace = rest[1]
            rest = rest[2:]
        rt = self.registry.lookup(group, version, rest[0])
        if rt is None:
            raise NOT_FOUND_RESOURCE
        if namespace is not None and not rt.namespaced:
            raise NOT_FOUND_RESOURCE
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if len(rest) > 3 or (sub is not None and sub not in rt.subresources):
            raise NOT_FOUND_RESOURCE
        if rt.namespaced and namespace is None and (name is not None or request.method not in ("GET",)):
            raise NOT_FOUND_RESOURCE
        return await self._resource(request, rt, namespace or "", name, sub)

    # -- verbs ----------------------------------------------------------------------------
    def _dry_run(self, request: Request) -> bool:
        values = request.params("dryRun")
        for v in values:
            if v != "All":
                raise bad_request(f'Invalid dry run value: "{v}": supported values: "All"')
        return bool(values)

    def _field_validation(self, request: Request) -> str | None:
        value = request.param("fieldValidation")
        if value is not None and value.lower() not in ("strict", "warn", "ignore", ""):
            raise bad_request(f'fieldValidation must be one of "Ignore", "Warn", "Strict", got "{value}"')
        return value

    def _body(self, request: Request):
        if "protobuf" in request.header("content-type"):
            return protobuf_codec.decode_object(request.body)
        try:
            text = request.body.decode("utf-8")
            if request.header("content-type").startswith("application/yaml"):
                import yaml
                return yaml.safe_load(text)
            return json.loads(text)
        except (UnicodeDecodeError, ValueError) as exc:
            raise bad_request(f"couldn't get version/kind; json parse error: {exc}")

    def _self_subject_access_review(self, request: Request):
        """`kubectl auth can-i`: allowed unless a `forbid` rule (the simulated RBAC) refuses it."""
        review = self._body(request)
        attrs = (review.get("spec") or {}).get("resourceAttributes") or {}
        resource = attrs.get("resource", "") + (f"/{attrs['subresource']}" if attrs.get("subresource") else "")
        rule = self.authorizer(attrs.get("verb", ""), resource, attrs.get("namespace", ""),
                               attrs.get("name", "")) if self.authorizer else None
        review["status"] = {"allowed": not rule}
        if rule:
            review["status"]["reason"] = "forbidden by the test server's forbid rule"
        return json_response(review, status=201)

    def _authorize(self, request: Request, rt: ResourceType, namespace: str, name: str | None, sub: str | None):
        if self.authorizer is None:
            return
        watching = request.param("watch", "false").lower() in ("true", "1")
        verb = {"GET": "watch" if watching else ("get" if name else "list"), "POST": "create", "PUT": "update",
                "PATCH": "patch", "DELETE": "delete" if name else "deletecollection"}.get(request.method, "")
        if sub == "exec":
            verb = "create" if request.method == "POST" or request.is_websocket else "get"
        resource = rt.plural + (f"/{sub}" if sub else "")
        rule = self.authorizer(verb, resource, namespace, name or "")
        if not rule:
            return
        if isinstance(rule, dict) and rule.get("message"):
            raise ApiError(403, "Forbidden", rule["message"], {"name": name or "", "group": rt.group, "kind": rt.plural})
        where = f' in the namespace "{namespace}"' if rt.namespaced and namespace else (
            "" if rt.namespaced else " at the cluster scope")
        subject = api_errors.qualified_resource(rt.group, rt.plural) + (f' "{name}"' if name else "")
        raise ApiError(403, "Forbidden", f'{subject} is forbidden: User "kube-api-test-user" cannot {verb} resource '
                       f'"{resource}" in API group "{rt.group}"{where}',
                       {"name": name or "", "group": rt.group, "kind": rt.plural})

    async def _resource(self, request: Request, rt: ResourceType, namespace: str, name: str | None, sub: str | None):
        self._authorize(request, rt, namespace, name, sub)
        method = request.method
        ns_or_all = namespace if rt.namespaced and namespace else None
        if sub == "exec":
            if self.exec_handler is None or method not in ("GET", "POST"):
                raise api_errors.method_not_allowed()
            return await self.exec_handler(request, namespace, name)
        if sub == "log":
            if method != "GET" or self.log_handler is None:
                raise api_errors.method_not_allowed()
            return await self.log_handler(request, namespace, name)
        if method == "GET":
            watching = request.param("watch", "false").lower() in ("true", "1")
            if name is None and watching:
                return watch_response(request, rt, ns_or_all, None, self.objects.store)
            if name is not None and watching:
                return watch_response(request, rt, ns_or_all, name, self.objects.store)
            if name is None:
                listed = self.objects.list(rt, ns_or_all, request.param("labelSelector"), request.param("fieldSelector"),
                                           shared=True, limit=request.param("limit"),
                                           continue_token=request.param("continue"))
                if tables.wants_table(request.header("accept")):
                    table = tables.to_table(rt, listed["items"], listed["metadata"]["resourceVersion"],
                                            request.param("includeObject"))
                    table["metadata"] = listed["metadata"]  # continue and remainingItemCount too
                    return json_response(table)
                return json_response(listed)
            obj = self.objects.get(rt, namespace, name)
            if tables.wants_table(request.header("accept")) and sub is None:
                return json_response(tables.to_table(rt, [obj], obj["metadata"]["resourceVersion"],
                                                     request.param("includeObject")))
            return json_response(obj)
        if method == "POST":
            if name is not None:
                raise api_errors.method_not_allowed()
            obj, warnings = self.objects.create(rt, namespace, self._body(request), dry_run=self._dry_run(request),
                                                field_validation=self._field_validation(request))
            return json_response(obj, 201, _warning_headers(warnings))
        if method == "PUT":
            if name is None:
                raise api_errors.method_not_allowed()
            obj, warnings, created = self.objects.replace(
                rt, namespace, name, self._body(request), subresource=sub, dry_run=self._dry_run(request),
                field_validation=self._field_validation(request))
            return json_response(obj, 201 if created else 200, _warning_headers(warnings))
        if method == "PATCH":
            if name is None:
                raise api_errors.method_not_allowed()
            obj, warnings, created = self.objects.patch(
                rt, namespace, name, request.header("content-type"), request.body, subresource=sub,
                dry_run=self._dry_run(request), field_validation=self._field_validation(request))
            return json_response(obj, 201 if created else 200, _warning_headers(warnings))
        if method == "DELETE":
            options = {}
            if request.body.strip():
                options = self._body(request) or {}
            propagation = request.param("propagationPolicy") or options.get("propagationPolicy")
            dry_run = self._dry_run(request) or bool(options.get("dryRun"))
            if name is None:
                return self._delete_collection(request, rt, ns_or_all, propagation, dry_run)
            obj = self.objects.delete(rt, namespace, name, dry_run=dry_run, propagation=propagation,
                                      preconditions=options.get("preconditions"))
            return json_response(obj)
        raise api_errors.method_not_allowed()

    def _delete_collection(self, request: Request, rt: ResourceType, namespace: str | None, propagation, dry_run):
        listed = self.objects.list(rt, namespace, request.param("labelSelector"), request.param("fieldSelector"))
        deleted = []
        for obj in listed["items"]:
            meta = obj["metadata"]
            if self.objects.find(rt, meta.get("namespace", ""), meta["name"]) is None:
                continue  # already collected as a dependent
            deleted.append(self.objects.delete(rt, meta.get("namespace", ""), meta["name"], dry_run=dry_run,
                                               propagation=propagation))
        return json_response({"kind": rt.list_kind, "apiVersion": rt.api_version,
                              "metadata": {"resourceVersion": str(self.objects.store.resource_version)},
                              "items": deleted})

"""AWS Signature Version 4 through the real proxy: the sandbox's AWS CLI and
boto3 sign with placeholder credentials; an S3-compatible origin on loopback
verifies every signature with the REAL key (botocore's own signer on the
server side) and never sees the placeholder key id. Uploads and downloads
(header-signed, a hashed body, a presigned URL fetched with curl, a streaming
aws-chunked body whose chunk signatures the proxy computes again), and a
request signed with a key of the sandbox's own is refused."""
import hashlib
import hmac
import os
import secrets as random_tokens
import shutil
import subprocess
import tempfile
import urllib.parse

import pytest

from osftest import Proxy, TestCA, Upstream
from osftest.clients import body_of, curl, status_of
from osftest.nginx import Nginx

botocore = pytest.importorskip("botocore")
import boto3  # noqa: E402
import botocore.auth  # noqa: E402
import botocore.awsrequest  # noqa: E402
import botocore.config  # noqa: E402
import botocore.credentials  # noqa: E402
import botocore.exceptions  # noqa: E402

AWS_CLI = "/usr/bin/aws"
S3 = "s3.aws.test"
STS = "sts.aws.test"
REGION = "us-east-1"
REAL_KEY_ID = "AKIA" + random_tokens.token_hex(8).upper()
REAL_SECRET = random_tokens.token_urlsafe(30)[:40]
REAL_TOKEN = "FwoGZXIvYXdzE" + random_tokens.token_urlsafe(60)
PLACEHOLDER_TOKEN = "osf-aws-session-token-placeholder-AWS"
NAME = "AWS"


def _fnv(text, seed):
    value = 14695981039346656037 ^ seed
    for byte in text.encode():
        value ^= byte
        value = (value * 1099511628211) % (1 << 64)
    return value


def _base32(high, low, count):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    out, words = "", [high, low]
    for i in range(count):
        out += alphabet[words[i % 2] & 31]
        words[i % 2] >>= 5
    return out


# The placeholders as egress-proxy/docs/secrets.md says they are derived.
PLACEHOLDER_KEY_ID = "AKIA" + _base32(_fnv(NAME, 1), _fnv(NAME, 2), 16)
PLACEHOLDER_SECRET = "osfPlaceholderSecretKey0" + _base32(_fnv(NAME, 3), _fnv(NAME, 4), 16)


def _verifier(signed, payload, region, service):
    """botocore's signer for `service` (S3's or the generic one), limited to the
    headers the client signed, with the real credentials: for checking."""
    base = botocore.auth.S3SigV4Auth if service == "s3" else botocore.auth.SigV4Auth

    class Verifier(base):
        def headers_to_sign(self, request):
            headers = botocore.awsrequest.HTTPHeaders()
            for name, value in request.headers.items():
                if name.lower() in signed:
                    headers[name.lower()] = value
            return headers

        def payload(self, request):
            return payload

    return Verifier(botocore.credentials.Credentials(REAL_KEY_ID, REAL_SECRET), service, region)


def _signature_of(method, host, path, query, headers, signed, payload, date, region, service):
    request = botocore.awsrequest.AWSRequest(method=method, url=f"https://{host}{path}" +
                                             (f"?{query}" if query else ""),
                                             headers=headers)
    request.context["timestamp"] = date
    verifier = _verifier(signed, payload, region, service)
    canonical = verifier.canonical_request(request)
    return verifier.signature(verifier.string_to_sign(request, canonical), request)


def _chunk_key(date, region):
    key = ("AWS4" + REAL_SECRET).encode()
    for part in (date[:8], region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def _decode_chunks(body, seed, date, region):
    """The data of an aws-chunked body, each chunk's signature checked with the real key."""
    key, previous, data, rest = _chunk_key(date, region), seed, b"", body
    scope = f"{date[:8]}/{region}/s3/aws4_request"
    while True:
        line, _, rest = rest.partition(b"\r\n")
        size_text, _, signature = line.decode().partition(";chunk-signature=")
        size = int(size_text, 16)
        chunk, rest = rest[:size], rest[size + 2:]
        to_sign = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", date, scope, previous,
                             hashlib.sha256(b"").hexdigest(), hashlib.sha256(chunk).hexdigest()])
        expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, signature):
            return None
        previous, data = signature, data + chunk
        if size == 0:
            return data


def _verified(handler, url, body):
    """The request's body when its signature verifies with the real key, else None."""
    headers = {k: v for k, v in handler.headers.items() if k.lower() != "authorization"}
    authorization = handler.headers.get("Authorization")
    query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
    if authorization:
        fields = dict(part.strip().split("=", 1)
                      for part in authorization[len("AWS4-HMAC-SHA256 "):].split(","))
        key_id, date, region, service, _ = fields["Credential"].split("/")
        signed = fields["SignedHeaders"].split(";")
        given, query_text = fields["Signature"], url.query
        amz_date = handler.headers["X-Amz-Date"]
    elif "X-Amz-Signature" in query:
        key_id, date, region, service, _ = query["X-Amz-Credential"][0].split("/")
        signed = query["X-Amz-SignedHeaders"][0].split(";")
        given = query["X-Amz-Signature"][0]
        query_text = "&".join(p for p in url.query.split("&")
                              if not p.startswith("X-Amz-Signature="))
        amz_date = query["X-Amz-Date"][0]
    else:
        return None
    if key_id != REAL_KEY_ID:
        return None
    token = handler.headers.get("X-Amz-Security-Token") or query.get("X-Amz-Security-Token",
                                                                       [None])[0]
    if token != handler.server.expected_token:
        return None
    payload = handler.headers.get("X-Amz-Content-SHA256") or (
        "UNSIGNED-PAYLOAD" if service == "s3" else hashlib.sha256(body).hexdigest())
    expected = _signature_of(handler.command, handler.headers["Host"], url.path, query_text,
                                headers, signed, payload, amz_date, region, service)
    if not hmac.compare_digest(expected, given):
        return None
    if payload == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD":
        return _decode_chunks(body, given, amz_date, region)
    if payload not in ("UNSIGNED-PAYLOAD",) and payload != hashlib.sha256(body).hexdigest():
        return None
    return body


CALLER_IDENTITY = (
    b'<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
    b"<GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/ci</Arn>"
    b"<UserId>AIDAEXAMPLE</UserId><Account>123456789012</Account></GetCallerIdentityResult>"
    b"<ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>")


def query_of(url):
    return urllib.parse.parse_qs(url.query, keep_blank_values=True)


def s3_route_for(objects):
    uploads = {}

    def route(handler, url, body):
        data = _verified(handler, url, body)
        if data is None:
            handler._send(403, b"<Error><Code>SignatureDoesNotMatch</Code></Error>",
                          "application/xml")
            return True
        key = urllib.parse.unquote(url.path)
        if url.path == "/bucket/echo":
            # A careless origin echoing the credential it got in a header.
            handler._send(200, b"", "application/octet-stream",
                          [("X-Echo", handler.headers["Authorization"])])
        elif handler.headers["Host"].startswith(STS):
            handler._send(200, CALLER_IDENTITY, "text/xml")
        elif handler.command == "POST" and "uploads" in query_of(url):
            # Multipart (the CLI above 8 MB): parts kept under the upload's id.
            upload = f"upload-{len(uploads) + 1}"
            uploads[upload] = {}
            bucket, _, name = key[1:].partition("/")
            handler._send(200, (f"<InitiateMultipartUploadResult><Bucket>{bucket}</Bucket><Key>"
                                f"{name}</Key><UploadId>{upload}</UploadId>"
                                f"</InitiateMultipartUploadResult>").encode(), "application/xml")
        elif handler.command == "PUT" and "uploadId" in query_of(url):
            query = query_of(url)
            uploads[query["uploadId"][0]][int(query["partNumber"][0])] = data
            handler._send(200, b"", "application/xml",
                          [("ETag", '"' + hashlib.md5(data).hexdigest() + '"')])
        elif handler.command == "POST" and "uploadId" in query_of(url):
            parts = uploads.pop(query_of(url)["uploadId"][0])
            objects[key] = b"".join(parts[n] for n in sorted(parts))
            handler._send(200, (f"<CompleteMultipartUploadResult><Key>{key}</Key><ETag>\"x\"</ETag>"
                                f"</CompleteMultipartUploadResult>").encode(), "application/xml")
        elif handler.command == "PUT":
            objects[key] = data
            handler._send(200, b"", "application/xml",
                          [("ETag", '"' + hashlib.md5(data).hexdigest() + '"')])
        elif handler.command in ("GET", "HEAD") and key in objects:
            stored = objects[key]
            headers = [("ETag", '"' + hashlib.md5(stored).hexdigest() + '"'),
                       ("Last-Modified", "Mon, 07 Dec 2026 00:00:00 GMT")]
            ranged = handler.headers.get("Range", "")
            if ranged.startswith("bytes="):
                # The CLI reads a large object in ranges.
                first, _, last = ranged[len("bytes="):].partition("-")
                last = min(int(last) if last else len(stored) - 1, len(stored) - 1)
                part = stored[int(first):last + 1]
                handler._send(206, part, "application/octet-stream",
                              headers + [("Content-Range", f"bytes {first}-{last}/{len(stored)}")])
            else:
                handler._send(200, stored, "application/octet-stream", headers)
        else:
            handler._send(404, b"<Error><Code>NoSuchKey</Code></Error>", "application/xml")
        return True

    return route


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return TestCA(str(tmp_path_factory.mktemp("upstream-ca")))


@pytest.fixture
def objects():
    return {}


@pytest.fixture
def origin(ca, objects):
    server = Upstream(ca, [S3, STS], route=s3_route_for(objects))
    server.server.expected_token = None
    yield server
    server.stop()


def start_proxy(directory, ca, session_token=False):
    secret = {"kind": "aws", "accessKeyId": "ref:env/AWS_KEY_ID",
              "secretAccessKey": "ref:env/AWS_SECRET", "regions": [REGION],
              "services": ["s3", "sts"], "hosts": [S3, STS]}
    env = {"OSF_SECRET_AWS_KEY_ID": REAL_KEY_ID, "OSF_SECRET_AWS_SECRET": REAL_SECRET}
    if session_token:
        secret["sessionToken"] = "ref:env/AWS_TOKEN"
        env["OSF_SECRET_AWS_TOKEN"] = REAL_TOKEN
    spec = {"template": "node:24-alpine", "egress": [S3, STS], "secrets": {NAME: secret}}
    return Proxy(spec, directory, upstream_ca=ca.cert_path,
                 aliases={S3: "127.0.0.1", STS: "127.0.0.1"}, env=env)


def assert_no_real_value(running):
    for text in (running.stderr(), running.stdout(), open(running.log_path).read()):
        for value in (REAL_SECRET, REAL_KEY_ID, REAL_TOKEN):
            assert value not in text


@pytest.fixture
def proxy(tmp_path, ca, origin):
    with start_proxy(str(tmp_path / "proxy"), ca) as running:
        yield running
        assert_no_real_value(running)


def sandbox_env(proxy, tmp_path, key_id=PLACEHOLDER_KEY_ID, secret=PLACEHOLDER_SECRET):
    """What a sandbox's AWS tools see: the placeholders, the proxy, its CA."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "HTTPS_PROXY": proxy.url,
            "AWS_CA_BUNDLE": proxy.ca_path, "AWS_ACCESS_KEY_ID": key_id,
            "AWS_SECRET_ACCESS_KEY": secret, "AWS_DEFAULT_REGION": REGION,
            "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": str(home / "none"),
            "AWS_SHARED_CREDENTIALS_FILE": str(home / "none")}


def boto3_client(proxy, origin, key_id=PLACEHOLDER_KEY_ID, secret=PLACEHOLDER_SECRET,
                 region=REGION, signature_version="s3v4", token=None, **s3_config):
    return boto3.client(
        "s3", region_name=region, endpoint_url=f"https://{S3}:{origin.port}",
        aws_access_key_id=key_id, aws_secret_access_key=secret, aws_session_token=token,
        verify=proxy.ca_path,
        config=botocore.config.Config(proxies={"https": proxy.url},
                                      signature_version=signature_version,
                                      s3={"addressing_style": "path", **s3_config},
                                      retries={"max_attempts": 1}))


def assert_origin_saw_no_placeholder(origin):
    for raw in origin.received:
        assert PLACEHOLDER_KEY_ID.encode() not in raw


def streamed_upload(port, key, data, body_file):
    """A STREAMING-AWS4-HMAC-SHA256-PAYLOAD upload signed with the placeholders, as
    curl arguments (the body in `body_file`): botocore signs the head (the seed);
    the chunks are signed here in the chain, as the SDKs that stream do, 64 KiB
    each plus a short one."""
    amz_date = "20261207T000000Z"
    chunks = [data[i:i + 65536] for i in range(0, len(data), 65536)] + [b""]
    encoded_length = sum(len(f"{len(c):x};chunk-signature=") + 64 + 4 + len(c) for c in chunks)
    headers = {"Host": f"{S3}:{port}", "X-Amz-Date": amz_date,
               "X-Amz-Content-SHA256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
               "Content-Encoding": "aws-chunked", "Content-Length": str(encoded_length),
               "X-Amz-Decoded-Content-Length": str(len(data))}
    request = botocore.awsrequest.AWSRequest(
        method="PUT", url=f"https://{S3}:{port}/bucket/{key}", headers=dict(headers))
    request.context["timestamp"] = amz_date
    signer = botocore.auth.S3SigV4Auth(
        botocore.credentials.Credentials(PLACEHOLDER_KEY_ID, PLACEHOLDER_SECRET), "s3", REGION)
    signed = sorted(h.lower() for h in headers)
    canonical = signer.canonical_request(request)
    seed = signer.signature(signer.string_to_sign(request, canonical), request)
    signing_key = ("AWS4" + PLACEHOLDER_SECRET).encode()
    for part in (amz_date[:8], REGION, "s3", "aws4_request"):
        signing_key = hmac.new(signing_key, part.encode(), hashlib.sha256).digest()
    body, previous = b"", seed
    for chunk in chunks:
        to_sign = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", amz_date,
                             f"{amz_date[:8]}/{REGION}/s3/aws4_request", previous,
                             hashlib.sha256(b"").hexdigest(), hashlib.sha256(chunk).hexdigest()])
        previous = hmac.new(signing_key, to_sign.encode(), hashlib.sha256).hexdigest()
        body += f"{len(chunk):x};chunk-signature={previous}\r\n".encode() + chunk + b"\r\n"
    assert len(body) == encoded_length
    body_file.write_bytes(body)
    authorization = (f"AWS4-HMAC-SHA256 Credential={PLACEHOLDER_KEY_ID}/{amz_date[:8]}/{REGION}/"
                     f"s3/aws4_request, SignedHeaders={';'.join(signed)}, Signature={seed}")
    args = ["-X", "PUT", "--data-binary", f"@{body_file}", "-H", f"Authorization: {authorization}"]
    for name in ("X-Amz-Date", "X-Amz-Content-SHA256", "Content-Encoding",
                 "X-Amz-Decoded-Content-Length"):
        args += ["-H", f"{name}: {headers[name]}"]
    return body, args


def test_aws_cli_uploads_and_downloads_through_the_proxy(proxy, origin, tmp_path):
    data = os.urandom(6 * 1024 * 1024 + 123)
    source, back = tmp_path / "up.bin", tmp_path / "down.bin"
    source.write_bytes(data)
    env = sandbox_env(proxy, tmp_path)
    endpoint = f"https://{S3}:{origin.port}"
    for args in (["s3", "cp", str(source), "s3://bucket/dir/object.bin"],
                 ["s3", "cp", "s3://bucket/dir/object.bin", str(back)]):
        run = subprocess.run([AWS_CLI, "--endpoint-url", endpoint, *args], env=env,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
    assert back.read_bytes() == data
    assert_origin_saw_no_placeholder(origin)
    lines = proxy.wait_for_log(lambda l: l.get("method") == "GET" and l.get("status") == 200)
    assert lines[0]["secrets"] == [NAME]


def test_aws_cli_multipart_upload_and_ranged_download(proxy, origin, tmp_path):
    # Above the CLI's 8 MB threshold: CreateMultipartUpload, UploadPart (a query-string
    # request signed in its header), CompleteMultipartUpload, then ranged GETs.
    data = os.urandom(19 * 1024 * 1024 + 7)
    source, back = tmp_path / "big.bin", tmp_path / "big-down.bin"
    source.write_bytes(data)
    env = sandbox_env(proxy, tmp_path)
    endpoint = f"https://{S3}:{origin.port}"
    for args in (["s3", "cp", str(source), "s3://bucket/big.bin"],
                 ["s3", "cp", "s3://bucket/big.bin", str(back)]):
        run = subprocess.run([AWS_CLI, "--endpoint-url", endpoint, *args], env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
    assert back.read_bytes() == data
    methods = [(r["method"], "uploadId" in r["path"], "Range" in dict(r["headers"]))
               for r in origin.requests]
    assert ("PUT", True, False) in methods and ("GET", False, True) in methods
    assert_origin_saw_no_placeholder(origin)


def test_boto3_hashed_and_streaming_uploads(proxy, origin, objects, tmp_path):
    # A body hash in X-Amz-Content-SHA256 (payload signing asked for).
    client = boto3_client(proxy, origin, payload_signing_enabled=True)
    client.put_object(Bucket="bucket", Key="hashed", Body=b"hashed body " * 1000)
    assert client.get_object(Bucket="bucket", Key="hashed")["Body"].read() == b"hashed body " * 1000

    # A streaming upload, chunk signatures re-computed by the proxy (3 MiB).
    data = os.urandom(3 * 1024 * 1024 + 1000)
    body_file = tmp_path / "streamed.body"
    body, args = streamed_upload(origin.port, "streamed", data, body_file)
    res = curl(proxy, f"https://{S3}:{origin.port}/bucket/streamed", *args, timeout=60)
    assert status_of(res) == 200, res.stdout + res.stderr
    assert client.get_object(Bucket="bucket", Key="streamed")["Body"].read() == data

    # A body with one chunk's data changed after signing: the head verifies, the
    # chunk does not; refused (the answer says which), never stored.
    for key, version in (("tampered", "--http1.1"), ("tampered-h2", "--http2")):
        body, args = streamed_upload(origin.port, key, data, body_file)
        tampered = bytearray(body)
        # The last data chunk's last byte: the client has sent its whole body by the
        # time the proxy refuses, so it reads the answer rather than a broken pipe.
        tampered[body.rindex(b"\r\n0;chunk-signature=") - 1] ^= 1
        body_file.write_bytes(bytes(tampered))
        res = curl(proxy, f"https://{S3}:{origin.port}/bucket/{key}", version, *args, timeout=60)
        if version == "--http1.1":
            assert status_of(res) == 403, res.stdout + res.stderr
            assert "a chunk's signature does not verify" in res.stdout
        # Over HTTP/2 the stream is ended while the client still sends (the answer
        # may not reach it first); the line says why all the same.
        line = proxy.wait_for_log(lambda l: l.get("path") == f"/bucket/{key}")[0]
        assert line["refusedBy"] == "aws-signature-not-placeholder"
        assert line.get("http") == ("2" if version == "--http2" else None)
        assert f"/bucket/{key}" not in objects
    assert_origin_saw_no_placeholder(origin)


def test_presigned_url_made_in_the_sandbox_is_fetched_with_curl(proxy, origin):
    client = boto3_client(proxy, origin)
    client.put_object(Bucket="bucket", Key="shared.txt", Body=b"presigned content\n")
    url = client.generate_presigned_url("get_object", Params={"Bucket": "bucket",
                                                              "Key": "shared.txt"}, ExpiresIn=600)
    assert PLACEHOLDER_KEY_ID in url
    res = curl(proxy, url)
    assert status_of(res) == 200, res.stdout + res.stderr
    assert body_of(res) == "presigned content\n"
    at = url.index("X-Amz-Signature=") + len("X-Amz-Signature=")
    forged = url[:at] + ("1" if url[at] == "0" else "0") + url[at + 1:]
    res = curl(proxy, forged)
    assert status_of(res) == 403
    line = proxy.wait_for_log(lambda l: l.get("status") == 403)[0]
    assert line["refusedBy"] == "aws-signature-not-placeholder"
    # Signature Version 2 (botocore's default for presigned S3 URLs before 1.36)
    # is not signed again: refused, saying so, not sent with the placeholder.
    v2 = boto3_client(proxy, origin, signature_version="s3").generate_presigned_url(
        "get_object", Params={"Bucket": "bucket", "Key": "shared.txt"}, ExpiresIn=600)
    assert "AWSAccessKeyId=" + PLACEHOLDER_KEY_ID in v2
    res = curl(proxy, v2)
    assert status_of(res) == 403
    line = proxy.wait_for_log(lambda l: l.get("refusedBy") == "aws-signature-unsupported")[0]
    assert line["secrets"] == [NAME]
    assert_origin_saw_no_placeholder(origin)


def test_a_key_of_the_sandboxs_own_is_refused(proxy, origin):
    client = boto3_client(proxy, origin, key_id="AKIA" + "Z" * 16, secret="mine" * 10)
    with pytest.raises(botocore.exceptions.ClientError) as refused:
        client.put_object(Bucket="bucket", Key="own", Body=b"exfiltrated")
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    line = proxy.wait_for_log(lambda l: l.get("path") == "/bucket/own")[0]
    assert line["outcome"] == "refused"
    assert line["refusedBy"] == "aws-signature-not-placeholder"
    assert line["secrets"] == [NAME]
    assert origin.requests == []


def test_another_region_is_refused(proxy, origin):
    client = boto3_client(proxy, origin, region="eu-west-1")
    with pytest.raises(botocore.exceptions.ClientError):
        client.put_object(Bucket="bucket", Key="elsewhere", Body=b"x")
    line = proxy.wait_for_log(lambda l: l.get("path") == "/bucket/elsewhere")[0]
    assert line["refusedBy"] == "aws-scope-not-allowed"
    assert origin.requests == []


def test_a_body_signed_by_its_hash_is_read_and_signed_again(proxy, origin):
    # STS signs its form body by its hash, without X-Amz-Content-SHA256 (as
    # Bedrock's InvokeModel does its JSON): the proxy reads the body to sign again.
    client = boto3.client(
        "sts", region_name=REGION, endpoint_url=f"https://{STS}:{origin.port}",
        aws_access_key_id=PLACEHOLDER_KEY_ID, aws_secret_access_key=PLACEHOLDER_SECRET,
        verify=proxy.ca_path,
        config=botocore.config.Config(proxies={"https": proxy.url}, retries={"max_attempts": 1}))
    assert client.get_caller_identity()["Account"] == "123456789012"
    (request,) = origin.requests
    assert b"Action=GetCallerIdentity" in request["body"]
    assert f"Credential={REAL_KEY_ID}/" in dict(request["headers"])["Authorization"]
    line = proxy.wait_for_log(lambda l: l.get("host") == STS)[0]
    assert line["outcome"] == "allowed" and line["secrets"] == [NAME]


def test_the_real_key_id_echoed_in_an_answer_is_masked(proxy, origin):
    answer = boto3_client(proxy, origin).get_object(Bucket="bucket", Key="echo")
    echoed = answer["ResponseMetadata"]["HTTPHeaders"]["x-echo"]
    assert f"Credential={PLACEHOLDER_KEY_ID}/" in echoed
    assert REAL_KEY_ID not in echoed
    (request,) = origin.requests
    assert f"Credential={REAL_KEY_ID}/" in dict(request["headers"])["Authorization"]


def test_session_token_replaced_in_headers_and_presigned_urls(tmp_path, ca, origin):
    origin.server.expected_token = REAL_TOKEN
    with start_proxy(str(tmp_path / "proxy"), ca, session_token=True) as proxy:
        client = boto3_client(proxy, origin, token=PLACEHOLDER_TOKEN)
        client.put_object(Bucket="bucket", Key="with-token", Body=b"token body")
        assert client.get_object(Bucket="bucket", Key="with-token")["Body"].read() == b"token body"
        url = client.generate_presigned_url("get_object", Params={"Bucket": "bucket",
                                                                  "Key": "with-token"})
        assert "X-Amz-Security-Token=" in url
        res = curl(proxy, url)
        assert status_of(res) == 200, res.stdout + res.stderr
        assert body_of(res) == "token body"
        # A token of the sandbox's own, with the placeholder key: refused.
        mine = boto3_client(proxy, origin, token="a-token-of-its-own")
        with pytest.raises(botocore.exceptions.ClientError):
            mine.get_object(Bucket="bucket", Key="with-token")
        line = proxy.wait_for_log(lambda l: l.get("outcome") == "refused")[0]
        assert line["refusedBy"] == "aws-signature-not-placeholder"
        for raw in origin.received:
            assert PLACEHOLDER_TOKEN.encode() not in raw
            assert b"a-token-of-its-own" not in raw
        assert_no_real_value(proxy)


def test_streaming_upload_to_an_http2_origin(tmp_path, ca):
    # nginx speaks HTTP/2 to the proxy (the upstream leg that may stream a body
    # beside its answer): a re-signed streaming body goes whole, and a chunk
    # that fails its check is still a refusal with its reason.
    directory = tempfile.mkdtemp(prefix="osf-aws-nginx-")
    try:
        with Nginx(ca, [S3], directory, http2=True,
                   locations='location / { return 200 "stored\\n"; }') as nginx, \
                start_proxy(str(tmp_path / "proxy"), ca) as proxy:
            body, args = streamed_upload(nginx.port, "h2", os.urandom(300_000),
                                         tmp_path / "h2.body")
            res = curl(proxy, f"https://{S3}:{nginx.port}/bucket/h2", "--http2", *args)
            assert status_of(res) == 200, res.stdout + res.stderr
            assert [r["protocol"] for r in nginx.requests_for(lambda r: r["uri"] == "/bucket/h2")] \
                == ["HTTP/2.0"]
            body, args = streamed_upload(nginx.port, "h2-tampered", os.urandom(300_000),
                                         tmp_path / "h2.body")
            tampered = bytearray(body)
            tampered[body.index(b"\r\n") + 10] ^= 1
            (tmp_path / "h2.body").write_bytes(bytes(tampered))
            # HTTP/2 from the client, so that the proxy speaks HTTP/2 to nginx too.
            curl(proxy, f"https://{S3}:{nginx.port}/bucket/h2-tampered", "--http2", *args)
            line = proxy.wait_for_log(lambda l: l.get("path") == "/bucket/h2-tampered")[0]
            assert line["refusedBy"] == "aws-signature-not-placeholder"
    finally:
        shutil.rmtree(directory, ignore_errors=True)

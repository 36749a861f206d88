"""Decoding the Kubernetes protobuf encoding of request bodies into the JSON form the fake stores.

kubectl's typed clients (kubectl create configmap, secret, namespace, job, ...) send
`Content-Type: application/vnd.kubernetes.protobuf`: the magic "k8s\\0", then a runtime.Unknown message whose
typeMeta names the apiVersion and kind and whose raw bytes are the object's message. The field numbers and
types come from protobuf_schema.py (generated from kubectl's own descriptors). The fake decodes the kinds listed
there; any other kind is a 415, as a server without that encoding would answer. Responses are always JSON,
which every client accepts.

JSON mapping as the real server's: meta.v1.Time/MicroTime as RFC 3339, Quantity as its string, IntOrString as
int or string, bytes as base64, maps as objects; empty strings, zero times and zero or false scalars are
dropped (Go's omitempty), except the optional integers where 0 means something (_POINTERS_TO_ZERO).
"""
import base64
import json
import struct
import time

from fake_kube import apierrors
from fake_kube.protobuf_schema import MESSAGES

MAGIC = b"k8s\x00"
MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
_GROUP_PACKAGES = {"": "core", "batch": "batch", "scheduling.k8s.io": "scheduling"}
_parsed = {}


def wire_fields(buf):
    """(field number, wire type, value) of each field of a protobuf message, in order."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, i = _varint(buf, i)
        elif wire_type == 2:
            length, i = _varint(buf, i)
            value, i = bytes(buf[i:i + length]), i + length
        elif wire_type == 1:
            value, i = bytes(buf[i:i + 8]), i + 8
        elif wire_type == 5:
            value, i = bytes(buf[i:i + 4]), i + 4
        else:
            raise ValueError(f"unsupported wire type {wire_type}")
        yield number, wire_type, value


def _varint(buf, i):
    shift = result = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        byte = buf[i]
        i += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, i
        shift += 7


def _schema(name):
    """{number: (field name, type text, repeated)} of a message in protobuf_schema.MESSAGES."""
    if name not in _parsed:
        fields = {}
        for part in MESSAGES[name].split(";"):
            number, field, kind = part.split()
            fields[int(number)] = (field, kind.removeprefix("[]"), kind.startswith("[]"))
        _parsed[name] = fields
    return _parsed[name]


def _scalar(kind, wire_type, value):
    if kind == "string":
        return value.decode()
    if kind == "bytes":
        return base64.b64encode(value).decode()
    if kind == "bool":
        return bool(value)
    if kind in ("int64", "int32"):
        return value - (1 << 64) if value >= 1 << 63 else value
    if kind in ("uint64", "uint32"):
        return value
    if kind == "double":
        return struct.unpack("<d", value)[0]
    if kind == "float":
        return struct.unpack("<f", value)[0]
    raise ValueError(f"unsupported scalar type {kind}")


def _packed(kind, value):
    """The elements of a packed repeated scalar field."""
    out, i = [], 0
    while i < len(value):
        if kind in ("double",):
            out.append(struct.unpack("<d", value[i:i + 8])[0])
            i += 8
        elif kind in ("float",):
            out.append(struct.unpack("<f", value[i:i + 4])[0])
            i += 4
        else:
            v, i = _varint(value, i)
            out.append(_scalar(kind, 0, v))
    return out


def _special(name, buf):
    """The JSON form of the messages that are not plain objects in JSON; None for the others."""
    fields = {n: v for n, _, v in wire_fields(buf)}
    if name in ("meta.v1.Time", "meta.v1.MicroTime"):
        seconds = _scalar("int64", 0, fields.get(1, 0))
        nanos = fields.get(2, 0)
        if seconds == 0 and nanos == 0:
            return _DROP
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        return text + (f".{nanos // 1000:06d}Z" if name == "meta.v1.MicroTime" else "Z")
    if name == "resource.Quantity":
        return fields.get(1, b"").decode()
    if name == "util.intstr.IntOrString":
        if fields.get(1, 0) == 0:
            return _scalar("int32", 0, fields.get(2, 0))
        return fields.get(3, b"").decode()
    if name in ("runtime.RawExtension", "meta.v1.FieldsV1"):
        raw = fields.get(1, b"")
        return json.loads(raw) if raw else _DROP
    if name == "meta.v1.Duration":
        return f"{_scalar('int64', 0, fields.get(1, 0)) / 1e9}s"
    return None


_DROP = object()


def decode_message(name, buf):
    """The JSON-shaped dict of a message of type `name` (a protobuf_schema key)."""
    special = _special(name, buf)
    if special is not None:
        return special
    schema = _schema(name)
    result = {}
    for number, wire_type, value in wire_fields(buf):
        if number not in schema:
            continue  # a field newer than the schema: ignored, as an older server would
        field, kind, repeated = schema[number]
        decoded = _decode_field(kind, wire_type, value)
        if kind.startswith("map<"):
            key, item = decoded
            result.setdefault(field, {})[key] = item
        elif repeated:
            if wire_type == 2 and kind in _NUMERIC:
                result.setdefault(field, []).extend(_packed(kind, value))
            elif decoded is not _DROP:
                result.setdefault(field, []).append(decoded)
        elif decoded is _DROP or (decoded in ("", 0, False) and field not in _POINTERS_TO_ZERO
                                  and not isinstance(decoded, dict)):
            continue  # Go marshals empty non-pointer fields that JSON would omit
        else:
            result[field] = decoded
    return result


# Optional integer fields where an explicit 0 means something (Go pointers); other zero and false scalars are
# Go's non-pointer defaults, which the real server's JSON omits.
_POINTERS_TO_ZERO = {"backoffLimit", "terminationGracePeriodSeconds", "deletionGracePeriodSeconds", "parallelism",
                     "completions", "activeDeadlineSeconds", "ttlSecondsAfterFinished", "priority",
                     "gracePeriodSeconds", "value", "replicas", "defaultMode", "mode"}


_NUMERIC = {"int32", "int64", "uint32", "uint64", "bool", "double", "float"}


def _decode_field(kind, wire_type, value):
    if kind.startswith("map<"):
        key_kind, value_kind = kind[4:-1].split(",", 1)
        entry = {n: (w, v) for n, w, v in wire_fields(value)}
        key = _decode_field(key_kind, *entry[1]) if 1 in entry else ""
        item = _decode_field(value_kind, *entry[2]) if 2 in entry else ""
        if item is _DROP:
            item = None
        return key, item
    if kind in MESSAGES:
        return decode_message(kind, value)
    if kind in ("string", "bytes") or kind in _NUMERIC:
        return _scalar(kind, wire_type, value)
    raise ValueError(f"no schema for {kind}")


def decode_object(body, rt=None):
    """The JSON-shaped object of a protobuf request body; raises ApiError (415 for a kind the fake cannot
    decode, 400 for a malformed body)."""
    if not body.startswith(MAGIC):
        raise apierrors.bad_request("protobuf body without the k8s\\0 prefix")
    try:
        unknown = {n: v for n, _, v in wire_fields(body[len(MAGIC):])}
        type_meta = {n: v.decode() for n, _, v in wire_fields(unknown.get(1, b""))}
        api_version, kind = type_meta.get(1, ""), type_meta.get(2, "")
        group, _, version = api_version.rpartition("/")
        name = f"{_GROUP_PACKAGES.get(group, group)}.{version}.{kind}"
        if name not in MESSAGES:
            raise apierrors.ApiError(415, "UnsupportedMediaType",
                                     f"the fake API server cannot decode {kind} ({api_version}) from protobuf; "
                                     f"send application/json")
        obj = decode_message(name, unknown.get(2, b""))
    except (ValueError, KeyError, UnicodeDecodeError) as e:
        raise apierrors.bad_request(f"malformed protobuf body: {e}")
    obj["apiVersion"], obj["kind"] = api_version, kind
    return obj

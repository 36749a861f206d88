"""A container's environment, command line and files, built the way the kubelet builds them.

Env: `env` entries in order (value, valueFrom.configMapKeyRef / secretKeyRef / fieldRef / resourceFieldRef),
`envFrom` (configMapRef / secretRef, with prefix), and `$(VAR)` references to variables defined before, with
`$$` as an escaped `$`, as in the real kubelet. A missing ConfigMap, Secret or key that is not optional is a
ConfigError: the container waits with reason CreateContainerConfigError and the kubelet's message.

Volumes: configMap and secret volumes become files and emptyDir volumes directories under the pod's scratch
directory at each volumeMount's mountPath (the same place a workingDir maps to), so a container finds its
mounted files at <scratch>/<mountPath>; $FAKE_KUBE_POD_ROOT names the scratch directory.
"""
import base64
import math
import os
import pathlib
import re

from fake_kube import quantity

_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_FIELD = re.compile(r"^metadata\.(labels|annotations)\['(.*)'\]$")


class ConfigError(Exception):
    """A container cannot be started because a ConfigMap, Secret or key it needs is missing."""


def expand(text, variables):
    """Expands $(NAME) from `variables`, leaves unknown references as they are, turns $$ into $."""
    def replace(match):
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return variables[name] if name in variables else match.group(0)
    return _REFERENCE.sub(replace, text)


def field_ref(pod, path):
    """The value of a downward-API fieldRef; unknown paths read as empty, as validation would reject them."""
    meta, spec, status = pod["metadata"], pod.get("spec") or {}, pod.get("status") or {}
    match = _FIELD.match(path)
    if match:
        return (meta.get(match.group(1)) or {}).get(match.group(2), "")
    simple = {"metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
              "metadata.uid": meta.get("uid"), "spec.nodeName": spec.get("nodeName"),
              "spec.serviceAccountName": spec.get("serviceAccountName"), "status.hostIP": status.get("hostIP"),
              "status.podIP": status.get("podIP"), "status.hostIPs": status.get("hostIP"),
              "status.podIPs": status.get("podIP")}
    return str(simple.get(path) or "")


def _resource_ref(container, ref, node_allocatable):
    name = ref.get("resource", "")
    kind, _, resource = name.partition(".")
    resources = container.get("resources") or {}
    value = (resources.get(kind) or {}).get(resource)
    if value is None:
        value = (resources.get("limits") or {}).get(resource) or node_allocatable.get(resource, "0")
    amount = quantity.parse_quantity(value) / quantity.parse_quantity(ref.get("divisor") or "1")
    return str(math.ceil(amount))


def _lookup_key(lookup, kind, namespace, ref, decode):
    """The value of key ref["key"] in the ConfigMap/Secret ref["name"]; None when optional and missing."""
    obj = lookup(kind, namespace, ref.get("name", ""))
    label = "configmap" if kind == "configmaps" else "secret"
    title = "ConfigMap" if kind == "configmaps" else "Secret"
    if obj is None:
        if ref.get("optional"):
            return None
        raise ConfigError(f'{label} "{ref.get("name", "")}" not found')
    data = _data(obj, decode)
    if ref.get("key") not in data:
        if ref.get("optional"):
            return None
        raise ConfigError(f"couldn't find key {ref.get('key')} in {title} {namespace}/{ref.get('name')}")
    return data[ref["key"]]


def _data(obj, decode):
    """A ConfigMap's data (and binaryData) or a Secret's decoded data, as text."""
    result = dict(obj.get("data") or {})
    if decode:
        return {k: base64.b64decode(v).decode(errors="replace") for k, v in result.items()}
    for k, v in (obj.get("binaryData") or {}).items():
        result[k] = base64.b64decode(v).decode(errors="replace")
    return result


def container_env(pod, container, lookup, node_allocatable):
    """The variables the container declares, in order, as a dict; raises ConfigError.

    lookup(plural, namespace, name) returns the ConfigMap/Secret or None.
    """
    namespace = pod["metadata"].get("namespace", "default")
    variables = {}
    for source in container.get("envFrom") or []:
        prefix = source.get("prefix", "")
        for kind, key, decode in (("configmaps", "configMapRef", False), ("secrets", "secretRef", True)):
            ref = source.get(key)
            if ref is None:
                continue
            obj = lookup(kind, namespace, ref.get("name", ""))
            if obj is None:
                if ref.get("optional"):
                    continue
                raise ConfigError(f'{"configmap" if kind == "configmaps" else "secret"} "{ref.get("name")}" '
                                  f'not found')
            for k, v in _data(obj, decode).items():
                variables[prefix + k] = v
    for entry in container.get("env") or []:
        name, value_from = entry.get("name"), entry.get("valueFrom")
        if value_from is None:
            variables[name] = expand(str(entry.get("value", "")), variables)
        elif "configMapKeyRef" in value_from:
            value = _lookup_key(lookup, "configmaps", namespace, value_from["configMapKeyRef"], False)
            if value is not None:
                variables[name] = value
        elif "secretKeyRef" in value_from:
            value = _lookup_key(lookup, "secrets", namespace, value_from["secretKeyRef"], True)
            if value is not None:
                variables[name] = value
        elif "fieldRef" in value_from:
            variables[name] = field_ref(pod, value_from["fieldRef"].get("fieldPath", ""))
        elif "resourceFieldRef" in value_from:
            variables[name] = _resource_ref(container, value_from["resourceFieldRef"], node_allocatable)
    return variables


def command_line(container, variables):
    """The argv to run: command + args with $(VAR) expanded; args alone when there is no command (the image's
    entrypoint is unknown to the fake). None when the container has neither."""
    argv = list(container.get("command") or []) + list(container.get("args") or [])
    return [expand(str(a), variables) for a in argv] or None


def host_path(scratch, container_path):
    """Where a path inside the container lives on this machine: under the pod's scratch directory."""
    return pathlib.Path(scratch) / str(container_path).lstrip("/")


def materialize_volumes(pod, container, scratch, lookup):
    """Writes the container's configMap/secret volumes and creates its emptyDir volumes under `scratch`.

    A missing ConfigMap or Secret that is not optional raises ConfigError, as the kubelet's mount would fail.
    """
    namespace = pod["metadata"].get("namespace", "default")
    volumes = {v.get("name"): v for v in (pod.get("spec") or {}).get("volumes") or []}
    for mount in container.get("volumeMounts") or []:
        volume = volumes.get(mount.get("name"))
        if volume is None:
            continue
        target = host_path(scratch, mount.get("mountPath", ""))
        for kind, key, decode, name_key in (("configmaps", "configMap", False, "name"),
                                            ("secrets", "secret", True, "secretName")):
            source = volume.get(key)
            if source is None:
                continue
            obj = lookup(kind, namespace, source.get(name_key, ""))
            if obj is None:
                if source.get("optional"):
                    break
                raise ConfigError(f'{"configmap" if kind == "configmaps" else "secret"} '
                                  f'"{source.get(name_key)}" not found')
            _write_files(target, mount, source, _data(obj, decode))
            break
        else:
            target.mkdir(parents=True, exist_ok=True)


def _write_files(target, mount, source, data):
    items = source.get("items")
    files = {i["key"]: (i.get("path") or i["key"], i.get("mode")) for i in items} if items else \
        {k: (k, None) for k in data}
    if mount.get("subPath"):
        path, _ = files.get(mount["subPath"], (mount["subPath"], None))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(data.get(mount["subPath"], ""))
        return
    target.mkdir(parents=True, exist_ok=True)
    for key, (path, mode) in files.items():
        if key not in data:
            continue
        file = target / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(data[key])
        os.chmod(file, mode if mode is not None else source.get("defaultMode", 0o644))

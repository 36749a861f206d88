"""Label selectors, field selectors and node affinity, with the real server's syntax and semantics.

Label selector text: requirements joined by commas (AND): `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
`k notin (a,b)`, `k`, `!k`, `k>5`, `k<5`. As in the real server, `k!=v` and `k notin (...)` match objects that
lack the label. Field selectors: `path=v`, `path==v`, `path!=v` on the fields the resource type supports.
"""
import re

from fake_kube import apierrors

_KEY = re.compile(r"^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$")


def _split_top_level(text):
    """Splits on commas outside parentheses: "a in (x,y),b" -> ["a in (x,y)", "b"]."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts]


class LabelSelector:
    """A parsed label selector: a list of (key, operator, values) requirements, all of which must hold."""

    def __init__(self, requirements):
        self.requirements = requirements

    @classmethod
    def parse(cls, text):
        """Parses selector text; raises ApiError 400 with the real server's wording on bad syntax."""
        requirements = []
        if not text or not text.strip():
            return cls(requirements)
        for part in _split_top_level(text):
            requirements.append(_parse_requirement(part, text))
        return cls(requirements)

    @classmethod
    def from_dict(cls, selector):
        """A metav1.LabelSelector object ({matchLabels, matchExpressions}) as a LabelSelector."""
        requirements = [(k, "=", [v]) for k, v in (selector.get("matchLabels") or {}).items()]
        for expr in selector.get("matchExpressions") or []:
            op = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}[expr["operator"]]
            requirements.append((expr["key"], op, list(expr.get("values") or [])))
        return cls(requirements)

    def matches(self, labels):
        labels = labels or {}
        return all(_requirement_holds(req, labels) for req in self.requirements)


def _parse_requirement(part, whole):
    def fail(why):
        raise apierrors.bad_request(f"unable to parse requirement: {why}")

    if not part:
        fail(f"found '', expected: identifier in selector {whole!r}")
    if part.startswith("!"):
        key = part[1:].strip()
        _check_key(key, fail)
        return key, "!", []
    match = re.match(r"^(\S+?)\s+(in|notin)\s*\((.*)\)$", part)
    if match:
        key, op, values = match.group(1), match.group(2), [v.strip() for v in match.group(3).split(",")]
        _check_key(key, fail)
        return key, op, values
    match = re.match(r"^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(\S*)$", part)
    if match:
        key, op, value = match.groups()
        _check_key(key, fail)
        if op in ("<", ">"):
            try:
                int(value)
            except ValueError:
                fail(f"for 'Gt', 'Lt' operators, the value must be an integer: {value!r}")
        return key, "=" if op == "==" else op, [value]
    if re.match(r"^[^=!<>\s()]+$", part):
        _check_key(part, fail)
        return part, "exists", []
    fail(f"found unexpected text in {part!r}")


def _check_key(key, fail):
    if not _KEY.match(key) or len(key.split("/")[-1]) > 63:
        fail(f"key: Invalid value: {key!r}: name part must consist of alphanumeric characters, '-', '_' or '.', "
             f"and must start and end with an alphanumeric character")


def _requirement_holds(requirement, labels):
    key, op, values = requirement
    present = key in labels
    value = labels.get(key)
    if op == "=":
        return present and value == values[0]
    if op == "!=":
        return not present or value != values[0]
    if op == "in":
        return present and value in values
    if op == "notin":
        return not present or value not in values
    if op == "exists":
        return present
    if op == "!":
        return not present
    try:
        number = int(value)
    except (TypeError, ValueError):
        return False
    return number > int(values[0]) if op == ">" else number < int(values[0])


def parse_bool(value):
    """A boolean query parameter as Go's strconv.ParseBool reads it (python3-kubernetes sends "True")."""
    return value in ("1", "t", "T", "true", "TRUE", "True")


def field_value(obj, path):
    """The string a field selector compares for `path` ("status.phase", "spec.unschedulable", "source")."""
    if path == "source":
        return (obj.get("source") or {}).get("component", "")
    if path == "status.successful":
        return str((obj.get("status") or {}).get("succeeded", 0))
    value = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return "false" if path == "spec.unschedulable" else ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class FieldSelector:
    """A parsed field selector: (path, operator, value) requirements, all of which must hold."""

    def __init__(self, requirements):
        self.requirements = requirements

    @classmethod
    def parse(cls, text, rt):
        requirements = []
        for part in (text or "").split(","):
            part = part.strip()
            if not part:
                continue
            match = re.match(r"^([^=!]+?)\s*(==|=|!=)\s*(.*)$", part)
            if not match:
                raise apierrors.bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
            path, op, value = match.groups()
            if path not in rt.field_selectors:
                raise apierrors.bad_request(f'field label not supported: {path}')
            requirements.append((path, "!=" if op == "!=" else "=", value))
        return cls(requirements)

    def matches(self, obj):
        for path, op, value in self.requirements:
            actual = field_value(obj, path)
            if (actual == value) != (op == "="):
                return False
        return True

    def name(self):
        """The metadata.name this selector pins, if any (for a watch on one object)."""
        for path, op, value in self.requirements:
            if path == "metadata.name" and op == "=":
                return value
        return None


def _node_term_holds(term, node):
    labels = node["metadata"].get("labels") or {}
    for expr in term.get("matchExpressions") or []:
        if not _node_expression_holds(expr, labels.get(expr["key"]), expr["key"] in labels):
            return False
    for expr in term.get("matchFields") or []:
        name = node["metadata"]["name"] if expr["key"] == "metadata.name" else None
        if not _node_expression_holds(expr, name, name is not None):
            return False
    return bool(term.get("matchExpressions") or term.get("matchFields"))


def _node_expression_holds(expr, value, present):
    op, values = expr["operator"], expr.get("values") or []
    if op == "In":
        return present and value in values
    if op == "NotIn":
        return not present or value not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt"):
        try:
            number, bound = int(value), int(values[0])
        except (TypeError, ValueError, IndexError):
            return False
        return number > bound if op == "Gt" else number < bound
    return False


def node_matches_pod(node, pod):
    """Whether the node satisfies the pod's nodeSelector and required node affinity (terms ORed, expressions
    ANDed), as the scheduler's NodeAffinity filter decides."""
    labels = node["metadata"].get("labels") or {}
    spec = pod.get("spec") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if required:
        terms = required.get("nodeSelectorTerms") or []
        if not any(_node_term_holds(term, node) for term in terms):
            return False
    return True

#!/bin/bash
# Checks the golden objects (testdata/*.golden.json: one v1 List per case, what BuildJobObjects must
# make) with the real Kubernetes clients, offline: there is no API server.
#
#  1. `kubectl create --dry-run=client --validate=false -o json -f FILE`: kubectl knows every kind
#     and reads every object. kubectl maps a kind to its resource through the server's discovery
#     documents, so this script writes them into a discovery cache (--cache-dir) for a server that
#     does not exist (--server http://127.0.0.1:1); a fresh cache is read instead of the server.
#     (`kubectl apply --dry-run=client` cannot work offline: it reads the live object first.)
#  2. `kubectl set env --local -o json -f JOB KUBECTL_ROUND_TRIP=1` for each Job: kubectl decodes
#     the Job into its typed batch/v1 object (a wrong type fails, e.g. a string parallelism) and
#     encodes it back. Every field of the golden must come back: a field that does not is unknown
#     to Kubernetes (a misspelling, a field at the wrong level).
#  3. The same round trip through the typed models of python3's kubernetes client, for every object
#     (the ConfigMap and the PriorityClass too); skipped when python3 cannot import kubernetes.
#
# Usage: check_with_kubectl.sh [FILE.golden.json ...]   (default: every golden beside this script)
# Environment: KUBECTL (default kubectl; 1.32 tested), PYTHON (default python3).
# Exit status 0 when every file passes; each failure is printed with its file.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kubectl=${KUBECTL:-kubectl}
python=${PYTHON:-python3}
if [ $# -eq 0 ]; then set -- "$here"/*.golden.json; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Nothing of the caller's kubectl configuration (a real cluster) may take part.
export HOME="$work" KUBECONFIG="$work/kubeconfig"
: >"$KUBECONFIG"
server=http://127.0.0.1:1
kube() { "$kubectl" --server="$server" --cache-dir="$work/cache" "$@"; }

# The discovery documents of the three kinds, as an API server would serve them.
disco="$work/cache/discovery/127.0.0.1_1"
mkdir -p "$disco/v1" "$disco/batch/v1" "$disco/scheduling.k8s.io/v1"
group() {  # name version
  local gv=$2
  [ -n "$1" ] && gv="$1/$2"
  printf '{"name":"%s","versions":[{"groupVersion":"%s","version":"%s"}],"preferredVersion":{"groupVersion":"%s","version":"%s"}}' \
    "$1" "$gv" "$2" "$gv" "$2"
}
resources() {  # groupVersion name singular kind namespaced
  printf '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"%s","resources":[{"name":"%s","singularName":"%s","namespaced":%s,"kind":"%s","verbs":["create","delete","get","list","patch","update","watch"]}]}' \
    "$1" "$2" "$3" "$5" "$4"
}
printf '{"kind":"APIGroupList","apiVersion":"v1","groups":[%s,%s,%s]}' \
  "$(group "" v1)" "$(group batch v1)" "$(group scheduling.k8s.io v1)" >"$disco/servergroups.json"
resources v1 configmaps configmap ConfigMap true >"$disco/v1/serverresources.json"
resources batch/v1 jobs job Job true >"$disco/batch/v1/serverresources.json"
resources scheduling.k8s.io/v1 priorityclasses priorityclass PriorityClass false \
  >"$disco/scheduling.k8s.io/v1/serverresources.json"

cat >"$work/check.py" <<'EOF'
"""Helpers: split a List into files, and check that a round trip kept every field."""
import json
import sys


def missing(given, back, path="$"):
    """Paths of `given` that `back` lacks or changed (extra fields in `back` are fine)."""
    if isinstance(given, dict):
        if not isinstance(back, dict):
            return [path]
        out = []
        for key, value in given.items():
            if key not in back:
                out.append(f"{path}.{key}")
            else:
                out += missing(value, back[key], f"{path}.{key}")
        return out
    if isinstance(given, list):
        if not isinstance(back, list) or len(back) != len(given):
            return [path]
        return [p for i, v in enumerate(given) for p in missing(v, back[i], f"{path}[{i}]")]
    return [] if given == back else [f"{path} ({given!r} came back as {back!r})"]


def strip_marker(job):
    for key in ("containers", "initContainers"):
        for c in job["spec"]["template"]["spec"].get(key, []):
            c["env"] = [e for e in c.get("env", []) if e.get("name") != "KUBECTL_ROUND_TRIP"]
    return job


def main():
    cmd = sys.argv[1]
    if cmd == "split":  # LIST DIR: one file per item, named <index>-<kind>.json
        items = json.load(open(sys.argv[2]))["items"]
        for i, item in enumerate(items):
            json.dump(item, open(f"{sys.argv[3]}/{i}-{item['kind']}.json", "w"))
    elif cmd == "count":  # FILE: the number of objects kubectl printed (one JSON document each)
        text, decoder, at, count = open(sys.argv[2]).read(), json.JSONDecoder(), 0, 0
        while text[at:].strip():
            obj, end = decoder.raw_decode(text[at:].lstrip())
            at = len(text) - len(text[at:].lstrip()) + end
            count += len(obj["items"]) if obj.get("kind") == "List" else 1
        print(count)
    elif cmd == "kept":  # GIVEN BACK: every field of GIVEN in BACK (a Job through set env)
        lost = missing(json.load(open(sys.argv[2])), strip_marker(json.load(open(sys.argv[3]))))
        for p in lost:
            print(f"  field lost or changed in the round trip: {p}")
        sys.exit(1 if lost else 0)
    elif cmd == "python-client":  # FILE: the round trip through python3-kubernetes' models
        try:
            from kubernetes.client import ApiClient
        except ImportError:
            sys.exit(3)
        client = ApiClient()
        obj = json.load(open(sys.argv[2]))
        model = {"Job": "V1Job", "ConfigMap": "V1ConfigMap", "PriorityClass": "V1PriorityClass"}
        if obj.get("kind") not in model:
            print(f"  not a kind this generator makes: {obj.get('kind')!r}")
            sys.exit(1)
        back = client.sanitize_for_serialization(
            client._ApiClient__deserialize(obj, model[obj["kind"]]))
        lost = missing(obj, back)
        for p in lost:
            print(f"  field lost or changed in python3-kubernetes' models: {p}")
        sys.exit(1 if lost else 0)


main()
EOF

failed=0
python_client=yes
for file in "$@"; do
  name=$(basename "$file")
  problems=()
  if ! kube create --dry-run=client --validate=false -o json -f "$file" >"$work/created.json" \
    2>"$work/err"; then
    problems+=("kubectl create --dry-run=client: $(cat "$work/err")")
  else
    given=$("$python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["items"]))' "$file")
    printed=$("$python" "$work/check.py" count "$work/created.json")
    [ "$given" = "$printed" ] || problems+=("kubectl printed $printed objects of $given")
  fi
  items="$work/items-$name"
  mkdir -p "$items"
  "$python" "$work/check.py" split "$file" "$items"
  for item in "$items"/*.json; do
    case "$item" in
      *-Job.json)
        if ! kube set env --local -o json -f "$item" KUBECTL_ROUND_TRIP=1 >"$work/back.json" \
          2>"$work/err"; then
          problems+=("kubectl set env --local $(basename "$item"): $(cat "$work/err")")
        elif ! out=$("$python" "$work/check.py" kept "$item" "$work/back.json"); then
          problems+=("kubectl's typed Job, $(basename "$item"):"$'\n'"$out")
        fi
        ;;
    esac
    if [ $python_client = yes ]; then
      status=0
      out=$("$python" "$work/check.py" python-client "$item") || status=$?
      if [ $status -eq 3 ]; then
        python_client=no
        echo "note: $python cannot import kubernetes (python3-kubernetes): step 3 skipped"
      elif [ $status -ne 0 ]; then
        problems+=("$(basename "$item"):"$'\n'"$out")
      fi
    fi
  done
  if [ ${#problems[@]} -eq 0 ]; then
    echo "ok   $name"
  else
    failed=1
    echo "FAIL $name"
    printf '  %s\n' "${problems[@]}"
  fi
done
exit $failed

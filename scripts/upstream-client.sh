#!/usr/bin/env bash
# Prints the folder of Determined 0.38.1's own client (its det, SDK and bindings), the test client of the
# e2e_upstream_* suites: $DET_UPSTREAM_CLIENT when set, else ../shared/upstream-client beside the
# repository; a folder with site/determined (as that one) or a site-packages folder with determined/.
# Exits 1, printing nothing, where it holds no client (a user's fresh clone). tests/e2e/upstream.py
# looks in the same place.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${DET_UPSTREAM_CLIENT:-$repo/../shared/upstream-client}
for site in "$dir/site" "$dir"; do
  if [ -f "$site/determined/common/api/bindings.py" ]; then
    (cd "$dir" && pwd)
    exit 0
  fi
done
exit 1

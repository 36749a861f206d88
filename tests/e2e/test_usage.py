"""Usage history (issue 46): commands with known slots run on a real cluster; the raw endpoint's seconds are
exactly the time each allocation held its slots as the master's own task API reports it (clipped to the
window asked for), and the daily and monthly aggregates are exactly the slot-seconds of the raw entries.
Both replies decode with upstream's 0.38.1 bindings."""
import datetime
import re

import pytest
import requests

import upstream
from conftest import local_cluster, stepper, wait_for

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DAILY = "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY"
MONTHLY = "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY"
# The store keeps microseconds; the wire's seconds are floats made from them.
RESOLUTION = 1e-6


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with local_cluster(tmp_path_factory.mktemp("usage-cluster"), agents=1, slots=2) as c:
        yield c


def parse(ts):
    """An RFC 3339 UTC timestamp with microseconds, as the master writes them."""
    return datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)


def fmt(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def micros(delta):
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def run_command(cluster, slots, seconds):
    """Runs `sleep SECONDS` on SLOTS slots to its end; returns its one allocation as the task API reports it."""
    out = cluster.det("cmd", "run", "-d", "--config", f"resources.slots={slots}", "sleep", str(seconds)).stdout.strip()
    assert UUID.fullmatch(out), out
    wait_for(lambda: cluster.get(f"/api/v1/commands/{out}")["command"]["state"] == "STATE_TERMINATED",
             f"command {out} to end", timeout=120)
    allocations = cluster.get(f"/api/v1/tasks/{out}")["task"]["allocations"]
    assert len(allocations) == 1 and allocations[0]["endTime"], allocations
    return allocations[0]


@pytest.fixture(scope="module")
def ran(cluster):
    """Two commands, one after the other: 2 slots for 2 s, then 1 slot for 3 s."""
    return [(2, run_command(cluster, 2, 2)), (1, run_command(cluster, 1, 3))]


def raw(cluster, after, before):
    reply = cluster.get("/api/v1/resources/allocation/raw", params={"timestampAfter": after, "timestampBefore": before})
    upstream.check_reply("v1ResourceAllocationRawResponse", reply, "GET /api/v1/resources/allocation/raw")
    return reply["resourceEntries"]


def aggregated(cluster, start, end, period):
    reply = cluster.get("/api/v1/resources/allocation/aggregated",
                        params={"startDate": start, "endDate": end, "period": period})
    upstream.check_reply("v1ResourceAllocationAggregatedResponse", reply, "GET /api/v1/resources/allocation/aggregated")
    return reply["resourceEntries"]


def test_raw_seconds_are_the_allocation_times_the_master_reports(cluster, ran):
    entries = {e["allocationId"]: e for e in raw(cluster, "2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z")}
    for slots, alloc in ran:
        e = entries[alloc["allocationId"]]
        held = micros(parse(alloc["endTime"]) - parse(alloc["startTime"]))
        assert (e["startTime"], e["endTime"]) == (alloc["startTime"], alloc["endTime"])
        assert e["slots"] == slots and e["kind"] == "COMMAND" and e["username"] == "determined", e
        assert abs(e["seconds"] - held / 1e6) <= RESOLUTION, (e, held)
        assert e["resourcePool"] == "default" and e["workspace"] == "Uncategorized", e
        assert held >= (2 if slots == 2 else 3) * 1_000_000, "it slept that long at least"


def test_raw_seconds_are_clipped_to_the_window(cluster, ran):
    slots, alloc = ran[1]
    start, end = parse(alloc["startTime"]), parse(alloc["endTime"])
    after = start + datetime.timedelta(seconds=1, microseconds=250)
    entries = {e["allocationId"]: e for e in raw(cluster, fmt(after), fmt(end + datetime.timedelta(hours=1)))}
    assert abs(entries[alloc["allocationId"]]["seconds"] - micros(end - after) / 1e6) <= RESOLUTION
    # A window that ends where the allocation starts holds none of it.
    entries = raw(cluster, fmt(start - datetime.timedelta(hours=1)), fmt(start))
    assert alloc["allocationId"] not in [e["allocationId"] for e in entries]


def test_aggregates_are_the_slot_seconds_of_the_raw_entries(cluster, ran):
    first = parse(ran[0][1]["startTime"]).date()
    last = parse(ran[-1][1]["endTime"]).date()  # the same day unless the run crossed midnight UTC
    window = raw(cluster, f"{first}T00:00:00Z", f"{last + datetime.timedelta(days=1)}T00:00:00Z")
    assert {e["allocationId"] for e in window} == {a["allocationId"] for _, a in ran}
    slot_seconds = sum(e["slots"] * e["seconds"] for e in window)
    assert abs(slot_seconds - sum(s * micros(parse(a["endTime"]) - parse(a["startTime"])) / 1e6
                                  for s, a in ran)) <= 2 * RESOLUTION
    days = aggregated(cluster, str(first), str(last), DAILY)
    assert [d["periodStart"] for d in days] == [str(first + datetime.timedelta(days=i))
                                                for i in range((last - first).days + 1)]
    assert all(d["period"] == DAILY for d in days)
    assert abs(sum(d["seconds"] for d in days) - slot_seconds) <= 2 * RESOLUTION
    assert abs(sum(d["byUsername"].get("determined", 0) for d in days) - slot_seconds) <= 2 * RESOLUTION
    assert abs(sum(d["byResourcePool"].get("default", 0) for d in days) - slot_seconds) <= 2 * RESOLUTION
    assert all(d["byExperimentLabel"] == {} for d in days), "commands have no labels"
    months = aggregated(cluster, str(first), str(last), MONTHLY)
    assert months[0]["periodStart"] == str(first.replace(day=1))
    assert abs(sum(m["seconds"] for m in months) - slot_seconds) <= 2 * RESOLUTION
    # The day before holds nothing of it, and is still listed.
    before = first - datetime.timedelta(days=1)
    assert aggregated(cluster, str(before), str(before), DAILY) == [
        {"periodStart": str(before), "period": DAILY, "seconds": 0.0, "byUsername": {}, "byExperimentLabel": {},
         "byResourcePool": {}, "byWorkspace": {}, "byTaskType": {}}]


def test_a_trial_counts_for_its_experiments_labels_and_workspace(cluster, tmp_path):
    (tmp_path / "stepper.py").write_text(stepper(3))
    (tmp_path / "exp.yaml").write_text(
        "name: usage-trial\nentrypoint: python3 stepper.py\nsearcher: {name: single, metric: loss}\n"
        "labels: [usage-a, usage-b]\nmax_restarts: 0\n")
    exp_id = cluster.create_experiment(tmp_path / "exp.yaml", tmp_path)
    assert cluster.wait_for_experiment(exp_id) == "STATE_COMPLETED"
    task_id = cluster.trials(exp_id)[0]["taskId"]
    alloc = cluster.get(f"/api/v1/tasks/{task_id}")["task"]["allocations"][-1]
    start, end = parse(alloc["startTime"]), parse(alloc["endTime"])
    e = {e["allocationId"]: e for e in raw(cluster, fmt(start), fmt(end))}[alloc["allocationId"]]
    assert (e["kind"], e["experimentId"], sorted(e["labels"]), e["slots"]) == ("TRIAL", exp_id, ["usage-a", "usage-b"], 1)
    assert abs(e["seconds"] - micros(end - start) / 1e6) <= RESOLUTION
    days = aggregated(cluster, str(start.date()), str(end.date()), DAILY)
    for label in ("usage-a", "usage-b"):
        assert abs(sum(d["byExperimentLabel"].get(label, 0) for d in days) - e["seconds"]) <= 2 * RESOLUTION
    assert sum(d["byTaskType"].get("TRIAL", 0) for d in days) > 0
    assert all(set(d["byExperimentLabel"]) <= {"usage-a", "usage-b"} for d in days)


@pytest.mark.parametrize("params,field", [
    ({"startDate": "2024-13-01", "endDate": "2024-01-02", "period": DAILY}, "startDate"),
    ({"startDate": "2024-01-01", "endDate": "yesterday", "period": DAILY}, "endDate"),
    ({"startDate": "2024-01-03", "endDate": "2024-01-02", "period": DAILY}, "endDate"),
    ({"startDate": "2024-01-01", "endDate": "2024-01-02", "period": "WEEKLY"}, "period"),
    ({"startDate": "2024-01-01", "endDate": "2024-01-02"}, "period"),
])
def test_bad_aggregated_input_is_400_naming_the_field(cluster, params, field):
    resp = cluster.session.get(f"{cluster.master_url}/api/v1/resources/allocation/aggregated", params=params,
                               timeout=30)
    assert resp.status_code == 400, resp.text
    assert field in resp.text, resp.text


@pytest.mark.parametrize("params,field", [
    ({"timestampAfter": "2024-01-01", "timestampBefore": "2024-01-02T00:00:00Z"}, "timestampAfter"),
    ({"timestampAfter": "2024-01-01T00:00:00Z"}, "timestampBefore"),
    ({"timestampAfter": "2024-01-02T00:00:00Z", "timestampBefore": "2024-01-01T00:00:00Z"}, "timestampBefore"),
])
def test_bad_raw_input_is_400_naming_the_field(cluster, params, field):
    resp = cluster.session.get(f"{cluster.master_url}/api/v1/resources/allocation/raw", params=params, timeout=30)
    assert resp.status_code == 400, resp.text
    assert field in resp.text, resp.text


def test_usage_needs_a_login(cluster):
    resp = requests.get(f"{cluster.master_url}/api/v1/resources/allocation/raw",
                        params={"timestampAfter": "2024-01-01T00:00:00Z", "timestampBefore": "2024-01-02T00:00:00Z"},
                        timeout=30)
    assert resp.status_code == 401, resp.text

"""`gpukit size`'s arithmetic: exact against brute force on small seeded mixes, and the issue's targets."""

import math
import random
from collections import Counter
from itertools import combinations, product

import pytest

from gpukit.components.catalog.gpus import gpu_model
from gpukit.components.catalog.mig import layout_fits
from gpukit.components.errors import ConfigError
from gpukit.components.sizing.bounds import lower_bound
from gpukit.components.sizing.mig_plan import gpus_for, mig, smallest_profile
from gpukit.components.sizing.modes import Mode
from gpukit.components.sizing.replicas import MAX_CLIENTS_PER_GPU, Item, mps, time_slicing
from gpukit.components.sizing.sizing import replicas_of, size
from gpukit.components.sizing.snippet import sharing_setting, stack_snippet
from gpukit.components.sizing.target import Target
from gpukit.components.sizing.workloads import Isolation, Workload, parse_workloads

H100 = Target(gpu_model("H100"), "p5.4xlarge", 1, 6.88)
L4 = Target(gpu_model("L4"), "g6.xlarge", 1, 0.8048)


def _random_items(rng: random.Random, count: int, memory: float, kinds: int | None = None) -> list[Item]:
    """`count` replicas of up to `kinds` distinct workloads (memory scaled to an 80 GB GPU)."""
    shapes = [
        (
            rng.choice([1, 2, 3, 5, 6, 8, 10, 12, 20, 30]) * memory / 80,
            rng.choice([0.05, 0.1, 0.2, 0.25, 0.3, 0.5]),
        )
        for _ in range(kinds or count)
    ]
    return [Item(f"w{i}", *rng.choice(shapes)) for i in range(count)]


# --- brute force: every setting a pool could have, checked the slow way -----------------------------


def _brute_time_slicing(items: list[Item], memory: float) -> int | None:
    """Fewest GPUs over every replicas count R for which EVERY R-subset fits one GPU."""
    best = None
    for r in range(1, min(len(items), MAX_CLIENTS_PER_GPU) + 1):
        safe = all(
            sum(i.memory_gb for i in group) <= memory + 1e-9 and sum(i.compute for i in group) <= 1 + 1e-9
            for group in combinations(items, r)
        )
        if safe:
            best = math.ceil(len(items) / r)
    return best


def _brute_mps(items: list[Item], memory: float) -> int | None:
    best = None
    for r in range(1, MAX_CLIENTS_PER_GPU + 1):
        if all(i.memory_gb <= memory / r + 1e-9 and i.compute <= 1 / r + 1e-9 for i in items):
            best = math.ceil(len(items) / r) if best is None else min(best, math.ceil(len(items) / r))
    return best


def _brute_mig(workloads: list[Workload], model: str) -> int:
    """Fewest GPUs over EVERY valid layout (not only the maximal ones) and EVERY choice, per workload, of
    a profile that covers one of its replicas (all replicas of a workload request one resource)."""
    geometry = gpu_model(model).mig
    assert geometry is not None
    covering = {
        w.name: [
            p.name
            for p in geometry.profiles
            if p.memory_gb >= w.gpu_memory_gb
            and p.compute_slices >= math.ceil(w.compute_share * geometry.compute_slices - 1e-9)
        ]
        for w in workloads
    }
    best = math.inf
    for counts in product(*(range(p.max_per_gpu + 1) for p in geometry.profiles)):
        layout = {p.name: c for p, c in zip(geometry.profiles, counts, strict=True) if c}
        if not layout or not layout_fits(geometry, layout):
            continue
        choices = [[p for p in covering[w.name] if p in layout] for w in workloads]
        for chosen in product(*choices):
            needed: Counter[str] = Counter()
            for w, profile in zip(workloads, chosen, strict=True):
                needed[profile] += w.replicas
            best = min(best, max(-(-n // layout[p]) for p, n in needed.items()))
    assert best < math.inf  # the whole-GPU profile covers every replica that fits the GPU
    return int(best)


def _random_workloads(rng: random.Random, memory: float) -> list[Workload]:
    return [
        Workload(
            f"w{k}",
            rng.choice([1, 2, 3, 5, 6, 8, 10, 12, 20, 30, 35, 40]) * memory / 80,
            rng.choice([0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6]),
            rng.randint(1, 9),
        )
        for k in range(rng.randint(1, 4))
    ]


@pytest.mark.parametrize("seed", range(40))
def test_time_slicing_is_exact(seed):
    rng = random.Random(seed)
    items = _random_items(rng, rng.randint(1, 9), 80)
    plan = time_slicing(items, 80)
    expected = _brute_time_slicing(items, 80)
    assert (plan.gpus if plan else None) == expected
    if plan:  # the chosen replicas count is itself safe and needs no more GPUs
        assert math.ceil(len(items) / plan.replicas_per_gpu) == plan.gpus
        worst = sorted(items, key=lambda i: -i.memory_gb)[: plan.replicas_per_gpu]
        assert sum(i.memory_gb for i in worst) <= 80 + 1e-9


@pytest.mark.parametrize("seed", range(40))
def test_mps_is_exact(seed):
    rng = random.Random(seed)
    items = _random_items(rng, rng.randint(1, 30), 80)
    plan = mps(items, 80)
    assert (plan.gpus if plan else None) == _brute_mps(items, 80)
    if plan:
        assert all(i.memory_gb <= 80 / plan.replicas_per_gpu + 1e-9 for i in items)


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("model", ["H100", "A100-40GB", "RTX-PRO-6000"])
def test_mig_is_exact(seed, model):
    rng = random.Random(seed)
    workloads = _random_workloads(rng, gpu_model(model).memory_gb)
    planned = mig(replicas_of(workloads), gpu_model(model).mig)  # type: ignore[arg-type]
    assert not isinstance(planned, str)
    assert planned.gpus == _brute_mig(workloads, model)
    geometry = gpu_model(model).mig
    assert layout_fits(geometry, planned.layout)  # type: ignore[arg-type]
    needed: Counter[str] = Counter()
    for w in workloads:  # each workload's profile is in the layout and covers its replicas
        profile = geometry.profile(planned.profiles[w.name])  # type: ignore[union-attr]
        assert profile.name in planned.layout and profile.memory_gb >= w.gpu_memory_gb
        needed[profile.name] += w.replicas
    assert gpus_for(planned.layout, needed) == planned.gpus


def test_mig_moves_a_workload_to_a_bigger_profile_when_that_saves_gpus():
    """Four 3g.40gb replicas and one that would fit 1g.10gb: with the small one on a 3g.40gb as well,
    {3g.40gb: 2} holds all five on 3 H100s; a layout that keeps a 1g.10gb has room for one 3g.40gb per
    GPU and needs 4."""
    workloads = [Workload("big", 35, 0.4, 4), Workload("small", 5, 0.1, 1)]
    planned = mig(replicas_of(workloads), gpu_model("H100").mig)  # type: ignore[arg-type]
    assert not isinstance(planned, str)
    assert (planned.gpus, planned.layout) == (3, {"3g.40gb": 2})
    assert planned.profiles == {"big": "3g.40gb", "small": "3g.40gb"}


def test_smallest_profile_covers_memory_and_compute():
    geometry = gpu_model("H100").mig
    assert geometry is not None
    assert smallest_profile(geometry, Item("a", 6, 0.1)).name == "1g.10gb"  # type: ignore[union-attr]
    assert smallest_profile(geometry, Item("a", 15, 0.1)).name == "1g.20gb"  # type: ignore[union-attr]
    assert smallest_profile(geometry, Item("a", 15, 0.2)).name == "2g.20gb"  # type: ignore[union-attr]
    assert smallest_profile(geometry, Item("a", 8, 3 / 7)).name == "3g.40gb"  # type: ignore[union-attr]
    assert smallest_profile(geometry, Item("a", 8, 0.5)).name == "4g.40gb"  # type: ignore[union-attr]
    assert smallest_profile(geometry, Item("a", 81, 0.1)) is None


# --- the targets on concrete mixes ------------------------------------------------------


def _option(result, mode):  # type: ignore[no-untyped-def]
    return next(o for o in result.options if o.mode is mode)


def test_ten_7b_inference_replicas_share_one_h100():
    result = size([Workload("chat-7b", 6, 0.1, 10)], [H100])
    whole, sliced = _option(result, Mode.WHOLE_GPU), _option(result, Mode.TIME_SLICING)
    assert whole.gpus == 10
    assert sliced.gpus == 1 and sliced.replicas_per_gpu == 10
    assert whole.gpus / sliced.gpus >= 3
    assert _option(result, Mode.MPS).gpus == 1
    assert _option(result, Mode.MIG).mig_layout == {"1g.10gb": 7}
    assert _option(result, Mode.MIG).gpus == 2
    assert result.lower_bounds["H100"] == 1
    assert result.recommended().mode is Mode.MPS  # same $/h as time-slicing, and memory-limited


@pytest.mark.parametrize(
    "workloads",
    [
        [Workload("chat-7b", 6, 0.1, 10)],
        [Workload("embed", 4, 0.05, 16), Workload("chat-7b", 8, 0.1, 4)],  # 96 GB, compute 1.2
        [Workload("rerank", 10, 0.125, 24)],  # 240 GB, compute 3: 3 GPUs at best
    ],
)
def test_small_model_mixes_are_within_5_percent_of_the_bound_and_3x_below_whole_gpus(workloads):
    result = size(workloads, [H100])
    best = min((o for o in result.options if o.mode is not Mode.WHOLE_GPU), key=lambda o: o.gpus)
    bound = result.lower_bounds["H100"]
    assert best.gpus <= max(math.ceil(bound), bound * 1.05)
    assert _option(result, Mode.WHOLE_GPU).gpus >= 3 * best.gpus


def test_lower_bound_is_memory_or_compute():
    items = replicas_of([Workload("a", 40, 0.1, 4)])
    assert lower_bound(items, 80) == 2  # memory
    items = replicas_of([Workload("a", 4, 0.5, 4)])
    assert lower_bound(items, 80) == 2  # compute


def test_time_slicing_never_oversubscribes_compute():
    plan = time_slicing(replicas_of([Workload("a", 1, 0.3, 10)]), 80)
    assert plan is not None and plan.replicas_per_gpu == 3  # 4 x 0.3 > 1
    assert plan.gpus == 4


def test_mps_and_time_slicing_stop_at_48_clients():
    items = replicas_of([Workload("tiny", 0.5, 0.01, 100)])
    assert time_slicing(items, 80).replicas_per_gpu <= 48  # type: ignore[union-attr]
    assert mps(items, 80).gpus == 3  # type: ignore[union-attr]


def test_isolation_decides_the_modes():
    hardware = size([Workload("a", 6, 0.1, 3, Isolation.HARDWARE)], [H100])
    assert {o.mode for o in hardware.options} == {Mode.WHOLE_GPU, Mode.MIG}
    memory = size([Workload("a", 6, 0.1, 3, Isolation.MEMORY), Workload("b", 6, 0.1, 1)], [H100])
    assert {o.mode for o in memory.options} == {Mode.WHOLE_GPU, Mode.MPS, Mode.MIG}
    assert any("a needs more isolation than time-slicing" in s.reason for s in memory.skipped)


@pytest.mark.parametrize(
    ("workloads", "reason"),
    [
        ([Workload("solo", 6, 0.1, 1)], "a single replica has no other to share a GPU with"),
        ([Workload("half", 50, 0.2, 3)], "no 2 replicas fit one H100 together"),
    ],
)
def test_time_slicing_and_mps_are_offered_only_where_2_or_more_replicas_share_a_gpu(workloads, reason):
    """`replicas: 1` shares nothing, and `gpukit plan` refuses it (2 to 48): no option may say it."""
    result = size(workloads, [H100])
    assert {o.mode for o in result.options} <= {Mode.WHOLE_GPU, Mode.MIG}
    skipped = {s.mode: s.reason for s in result.skipped}
    assert reason in skipped[Mode.TIME_SLICING] and reason in skipped[Mode.MPS]


def test_a_replica_larger_than_the_gpu_skips_the_model():
    result = size([Workload("llm-70b", 140, 1, 1)], [L4, H100])
    assert result.options == []
    assert {s.target.gpu.name for s in result.skipped} == {"L4", "H100"}
    assert result.recommended() is None


def test_profiles_no_one_layout_holds_share_the_bigger_profile():
    """7g.80gb and 1g.10gb never share a GPU, but the small replica fits a 7g.80gb too: MIG then
    needs as many GPUs as whole GPUs, and whole GPUs win the tie (no MIG to reconfigure)."""
    result = size([Workload("big", 70, 1, 1), Workload("small", 5, 0.1, 1)], [H100])
    planned = _option(result, Mode.MIG)
    assert (planned.gpus, planned.mig_layout) == (2, {"7g.80gb": 1})
    assert result.recommended().mode is Mode.WHOLE_GPU


def test_recommendation_is_the_cheapest_known_price():
    unpriced = Target(gpu_model("H200"), "p5e.48xlarge", 8, None, "no list price")
    result = size([Workload("chat-7b", 6, 0.1, 10)], [unpriced, H100, L4])
    best = result.recommended()
    assert best is not None and best.per_hour is not None
    assert best.per_hour == min(o.per_hour for o in result.options if o.per_hour is not None)
    assert result.whole_gpu()["L4"].gpus == 10


def test_nodes_and_price_follow_gpus_per_node():
    eight = Target(gpu_model("H100"), "p5.48xlarge", 8, 55.04)
    option = _option(size([Workload("a", 6, 1, 9)], [eight]), Mode.WHOLE_GPU)
    assert (option.gpus, option.nodes, option.per_hour) == (9, 2, 110.08)


def test_snippet_shapes():
    result = size([Workload("a", 6, 0.1, 10)], [H100])
    assert sharing_setting(_option(result, Mode.MIG)) == {
        "mode": "mig",
        "mig": {"strategy": "single", "profile": "1g.10gb"},
    }
    assert sharing_setting(_option(result, Mode.MPS)) == {"mode": "mps", "replicas": 10}
    assert sharing_setting(_option(result, Mode.WHOLE_GPU)) == {"mode": "none"}
    mixed = size([Workload("a", 6, 0.1, 2), Workload("b", 30, 0.4, 1)], [H100])
    assert sharing_setting(_option(mixed, Mode.MIG))["mig"]["strategy"] == "mixed"
    text = stack_snippet(_option(result, Mode.MPS))
    assert text.startswith("# merge into the pool in your stack, then run `gpukit plan`")
    assert "maxNodes: 1" in text


# --- the workloads file ---------------------------------------------------------------------------


def test_workloads_parse_with_defaults():
    (w,) = parse_workloads({"workloads": [{"name": "a", "gpuMemoryGb": 6}]})
    assert w == Workload("a", 6.0, 1.0, 1, Isolation.NONE)
    assert parse_workloads([{"name": "a", "gpuMemoryGb": 6}]) == [w]


def test_every_problem_is_reported_with_its_key():
    with pytest.raises(ConfigError) as raised:
        parse_workloads(
            {
                "workloads": [
                    {"name": "a", "gpuMemoryGb": 0, "computeShare": 1.5, "replicas": 0, "isolation": "full"},
                    {"name": "a", "gpuMemoryGB": 6, "replicas": True},
                    "b",
                ]
            }
        )
    keys = [p.key for p in raised.value.problems]
    assert keys == [
        "workloads[0].gpuMemoryGb",
        "workloads[0].computeShare",
        "workloads[0].replicas",
        "workloads[0].isolation",
        "workloads[1].gpuMemoryGB",
        "workloads[1].name",
        "workloads[1].gpuMemoryGb",
        "workloads[1].replicas",
        "workloads[2]",
    ]
    assert "did you mean gpuMemoryGb" in str(raised.value)
    assert "none, memory, hardware; got 'full'" in str(raised.value)


@pytest.mark.parametrize("doc", [None, {}, {"workloads": []}, {"workloads": {"name": "a"}}, {"jobs": []}])
def test_empty_or_misshapen_files_are_refused(doc):
    with pytest.raises(ConfigError):
        parse_workloads(doc)

"""What the README and docs/ show is what gpukit does: every stack file they show plans (with the exit
status they say), the quickstart's abridged plan is lines of the real plan in order, its GPU pod
tolerates the taints those plans name, and the own-program example is the tested file verbatim.

Markers (an HTML comment on the line before a fenced block):
- `<!-- stack: NAME -->` names a stack file (saved as `Pulumi.NAME.yaml`); `<!-- stack: NAME, exit 1 -->`
  for one the doc shows failing. A ```yaml block with a top-level `config:` key is a stack file and is
  planned whether named or not, unless it is marked `<!-- fragment -->`.
- `<!-- pod -->`: the quickstart's GPU pod.
- `<!-- file: PATH -->`: a copy of a file in this repository, which must match it.
A plan's output is shown in a block that starts with `$ gpukit plan --stack NAME`; `...` stands for
lines left out.
"""

import contextlib
import io
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from gpukit.cli import EXIT_OK, main
from harness import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"(?m)^```(\w*)\n(.*?)^```\n", re.S)
STACK_MARKER = re.compile(r"<!-- stack: ([a-z0-9-]+)(?:, exit (\d))? -->")
ELIDED = "..."


@dataclass(frozen=True)
class Block:
    doc: str  # path relative to the repository
    line: int
    lang: str
    text: str
    marker: str  # the line before the fence ("" when it is not an HTML comment)

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks(path: Path) -> list[Block]:
    text = path.read_text()
    out = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        out.append(
            Block(
                doc=str(path.relative_to(ROOT)),
                line=text.count("\n", 0, match.start()) + 1,
                lang=match.group(1),
                text=match.group(2),
                marker=before if before.startswith("<!--") else "",
            )
        )
    return out


ALL_BLOCKS = [b for path in DOCS for b in blocks(path)]


def is_stack_file(block: Block) -> bool:
    return block.lang in ("yaml", "yml") and re.search(r"(?m)^config:[ \t]*$", block.text) is not None


STACK_BLOCKS = [b for b in ALL_BLOCKS if is_stack_file(b) and b.marker != "<!-- fragment -->"]


def stack_name(block: Block) -> str:
    marked = STACK_MARKER.fullmatch(block.marker)
    if marked:
        return marked.group(1)
    return re.sub(r"[^a-z0-9]+", "-", f"{block.doc}-{block.line}".lower()).strip("-")


def expected_exit(block: Block) -> int:
    marked = STACK_MARKER.fullmatch(block.marker)
    return int(marked.group(2)) if marked and marked.group(2) else EXIT_OK


@cache
def planned(name: str, text: str, folder: Path) -> tuple[int, str]:
    """`gpukit plan --config stacks/Pulumi.<name>.yaml` in this project: exit status and stdout."""
    path = folder / name / "stacks" / f"Pulumi.{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["plan", "--project", str(ROOT), "--config", str(path)])
    return code, out.getvalue() + err.getvalue() if code != EXIT_OK else out.getvalue()


@pytest.fixture(scope="module")
def plan_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("doc-stacks")


def doc_stack(name: str) -> Block:
    (block,) = [b for b in STACK_BLOCKS if stack_name(b) == name]
    return block


def test_the_readme_shows_a_stack_file_per_kind_of_cluster() -> None:
    readme = [b for b in STACK_BLOCKS if b.doc == "README.md"]
    kinds = {
        (c["gpukit:cluster"]["platform"], c["gpukit:cluster"].get("provider"))
        for c in (yaml.safe_load(b.text)["config"] for b in readme)
    }
    assert {("eks", None), ("gke", None), ("k3s", "ssh")} <= kinds


def test_stack_names_are_unique() -> None:
    names = [stack_name(b) for b in STACK_BLOCKS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("block", STACK_BLOCKS, ids=lambda b: b.where)
def test_every_stack_file_the_docs_show_plans(block: Block, plan_folder: Path) -> None:
    code, output = planned(stack_name(block), block.text, plan_folder)
    assert code == expected_exit(block), (
        f"{block.where} should plan with exit {expected_exit(block)}:\n{output}"
    )


def test_a_broken_stack_file_fails_its_plan(plan_folder: Path) -> None:
    # The check above can fail: a stack file the docs got wrong does not plan.
    broken = doc_stack("gpu-eks").text.replace("instanceType: g6.xlarge", "instanceType: g6.huge")
    code, output = planned("broken-doc-stack", broken, plan_folder)
    assert code != EXIT_OK
    assert "gpukit:nodePools[1].instanceType" in output


PLAN_OUTPUTS = [b for b in ALL_BLOCKS if b.text.startswith("$ gpukit plan --stack ")]


def test_the_quickstart_shows_a_plan() -> None:
    assert [b.doc for b in PLAN_OUTPUTS].count("README.md") >= 1


def abridged_lines_missing(shown: list[str], real: list[str]) -> list[str]:
    """The shown lines (`...` aside) that are not lines of `real` in that order."""
    missing, at = [], 0
    for line in shown:
        if line == ELIDED:
            continue
        try:
            at = real.index(line, at) + 1
        except ValueError:
            missing.append(line)
    return missing


def test_abridging_keeps_order() -> None:
    real = ["a", "b", "c"]
    assert abridged_lines_missing(["a", ELIDED, "c"], real) == []
    assert abridged_lines_missing(["c", "a"], real) == ["a"]
    assert abridged_lines_missing(["b "], real) == ["b "]


@pytest.mark.parametrize("block", PLAN_OUTPUTS, ids=lambda b: b.where)
def test_a_plan_the_docs_show_is_the_real_plan_abridged(block: Block, plan_folder: Path) -> None:
    command, *shown = block.text.rstrip("\n").split("\n")
    name = command.removeprefix("$ gpukit plan --stack ")
    code, output = planned(name, doc_stack(name).text, plan_folder)
    assert code == EXIT_OK
    real = output.rstrip("\n").split("\n")
    assert shown[0] == real[0], "an abridged plan starts where the plan starts"
    assert abridged_lines_missing(shown, real) == []


POD_BLOCKS = [b for b in ALL_BLOCKS if b.marker == "<!-- pod -->"]
TAINT = re.compile(r"GPU nodes are tainted ([^=\s]+)=([^:\s]+):(\w+);")


def test_the_quickstart_gpu_pod_runs_on_every_quickstart_stack(plan_folder: Path) -> None:
    (block,) = POD_BLOCKS
    pod = yaml.safe_load(block.text)
    kubernetes_validate.validate(pod, "1.35.0", strict=True)
    spec = pod["spec"]
    (container,) = spec["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] >= 1
    readme_stacks = [b for b in STACK_BLOCKS if b.doc == "README.md"]
    taints = set()
    for stack in readme_stacks:
        _, output = planned(stack_name(stack), stack.text, plan_folder)
        taints |= set(TAINT.findall(output))
    assert {value for _, value, _ in taints} == {"true", "present"}  # EKS and k3s; GKE
    for key, value, effect in taints:
        assert any(
            t["key"] == key
            and t.get("effect") == effect
            and (t.get("operator") == "Exists" or t.get("value") == value)
            for t in spec["tolerations"]
        ), f"the pod does not tolerate {key}={value}:{effect}"
    pool = spec["nodeSelector"]["gpukit.dev/pool"]
    gpu_pools = {p["name"] for p in yaml.safe_load(doc_stack("gpu-eks").text)["config"]["gpukit:nodePools"]}
    assert pool in gpu_pools


COPIES = [b for b in ALL_BLOCKS if b.marker.startswith("<!-- file: ")]


def test_the_readme_shows_the_tested_own_program_example() -> None:
    assert "<!-- file: examples/infra-repo/__main__.py -->" in [
        b.marker for b in COPIES if b.doc == "README.md"
    ]


@pytest.mark.parametrize("block", COPIES, ids=lambda b: b.where)
def test_a_file_the_docs_show_is_that_file_verbatim(block: Block) -> None:
    path = block.marker.removeprefix("<!-- file: ").removesuffix(" -->")
    assert block.text == (ROOT / path).read_text()

"""Planning one's own Pulumi program that uses gpukit (gpukit.plan.plan_program, gpukit plan --program),
and what an install without a cloud's extra says."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pulumi
import pulumi_random as random
import pytest

from gpukit.cli import EXIT_INVALID, EXIT_OK, EXIT_PREFLIGHT, main
from gpukit.components import ConfigError, GpuCluster
from gpukit.plan import plan_program
from harness import ROOT

EXAMPLE = ROOT / "examples" / "infra-repo"
ARGS = {
    "cluster": {
        "name": "own",
        "platform": "gke",
        "project": "acme-ml-dev",
        "region": "us-central1",
        "kubernetes_version": "1.35",
        "network": {"cidr": "10.60.0.0/16"},
        "api_access_cidrs": [],
    },
    "node_pools": [
        {"name": "system", "instance_type": "e2-standard-4", "min_nodes": 1, "max_nodes": 2},
        {"name": "l4", "instance_type": "g2-standard-8", "min_nodes": 0, "max_nodes": 2},
    ],
}


def test_plan_program_plans_gpukit_and_the_programs_own_resources() -> None:
    def program() -> None:
        GpuCluster("own", ARGS)  # type: ignore[arg-type]
        suffix = random.RandomString("suffix", length=6, special=False)
        pulumi.export("suffix", suffix.result)

    plan = plan_program(program, {"gcp:project": "acme-ml-dev"}, stack="ci")
    types = {r.type for r in plan.resources}
    assert {"gcp:container/cluster:Cluster", "random:index/randomString:RandomString"} <= types
    (cluster,) = plan.clusters
    assert cluster.cluster.substrate.name == "gke"
    assert [p.pool.name for p in cluster.costs.pools] == ["system", "l4"]
    assert plan.errors == []


def test_plan_program_raises_the_components_config_error() -> None:
    broken = {**ARGS, "cluster": {**ARGS["cluster"], "release_channel": "fast"}}
    with pytest.raises(
        ConfigError, match=r"gpukit:cluster.releaseChannel: must be one of rapid, regular, stable"
    ):
        plan_program(lambda: GpuCluster("own", broken))  # type: ignore[arg-type]


def test_a_program_cluster_with_a_preflight_error_exits_1(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    shutil.copytree(EXAMPLE, project)
    main_py = project / "__main__.py"
    main_py.write_text(
        main_py.read_text().replace('"g6.xlarge"', '"g7e.2xlarge"')
    )  # needs R595, EKS has R580
    assert main(["plan", "--program", str(project), "--stack", "dev"]) == EXIT_PREFLIGHT


def test_program_needs_a_stack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--program", str(EXAMPLE)]) == EXIT_INVALID
    assert "--program needs --stack NAME or --config FILE" in capsys.readouterr().err


def test_the_example_infra_repo_plans_offline_next_to_its_own_components_package(tmp_path: Path) -> None:
    """A copy of examples/infra-repo, far from gpukit's repository: its own `components` package and
    gpukit's (gpukit.components) must both import, in a fresh interpreter, as under `pulumi up`."""
    project = tmp_path / "ml-platform"
    shutil.copytree(EXAMPLE, project)
    assert (project / "components" / "__init__.py").is_file()
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "gpukit.cli", "plan", "--program", ".", "--stack", "dev", "--out", str(out)],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == EXIT_OK, result.stderr
    assert "gpukit plan: program ml-platform, stack dev" in result.stdout
    assert "GpuCluster vision-gpu (eks, us-west-2, Kubernetes 1.35):" in result.stdout
    document = json.loads((out / "plan.json").read_text())
    types = {r["type"] for r in document["resources"]}
    assert {"aws:s3/bucket:Bucket", "kubernetes:core/v1:Namespace", "aws:eks/cluster:Cluster"} <= types
    assert [c["name"] for c in document["clusters"]] == ["vision-gpu"]
    assert (out / "manifests" / "namespace-vision.yaml").is_file()


def test_a_missing_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    """Without pulumi-gcp (gpukit installed without [gcp]), a GKE stack says which extra to install."""
    probe = (
        "import sys\n"
        "sys.modules['pulumi_gcp'] = None  # as if gpukit[gcp] was not installed\n"
        "from gpukit.cli import main\n"
        f"sys.exit(main(['plan', '--project', {str(ROOT)!r}, '--stack', 'gke-dev']))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.returncode == EXIT_INVALID
    assert result.stderr.strip().splitlines() == [
        "gpukit: platform gke needs pulumi-gcp, which is not installed: pip install 'gpukit[gcp]'"
    ]
    assert "Traceback" not in result.stderr


def _copy_example(tmp_path: Path) -> Path:
    project = tmp_path / "ml-platform"
    shutil.copytree(EXAMPLE, project)
    return project


def test_a_stack_of_another_project_points_at_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _copy_example(tmp_path)
    assert main(["plan", "--project", str(project), "--stack", "dev"]) == EXIT_INVALID
    assert (
        "is the Pulumi project 'ml-platform', not gpukit's; to plan your own program: gpukit plan --program"
        in (capsys.readouterr().err)
    )


def test_a_programs_missing_config_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _copy_example(tmp_path)
    (project / "Pulumi.bare.yaml").write_text("config:\n  aws:region: us-west-2\n")
    assert main(["plan", "--program", str(project), "--stack", "bare"]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "Missing required configuration variable 'ml-platform:team'" in err
    assert "Traceback" not in err


def test_a_project_config_block_that_is_not_a_mapping_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _copy_example(tmp_path)
    (project / "Pulumi.yaml").write_text("name: ml-platform\nruntime: python\nconfig: [team, tier]\n")
    assert main(["plan", "--program", str(project), "--stack", "dev"]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert (
        err
        == f"gpukit: {project / 'Pulumi.yaml'}: `config:` must be a mapping of keys to their declarations\n"
    )


def test_a_crashing_program_shows_its_traceback_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _copy_example(tmp_path)
    (project / "__main__.py").write_text("raise ValueError('a bug in the program')\n")
    assert main(["plan", "--program", str(project), "--stack", "dev"]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "Traceback" in err and "ValueError: a bug in the program" in err
    assert err.strip().endswith("see the traceback above")


def test_the_program_runs_from_pulumi_yamls_main_folder(tmp_path: Path) -> None:
    """`main: src`: the program's own modules import from its folder, as under the Pulumi CLI."""
    project = _copy_example(tmp_path)
    (project / "src").mkdir()
    for name in ("__main__.py", "components"):
        shutil.move(project / name, project / "src" / name)
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text() + "main: src\n")
    assert main(["plan", "--program", str(project), "--stack", "dev"]) == EXIT_OK


def test_json_is_stable_between_runs(capsys: pytest.CaptureFixture[str]) -> None:
    documents = []
    for _ in range(2):
        assert main(["plan", "--program", str(EXAMPLE), "--stack", "dev", "--json"]) == EXIT_OK
        documents.append(capsys.readouterr().out)
    assert documents[0] == documents[1]

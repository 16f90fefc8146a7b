"""The config contract is written once (components/config/schema.py): Pulumi.yaml's `config:` block and
the configuration reference (docs/configuration.md) are generated from it by `make docs`, and must not
drift."""

from gpukit.components.config.schema import TOP_LEVEL_FIELDS
from gpukit.docs import (
    REFERENCE_DOC,
    REFERENCE_END,
    REFERENCE_START,
    config_reference,
    main,
    pulumi_yaml,
    reference_doc,
)
from harness import ROOT


def test_pulumi_yaml_is_generated_from_the_schema() -> None:
    assert (ROOT / "Pulumi.yaml").read_text() == pulumi_yaml(), "Pulumi.yaml is out of date: run `make docs`"


def test_the_reference_doc_is_generated_from_the_schema() -> None:
    text = (ROOT / REFERENCE_DOC).read_text()
    assert REFERENCE_START in text and REFERENCE_END in text
    assert reference_doc(text) == text, f"{REFERENCE_DOC} is out of date: run `make docs`"


def test_docs_check_fails_on_a_stale_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "Pulumi.yaml").write_text(pulumi_yaml())
    (tmp_path / "docs").mkdir()
    (tmp_path / REFERENCE_DOC).write_text(f"# x\n{REFERENCE_START}\nstale\n{REFERENCE_END}\n")
    assert main(["--check", "--project", str(tmp_path)]) == 1
    assert main(["--project", str(tmp_path)]) == 0  # rewrites it
    assert main(["--check", "--project", str(tmp_path)]) == 0


def test_the_reference_names_every_live_key_and_its_substrates() -> None:
    reference = config_reference()
    for field in TOP_LEVEL_FIELDS:
        assert f"`gpukit:{field.key}`" in reference
    assert "| `network.vpcId` | string |  | eks, k3s-aws |" in reference
    assert "| `nodeImage` | `al2023` \\| `bottlerocket` | `al2023` | eks |" in reference
    assert "- `aws:region` (required for eks, k3s-aws)" in reference

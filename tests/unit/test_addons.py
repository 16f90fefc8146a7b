"""The add-on registry: what every add-on must declare, and the order the installs depend on."""

import pytest

from gpukit.components.addons.base import Addon
from gpukit.components.addons.gpu_operator.addon import GPU_OPERATOR
from gpukit.components.addons.registry import ADDONS
from gpukit.components.addons.verification.addon import VERIFICATION
from gpukit.components.config.schema import TOP_LEVEL_FIELDS
from gpukit.components.resolve.config import resolve_config
from gpukit.components.substrate import registry
from harness import STACKS, example_config


def test_each_addon_has_its_own_name_and_builds() -> None:
    names = [addon.name for addon in ADDONS]
    assert len(set(names)) == len(names)
    for addon in ADDONS:
        # The protocol's bodiless hooks answer None: an add-on must say whether it is wanted and build.
        for hook in ("wanted", "build"):
            assert getattr(type(addon), hook) is not getattr(Addon, hook), f"{addon.name} has no {hook}"


def test_each_section_is_a_config_section_and_owned_once() -> None:
    sections = [addon.section for addon in ADDONS if addon.section is not None]
    assert len(set(sections)) == len(sections)
    keys = {f.key for f in TOP_LEVEL_FIELDS if f.fields}
    assert set(sections) <= keys


def test_substrates_declare_variants_only_for_addons_that_exist() -> None:
    names = {addon.name for addon in ADDONS}
    for substrate in registry():
        for cls in type(substrate).__mro__:
            assert set(vars(cls).get("addon_variants", {})) <= names, (substrate.name, cls.__name__)


def test_each_addon_waits_only_for_addons_installed_before_it() -> None:
    order = [addon.name for addon in ADDONS]
    for index, addon in enumerate(ADDONS):
        assert set(addon.after) <= set(order[:index]), addon.name


def test_verification_waits_for_the_gpu_stack_it_proves() -> None:
    (verification,) = [a for a in ADDONS if a.name == VERIFICATION]
    assert GPU_OPERATOR in verification.after


# Add-ons that lay BuildContext.asked over their release's values (GpuOperatorArgs.extra_values).
TAKES_ASKED_VALUES = {GPU_OPERATOR}


@pytest.mark.parametrize("stack", STACKS)
def test_what_an_addon_asks_goes_to_one_that_is_built_and_takes_it(stack: str) -> None:
    config = example_config(stack)
    if "gpukit:sshPrivateKey" in config:  # encrypted in the stack file: a stand-in, as a secret
        config["gpukit:sshPrivateKey"] = "stand-in key"
    cluster = resolve_config(config, {"gpukit:sshPrivateKey"})
    wanted = {addon.name for addon in ADDONS if addon.wanted(cluster)}
    for addon in ADDONS:
        if addon.name in wanted:
            assert set(addon.asks(cluster)) <= wanted & TAKES_ASKED_VALUES, (stack, addon.name)

"""Where ephemeral stacks live on this machine, and the Pulumi Automation API workspace over them.

`--state-dir` (default ~/.gpukit/ephemeral, or $GPUKIT_EPHEMERAL_STATE_DIR) holds:

- `backend/`: the Pulumi state, as a local file backend (`file://<state-dir>/backend`), unless
  `--backend URL` names another (s3://, gs://, azblob://, https://api.pulumi.com, ...);
- `passphrase`: a generated passphrase (mode 0600) that encrypts the stacks' secrets (the kubeconfig
  output), handed to the CLI as PULUMI_CONFIG_PASSPHRASE_FILE so it is never in an argument or printed;
  a PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE already in the environment wins;
- `project/`: the Pulumi project every ephemeral stack runs (`gpukit-ephemeral`: Pulumi.yaml naming
  gpukit's program and this Python environment, and one `Pulumi.<stack>.yaml` per stack), so that
  nothing is written into the user's own project folder;
- `kubeconfigs/<stack>.yaml`: each stack's kubeconfig (mode 0600).

With `--program DIR` the stacks run the user's own program instead: DIR is the work dir (what Pulumi
deploys, with its own Pulumi.yaml, project name and Python environment), each stack's
`Pulumi.<stack>.yaml` is in its stack config folder while the stack exists (Pulumi reads it from
there; `down` removes it), and `project/` is not written.
"""

import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpukit.plan.stack_file import Project

STATE_DIR_ENV = "GPUKIT_EPHEMERAL_STATE_DIR"
DEFAULT_STATE_DIR = Path("~/.gpukit/ephemeral")
PASSPHRASE_ENVS = ("PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE")
CANCEL_GRACE_ENV = "GPUKIT_EPHEMERAL_CANCEL_GRACE_SECONDS"
DEFAULT_CANCEL_GRACE_SECONDS = 20 * 60.0
"""How long a cancelled `pulumi up` gets to stop cleanly after SIGINT before it is killed. On SIGINT the
CLI finishes the operations in flight and saves the state; the longest of those is an EKS control plane
or GKE cluster create, which on EKS averages 15 minutes (aws/containers-roadmap#1227). Killing the CLI
earlier leaves the stack locked and the half-made cluster out of the state (a pending create), so the
destroy that follows can neither run nor see it. 20 minutes is an engineering choice above that
average; ${CANCEL_GRACE_ENV} overrides it (tests use seconds)."""


def cancel_grace_seconds() -> float:
    """The grace before SIGKILL: ${CANCEL_GRACE_ENV} where it is a positive number, else the default."""
    try:
        value = float(os.environ.get(CANCEL_GRACE_ENV, ""))
    except ValueError:
        return DEFAULT_CANCEL_GRACE_SECONDS
    return value if value > 0 else DEFAULT_CANCEL_GRACE_SECONDS


MIN_PULUMI_VERSION = (3, 211, 0)
"""The oldest Pulumi CLI that keeps stack tags on a DIY backend (file://, s3://, gs://, azblob://):
pulumi/pulumi#19882, released in v3.211.0. gpukit reads an ephemeral stack's expiry and its proof of
origin from those tags (`list`, `reap`, `down`); an older CLI drops them silently."""

PROJECT_NAME = "gpukit-ephemeral"
MAIN_PY = (
    '"""gpukit ephemeral stacks run gpukit\'s own program."""\n\nfrom gpukit.program import main\n\nmain()\n'
)


PULUMI_INSTALL_URL = "https://www.pulumi.com/docs/install/"


def pulumi_cli_problem() -> str | None:
    """Why the Pulumi CLI cannot be run (it is not on PATH), or None. Asked before anything is written:
    the Automation API finds it only when it first runs `pulumi version`, by which time the state dir
    and its passphrase would exist, and says so with a FileNotFoundError."""
    if shutil.which("pulumi") is not None:
        return None
    minimum = ".".join(map(str, MIN_PULUMI_VERSION))
    return (
        "the Pulumi CLI (`pulumi`) is not on PATH, and gpukit ephemeral deploys through it: install "
        f"v{minimum} or later ({PULUMI_INSTALL_URL}) and check it with `pulumi version`"
    )


def default_state_dir() -> Path:
    return Path(os.environ.get(STATE_DIR_ENV) or DEFAULT_STATE_DIR).expanduser()


def write_private(path: Path, text: str) -> None:
    """Write `text` to a file only its owner can read (0600 from the moment it exists)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


HIDDEN = "***"


def shown_url(url: str) -> str:
    """A backend URL as messages show it: its user-info (`user:password@`) and its query (`?...`, where
    a blob store's parameters may carry an access key or a SAS token) written as HIDDEN, any fragment
    dropped; scheme, host and path stay, so the user can tell which backend is meant.

    Everything up to the last `@` counts as user-info, wherever it is: a password with an unencoded
    `/`, `?` or `#` (`https://ci:pa/ss@host`) then stays hidden too, at the cost of hiding a little
    more of a URL whose path or query holds an `@`. By hand, not urllib.parse: urlsplit raises on
    some malformed hosts (`[::1`), and this is whatever --backend said."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    _userinfo, at, rest = rest.rpartition("@")
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    query = f"?{HIDDEN}" if rest[cut:].startswith("?") else ""
    return f"{scheme}{sep}{HIDDEN if at else ''}{at}{rest[:cut]}{query}"


@dataclass(frozen=True)
class EphemeralHome:
    root: Path
    backend_url: str | None = None
    """None: the local file backend under `root`."""
    program: Project | None = None
    """`--program DIR`: the user's own Pulumi program the stacks run; None: gpukit's own."""

    @property
    def project_dir(self) -> Path:
        """The work dir every Pulumi call runs in: the user's program, else gpukit's under `root`."""
        return self.program.root if self.program is not None else self.root / "project"

    @property
    def backend(self) -> str:
        """The backend the CLI is handed (PULUMI_BACKEND_URL): never put it in a message as it is."""
        return self.backend_url or f"file://{self.root / 'backend'}"

    @property
    def backend_shown(self) -> str:
        """The backend as messages name it: shown_url, no credentials."""
        return shown_url(self.backend)

    @property
    def passphrase_file(self) -> Path:
        return self.root / "passphrase"

    def kubeconfig(self, stack: str) -> Path:
        return self.root / "kubeconfigs" / f"{stack}.yaml"

    def stack_file(self, stack: str) -> Path:
        """Where Pulumi reads the stack's config: a program's Pulumi.yaml may move it (stackConfigDir)."""
        folder = self.program.stack_config_dir if self.program is not None else self.project_dir
        return folder / f"Pulumi.{stack}.yaml"

    def prepare(self) -> None:
        """The folders, gpukit's project (the user's program brings its own) and (unless the
        environment brings one) the passphrase."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self.backend_url is None:
            (self.root / "backend").mkdir(exist_ok=True, mode=0o700)
        if self.program is None:
            self.project_dir.mkdir(exist_ok=True)
            (self.project_dir / "Pulumi.yaml").write_text(project_yaml())
            (self.project_dir / "__main__.py").write_text(MAIN_PY)
        if not _passphrase_in_env() and not self.passphrase_file.exists():
            write_private(self.passphrase_file, secrets.token_urlsafe(32))

    def env(self) -> dict[str, str]:
        """What the CLI runs with: the backend, and the passphrase file unless the environment has one."""
        env = {"PULUMI_BACKEND_URL": self.backend, "PULUMI_SKIP_UPDATE_CHECK": "true"}
        if not _passphrase_in_env():
            env["PULUMI_CONFIG_PASSPHRASE_FILE"] = str(self.passphrase_file)
        return env


def shared_backend_without_passphrase(home: EphemeralHome) -> bool:
    """A backend other machines also use (s3://, gs://, azblob://, ...) while no passphrase comes from
    the environment: each machine would generate its own passphrase file, and a `reap` elsewhere could
    not decrypt the stacks' secrets. file:// is this machine's own; https:// is a Pulumi Cloud (managed
    or self-hosted: "for https:// URLs, the CLI will speak REST to a Pulumi Cloud", `pulumi login`
    docs), whose stacks default to its own secrets provider rather than a passphrase."""
    if home.backend_url is None or _passphrase_in_env():
        return False
    scheme = home.backend_url.split("://", 1)[0].lower() if "://" in home.backend_url else ""
    return scheme not in ("file", "https", "http")


def pulumi_version_problem(version: str, home: "EphemeralHome") -> str | None:
    """Why the Pulumi CLI `version` (`3.210.1`, `v3.211.0`) cannot run ephemeral stacks in `home`'s
    backend, or None. Pulumi Cloud (https://) keeps stack tags with any CLI."""
    if _is_pulumi_cloud(home):
        return None
    numbers = version.strip().removeprefix("v").split("-", 1)[0].split("+", 1)[0].split(".")
    try:
        found = tuple(int(n) for n in numbers[:3])
    except ValueError:
        return f"cannot read the Pulumi CLI's version {version!r}"
    if found >= MIN_PULUMI_VERSION:
        return None
    minimum = ".".join(map(str, MIN_PULUMI_VERSION))
    return (
        f"the Pulumi CLI is {version}: gpukit ephemeral needs {minimum} or later with a "
        f"{home.backend_shown.split('://', 1)[0]}:// backend (older CLIs drop stack tags there, "
        "pulumi/pulumi#19882, and gpukit finds each stack's expiry by them); upgrade it "
        "(https://www.pulumi.com/docs/install/)"
    )


def _is_pulumi_cloud(home: "EphemeralHome") -> bool:
    scheme = home.backend.split("://", 1)[0].lower() if "://" in home.backend else ""
    return scheme in ("https", "http")


def _passphrase_in_env() -> bool:
    return any(os.environ.get(name) for name in PASSPHRASE_ENVS)


def project_yaml() -> str:
    """gpukit's program in this Python environment: the virtualenv running gpukit (an absolute
    `virtualenv` is used as it is: pulumi-language-python resolveVirtualEnvironmentPath), or the
    `python3` on PATH where gpukit is not in a virtualenv."""
    options: dict[str, Any] = {"toolchain": "pip"}
    if sys.prefix != sys.base_prefix:
        options["virtualenv"] = sys.prefix
    project = {
        # Not `gpukit`, the name of the user's own gpukit project: in a shared backend, stacks are
        # kept per project, and the throwaway ones must not sit beside (or be taken for) real ones.
        "name": PROJECT_NAME,
        "description": "gpukit ephemeral stacks (made by `gpukit ephemeral up`)",
        "runtime": {"name": "python", "options": options},
    }
    return "# Written by gpukit ephemeral (gpukit/ephemeral/workspace.py).\n" + yaml.safe_dump(project)


def write_stack_config(path: Path, config: Mapping[str, Any]) -> None:
    """The stack's config into its Pulumi.<stack>.yaml, keeping what `stack init` wrote there (the
    passphrase provider's `encryptionsalt`)."""
    existing = yaml.safe_load(path.read_text()) if path.is_file() else None
    doc = existing if isinstance(existing, dict) else {}
    doc["config"] = dict(config)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def _pulumi_command() -> Any:
    from pulumi.automation import CommandResult, PulumiCommand
    from pulumi.automation.errors import create_command_error

    class CancellablePulumiCommand(PulumiCommand):
        """The Automation API's command runner, except that an interrupted gpukit (Ctrl-C, or SIGTERM
        turned into KeyboardInterrupt) stops the CLI it runs: SIGINT first, which the CLI takes as
        "cancel gracefully", then SIGKILL after cancel_grace_seconds(). The SDK's own runner leaves
        the CLI running when only gpukit got the signal (subprocess.Popen.__exit__ does not stop its
        child on KeyboardInterrupt), and a `destroy` run next would find the stack locked."""

        def run(
            self,
            args: list[str],
            cwd: str,
            additional_env: Mapping[str, str],
            on_output: Any = None,
            on_error: Any = None,
        ) -> Any:
            if "--non-interactive" not in args:
                args.insert(0, "--non-interactive")
            env = {**os.environ, **additional_env, "PULUMI_AUTOMATION_API": "true"}
            process = subprocess.Popen(
                [self.command, *args],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                encoding="utf-8",
                # Its own process group: a Ctrl-C at the terminal reaches gpukit only, and gpukit
                # decides how the CLI stops (it cancels it, then destroys).
                start_new_session=True,
            )
            out: list[str] = []
            err: list[str] = []
            readers = [
                threading.Thread(target=_drain, args=(process.stdout, on_output, out), daemon=True),
                threading.Thread(target=_drain, args=(process.stderr, on_error, err), daemon=True),
            ]
            for reader in readers:
                reader.start()
            try:
                code = process.wait()
            except BaseException:
                _stop(process)
                raise
            for reader in readers:
                reader.join()
            result = CommandResult(stdout="\n".join(out), stderr="\n".join(err), code=code)
            if code != 0:
                raise create_command_error(result)
            return result

    return CancellablePulumiCommand()


def _drain(stream: Any, callback: Any, chunks: list[str]) -> None:
    for line in iter(stream.readline, ""):
        stripped = line.rstrip()
        if callback:
            callback(stripped)
        chunks.append(stripped)
    stream.close()


def _stop(process: "subprocess.Popen[str]") -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    grace = cancel_grace_seconds()
    print(
        f"gpukit: cancelling pulumi; it finishes the operations in flight and saves its state (up to "
        f"{grace / 60:g} min, then it is killed and the stack stays locked)",
        file=sys.stderr,
        flush=True,
    )
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def open_workspace(home: EphemeralHome) -> Any:
    """A LocalWorkspace over the ephemeral project, talking to the home's backend."""
    from pulumi.automation import LocalWorkspace

    home.prepare()
    return LocalWorkspace(
        work_dir=str(home.project_dir), env_vars=home.env(), pulumi_command=_pulumi_command()
    )

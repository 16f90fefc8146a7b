"""A fake host for running gpukit's rendered scripts: a temporary root plus stub commands on PATH.

Each stub appends its command line to calls.log; state (is k3s installed, is its service active)
lives in files under the state folder, so a second run of a script sees what the first one did.
"""

import subprocess
from dataclasses import dataclass
from pathlib import Path

STUBS: dict[str, str] = {
    # The k3s installer: record how it was called, then "install" k3s and start its service.
    "sh": """
echo "sh $* VERSION=${INSTALL_K3S_VERSION:-} EXEC=${INSTALL_K3S_EXEC:-} \
FORCE=${INSTALL_K3S_FORCE_RESTART:-} SKIP_DOWNLOAD=${INSTALL_K3S_SKIP_DOWNLOAD:-}" >> "$STATE/calls.log"
cat > "$STUBBIN/k3s" <<K3S
#!/usr/bin/env bash
echo "k3s \\$*" >> "$STATE/calls.log"
if [ "\\$1" = --version ]; then echo "k3s version $INSTALL_K3S_VERSION (fake)"; fi
case "\\$*" in
  "kubectl get node "*) [ -e "$STATE/node-present" ] || exit 1 ;;
  "kubectl get --raw=/readyz") [ ! -e "$STATE/api-down" ] || exit 1 ;;
esac
exit 0
K3S
chmod +x "$STUBBIN/k3s"
touch "$STATE/active-k3s" "$STATE/active-k3s-agent"
""",
    # Servers answer /ping when listed in $STATE/answering; downloads write a fake installer or binary
    # (the bytes FAKE_INSTALLER and FAKE_BINARY below) and fail $STATE/curl-failures times first.
    "curl": """
echo "curl $*" >> "$STATE/calls.log"
case "$*" in
  */ping*)
    for arg in "$@"; do
      case "$arg" in
        */ping) grep -qxF "${arg%/ping}" "$STATE/answering" 2>/dev/null && echo pong && exit 0 ;;
      esac
    done
    exit 7 ;;
esac
count=$(cat "$STATE/curl-failures" 2>/dev/null || echo 0)
if [ "$count" -gt 0 ]; then echo $((count - 1)) > "$STATE/curl-failures"; exit 7; fi
url=""
for arg in "$@"; do case "$arg" in https://*) url=$arg ;; esac; done
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then
    case "$url" in
      */install.sh) echo 'echo fake installer' > "$2" ;;
      *) echo 'fake k3s binary' > "$2" ;;
    esac
  fi
  shift
done
""",
    # The metadata guard: `-C` finds a rule once `-I` added it.
    "iptables": """
echo "iptables $*" >> "$STATE/calls.log"
all="$*"
rule="${all/-C /}"
rule="${rule/-I /}"
case "$*" in
  *" -C "*) grep -qxF -e "$rule" "$STATE/iptables-rules" 2>/dev/null ;;
  *" -I "*) echo "$rule" >> "$STATE/iptables-rules" ;;
esac
""",
    "systemctl": """
echo "systemctl $*" >> "$STATE/calls.log"
if [ "$1" = is-active ]; then service="${*: -1}"; [ -e "$STATE/active-$service" ]; fi
""",
    "sleep": 'echo "sleep $*" >> "$STATE/calls.log"',
    "lspci": 'cat "$STATE/lspci" 2>/dev/null || true',
}


FAKE_INSTALLER = b"echo fake installer\n"
FAKE_BINARY = b"fake k3s binary\n"


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    calls: list[str]


class FakeHost:
    def __init__(self, base: Path) -> None:
        self.root = base / "root"
        self.state = base / "state"
        self.bin = base / "stubbin"
        for folder in (self.root, self.state, self.bin):
            folder.mkdir(parents=True, exist_ok=True)
        for name, body in STUBS.items():
            self.stub(name, body)

    def stub(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text(f"#!/usr/bin/env bash\n{body}\n")
        path.chmod(0o755)

    def gpus(self, *rows: str, driver: str | None = None, toolkit: bool = True) -> None:
        """nvidia-smi rows ("NVIDIA L40S, 46068, 580.95.05, [N/A]"), a loaded driver, the toolkit."""
        lines = "\\n".join(rows)
        self.stub("nvidia-smi", f'printf "{lines}\\n"')
        (self.state / "lspci").write_text(
            "".join(f"0{i}:00.0 0302: 10de:26b9 (rev a1)\n" for i in range(len(rows)))
        )
        if driver is not None:
            (self.root / "proc/driver/nvidia").mkdir(parents=True, exist_ok=True)
            (self.root / "proc/driver/nvidia/version").write_text(f"NVRM version: {driver}\n")
        if toolkit:
            self.stub("nvidia-ctk", "true")

    def run(self, script: str, stdin: str = "") -> Result:
        log = self.state / "calls.log"
        log.unlink(missing_ok=True)
        env = {
            "PATH": f"{self.bin}:/usr/bin:/bin",
            "GPUKIT_ROOT": str(self.root),
            "STATE": str(self.state),
            "STUBBIN": str(self.bin),
            "HOME": str(self.state),
        }
        proc = subprocess.run(
            ["bash", "-c", script],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=60,
        )
        calls = log.read_text().splitlines() if log.exists() else []
        return Result(proc.returncode, proc.stdout, proc.stderr, calls)

    def mode(self, path: str) -> int:
        return (self.root / path.lstrip("/")).stat().st_mode & 0o777


# systemctl on an NFS server: nfsd reads /etc/nfs.conf when it (re)starts, not while it runs, and, like
# nfs-utils, takes the first vers3 line it finds; what it then offers is /proc/fs/nfsd/versions.
NFSD_SYSTEMCTL = """
echo "systemctl $*" >> "$STATE/calls.log"
case "$*" in
  "start nfs-server" | "restart nfs-server")
    if [ "$1" = restart ] || [ ! -e "$STATE/nfsd-running" ]; then
      touch "$STATE/nfsd-running"
      mkdir -p "$GPUKIT_ROOT/proc/fs/nfsd"
      first="$(grep -m1 -E '^vers3 *=' "$GPUKIT_ROOT/etc/nfs.conf" 2>/dev/null || true)"
      case "$first" in
        *=*n*) echo "-2 -3 +4 +4.1 +4.2" > "$GPUKIT_ROOT/proc/fs/nfsd/versions" ;;
        *) echo "+3 +4 +4.1 +4.2" > "$GPUKIT_ROOT/proc/fs/nfsd/versions" ;;
      esac
    fi ;;
esac
"""


NFS_SERVER_STUBS = {
    # Installed once apt-get ran: exportfs records its calls and lists nothing.
    "apt-get": """
echo "apt-get $*" >> "$STATE/calls.log"
if [ "$1" = install ]; then
  printf '#!/usr/bin/env bash\\necho "exportfs $*" >> "$STATE/calls.log"\\n' > "$STUBBIN/exportfs"
  chmod +x "$STUBBIN/exportfs"
fi
""",
    "chown": 'echo "chown $*" >> "$STATE/calls.log"',
    "systemctl": NFSD_SYSTEMCTL,
}
"""What nfs-server.sh calls on a Debian-family host, stubbed (the NFS VM's boot script runs it too)."""

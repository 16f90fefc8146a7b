"""The node-local backstop of spot that drains on EC2: gpukit-spot-notice.service on spot pools' agents.

aws-node-termination-handler (spot_drain_values.py) drains a spot node through the Kubernetes API at
the interruption notice, two minutes before EC2 takes the machine. It is a pod: on a fresh node it
may not run yet (image pull, crash loop), and its eviction respects PodDisruptionBudgets, so it can
still be waiting when the two minutes are over. Nothing then makes sure the kubelet's graceful node
shutdown (components/k3s/shutdown.py) has its whole window before EC2 stops the machine.

This service closes that gap on the machine itself: scripts/spot-notice-aws.sh polls the instance
metadata for the notice every 5 s and, on one, powers the machine off SHUTDOWN + MARGIN before the
time the notice gives (at once when that moment has passed or the time cannot be read). The power-off
goes through systemd-logind, where the kubelet's delay inhibitor lock holds it back while the kubelet
stops the node's pods; NTH keeps its head start (it acts at the notice, this some 50 s later).
Needs no credentials and no AWS resources: only the machine's own metadata, over IMDSv2.

Spot pools' agents only: on-demand machines get no notice, servers are never spot here, and Compute
Engine's preemption is already a soft off the kubelet sees (providers/gcp/k3s/preemption.py).
Pure: golden-tested and executed under stubs (tests/scripts/test_spot_notice.py).
"""

from pathlib import Path

from gpukit.components.k3s.host_scripts import render_script
from gpukit.components.k3s.shutdown import DEFAULT_SHUTDOWN, ShutdownWindow
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity
from gpukit.providers.aws.k3s.user_data import BootService

SPOT_NOTICE = Path(__file__).parent / "scripts" / "spot-notice-aws.sh"
# "We recommend that you check for these interruption notices every 5 seconds"; the notice is "a
# warning that is issued two minutes before Amazon EC2 stops or terminates your Spot Instance" (EC2
# user guide, "Spot Instance interruption notices").
POLL_SECONDS = 5
NOTICE_SECONDS = 120
MARGIN_SECONDS = 10
"""Kept free before EC2's deadline: the notice time is approximate, and logind and the kubelet need a
moment to start the shutdown."""
SCRIPT_PATH = "/usr/local/lib/gpukit/spot-notice.sh"
UNIT_NAME = "gpukit-spot-notice.service"
UNIT = f"""[Unit]
Description=gpukit: power off ahead of an EC2 spot interruption, in time for the kubelet's graceful shutdown
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
ExecStart={SCRIPT_PATH}
Restart=on-failure
RestartSec=5

[Install]
WantedBy=multi-user.target"""
"""Restart=on-failure: a failed power-off request runs the script again, which finds the notice still
there and asks again at once; after a request it exits 0 and the shutdown stops it."""


def spot_notice_script(shutdown: ShutdownWindow = DEFAULT_SHUTDOWN) -> str:
    return render_script(
        SPOT_NOTICE,
        POLL_SECONDS=POLL_SECONDS,
        SHUTDOWN_GRACE_SECONDS=shutdown.grace_period_s,
        MARGIN_SECONDS=MARGIN_SECONDS,
        NOTICE_SECONDS=NOTICE_SECONDS,
    )


def spot_notice_services(pool: PoolFacts, shutdown: ShutdownWindow) -> tuple[BootService, ...]:
    """What an agent of `pool` runs besides k3s: the backstop on spot pools, nothing otherwise."""
    if pool.capacity != Capacity.SPOT:
        return ()
    return (BootService(UNIT_NAME, UNIT, SCRIPT_PATH, spot_notice_script(shutdown)),)

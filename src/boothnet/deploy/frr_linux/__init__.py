"""NAPALM driver for ``frr_linux``: Linux + FRR + nftables + strongSwan, over SSH.

Builds on napalm-linux's :class:`LinuxDriver` (its SSH connection, exec channels and
getters) and adds config management on a four-part candidate (see
:mod:`boothnet.deploy.parts`). Everything that must outlive the SSH session lives on the
device under ``state_dir``::

    bin/ifstate.py   interface state helper (this package's stdlib-only module)
    bin/apply.sh     applies a folder of parts: strict (commit) or best-effort (revert)
    bin/revert.sh    the commit-confirm timer
    candidate/       the parts being committed
    backup/          the running parts taken just before the last commit (+ ``scope``)
    pending          present while a commit awaits confirmation; the timer and
                     confirm_commit race for it with an atomic rename
    reverted         why and when the timer last restored the backup

optional_args (besides napalm-linux's and netmiko's, e.g. ``key_file``):
``pathspace`` (FRR ``-N``), ``state_dir``, ``frr_conf_path``, ``frr_reload``,
``swanctl_conf``, ``swanctl_uri``, ``strongswan_conf``, ``known_hosts`` (an OpenSSH
known_hosts file: the host's key is required, never trusted on first use), ``netns``
(informational), ``python`` (device interpreter for the helper), ``lldp_socket`` (lldpd's
control socket, for a device that runs more than one lldpd: each lab node has its own).
"""

from boothnet.deploy.frr_linux.driver import FrrLinuxDriver

__all__ = ["FrrLinuxDriver"]

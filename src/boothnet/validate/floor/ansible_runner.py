"""A Runner that reaches a booth's hosts the way Ansible reaches them.

Each host's connection and privilege settings are its inventory variables (``ansible_host``,
``ansible_user``, ``ansible_ssh_common_args`` with a ProxyJump, a key or a vaulted password,
``ansible_become``...), as ansible-playbook resolved them, handed to Ansible's own connection
and become plugins: whatever ``ansible -i <inventory> endpoints -m ping`` reaches, this reaches.
The ssh plugin's ControlPersist keeps one master per host, so a probe costs one channel on it.
"""

from __future__ import annotations

import math
import shlex
import threading
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from boothnet.validate.perf.runner import CommandResult

UNREACHABLE_RC = 255  # what ssh itself exits with when it cannot reach or log in


def connection_vars(host_vars: Mapping[str, Any]) -> dict[str, Any]:
    """The variables of one host that can say how to reach it: every ``ansible_*`` one (each
    connection and become plugin reads the ones it declares), and its inventory name."""
    return {k: v for k, v in host_vars.items() if str(k).startswith("ansible_") or k == "inventory_hostname"}


class AnsibleRunner:
    """``runner(host, argv, timeout)`` over Ansible's connection plugin for ``host``; a host it
    cannot reach answers rc 255 with Ansible's reason, naming the host."""

    def __init__(self, hosts: Mapping[str, Mapping[str, Any]], network: str = "") -> None:
        from ansible.plugins.loader import init_plugin_loader

        with warnings.catch_warnings():  # loaded already when ansible-playbook runs us: it says so, harmlessly
            warnings.simplefilter("ignore")
            init_plugin_loader()
        self.hosts = {name: dict(found) for name, found in hosts.items()}
        self.network = network  # names this run's pid and log files on the hosts (runner.scratch_name)
        self.unreachable: dict[str, str] = {}  # host -> why: asked once (validate's reach stage), not at every probe
        self._load = threading.Lock()  # the plugin loader caches on first use: once, not in racing threads

    def _options(self, host: str) -> dict[str, Any]:
        found = dict(self.hosts[host])
        found.setdefault("ansible_host", found.get("inventory_hostname", host))
        return found

    def _connect(self, host: str) -> tuple[Any, Any]:
        from ansible.playbook.play_context import PlayContext
        from ansible.plugins.loader import become_loader, connection_loader, shell_loader

        options = self._options(host)
        with self._load:
            conn = connection_loader.get(options.get("ansible_connection", "ssh"), PlayContext(), None)
            conn.set_options(var_options=options)
            become = None
            if str(options.get("ansible_become", "")).lower() in ("1", "true", "yes", "on"):
                become = become_loader.get(options.get("ansible_become_method", "sudo"))
                become.set_options(var_options=options)
                conn.set_become_plugin(become)
            shell = shell_loader.get(options.get("ansible_shell_type", "sh"))
        return conn, (become, shell)

    def __call__(self, node: str, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
        from ansible.errors import AnsibleError

        if node not in self.hosts:
            return CommandResult(node, tuple(argv), UNREACHABLE_RC, "",
                                 f"{node} is not in the inventory (no way to reach it)")
        if node in self.unreachable:
            return CommandResult(node, tuple(argv), UNREACHABLE_RC, "", self.unreachable[node])
        command = shlex.join(argv)
        if timeout is not None:  # bounded on the host, so that a hung probe cannot hold the channel
            command = f"timeout -k 2 {max(1, math.ceil(timeout))} {command}"
        try:
            conn, (become, shell) = self._connect(node)
            if become is not None:
                command = become.build_become_command(command, shell)
            rc, out, err = conn.exec_command(command, sudoable=become is not None)
        except AnsibleError as exc:
            return CommandResult(node, tuple(argv), UNREACHABLE_RC, "",
                                 f"unreachable over Ansible's connection: {exc.message}")
        stdout = out.decode(errors="replace") if isinstance(out, bytes) else str(out)
        stderr = err.decode(errors="replace") if isinstance(err, bytes) else str(err)
        if rc == UNREACHABLE_RC and not stdout:
            stderr = f"unreachable over SSH: {stderr.strip()}"
        return CommandResult(node, tuple(argv), rc, stdout, stderr, timed_out=timeout is not None and rc == 124)


def inventory_connections(sources: Sequence[str], pattern: str = "all") -> dict[str, dict[str, Any]]:
    """Each host of ``pattern`` in the inventory ``sources`` -> its connection variables, templated
    as ansible-playbook templates them (vaulted values decrypted with the vault password Ansible's
    configuration names, e.g. ANSIBLE_VAULT_PASSWORD_FILE)."""
    from ansible import constants
    from ansible.cli import CLI
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.parsing.vault import VaultSecretsContext
    from ansible.template import Templar
    from ansible.vars.manager import VariableManager

    loader = DataLoader()
    known = VaultSecretsContext.current(optional=True)  # set up once per process, by Ansible's rule
    if known is None:
        files = [constants.DEFAULT_VAULT_PASSWORD_FILE] if constants.DEFAULT_VAULT_PASSWORD_FILE else []
        secrets = CLI.setup_vault_secrets(loader, constants.DEFAULT_VAULT_IDENTITY_LIST, vault_password_files=files,
                                          auto_prompt=False)
    else:
        secrets = known.secrets
    loader.set_vault_secrets(secrets)
    inventory = InventoryManager(loader=loader, sources=list(sources))
    variables = VariableManager(loader=loader, inventory=inventory)
    out = {}
    for host in inventory.get_hosts(pattern):
        found = variables.get_vars(host=host)
        templar = Templar(loader=loader, variables=found)
        out[host.name] = {k: templar.template(v) for k, v in connection_vars(found).items()}
    return out

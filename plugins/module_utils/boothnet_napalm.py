"""Shared argument spec and connection for the boothnet_napalm_* modules.

The modules run on the controller (``connection: local``) with the playbook's Python,
which has napalm and boothnet installed; all logic is in ``boothnet.deploy.steps``.
"""

from __future__ import annotations

import re
import traceback

try:
    from boothnet.deploy import results, steps
    from boothnet.locks import Busy, hold

    IMPORT_ERROR = None
except ImportError:  # reported by fail_json in need_boothnet()
    results = steps = hold = None
    Busy = RuntimeError
    IMPORT_ERROR = traceback.format_exc()

CONNECTION_SPEC = dict(
    hostname=dict(type="str", required=True),
    username=dict(type="str", required=True),
    password=dict(type="str", no_log=True, default=""),
    platform=dict(type="str", default="frr_linux"),
    driver=dict(type="str", default=""),
    enable_secret=dict(type="str", no_log=True, default=""),
    key_file=dict(type="path"),
    known_hosts=dict(type="path"),
    ssh_common_args=dict(type="str", default=""),
    optional_args=dict(type="dict", default={}),
    timeout=dict(type="int", default=30),
)

# Values for ${NAME} placeholders in the candidate (boothnet.deploy.secrets).
SECRETS_SPEC = dict(
    secrets=dict(type="dict", no_log=True, default={}),
    secret_files=dict(type="dict", default={}),
)

_KNOWN_HOSTS_RE = re.compile(r"UserKnownHostsFile=(\S+)")


def need_boothnet(module):
    if IMPORT_ERROR:
        module.fail_json(
            msg="boothnet (and napalm) must be importable by the module's Python: run the "
            "playbook with ansible_python_interpreter={{ ansible_playbook_python }}",
            exception=IMPORT_ERROR,
        )


def target(module):
    """A steps.Target from the module's connection arguments."""
    need_boothnet(module)
    p = module.params
    optional = dict(p["optional_args"] or {})
    if p["key_file"]:
        optional.setdefault("key_file", p["key_file"])
    known = p["known_hosts"]
    if not known:
        # The lab inventory gives it the ssh way; hardware inventories may do the same.
        m = _KNOWN_HOSTS_RE.search(p["ssh_common_args"] or "")
        known = m.group(1) if m else None
    if known:
        optional.setdefault("known_hosts", known)
    if p["platform"] not in steps.platforms():
        module.fail_json(msg=f"unknown platform {p['platform']!r}: one of {', '.join(sorted(steps.platforms()))}")
    return steps.Target(
        hostname=p["hostname"],
        username=p["username"],
        driver=p["driver"] or "",
        password=p["password"] or "",
        optional_args=optional,
        timeout=p["timeout"],
        platform=p["platform"],
        enable_secret=p["enable_secret"] or "",
    )


def secrets(module):
    """A steps.Secrets from the module's secrets / secret_files arguments."""
    p = module.params
    return steps.Secrets(
        given={k: (v if v is None else str(v)) for k, v in (p["secrets"] or {}).items()},
        files={k: str(v) for k, v in (p["secret_files"] or {}).items() if v},
    )


def spec(**extra):
    out = dict(CONNECTION_SPEC)
    out.update(extra)
    return out

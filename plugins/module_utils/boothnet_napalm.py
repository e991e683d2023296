"""Shared argument spec and connection for the boothnet_napalm_* modules.

The modules run on the controller (``connection: local``) with the playbook's Python,
which has napalm and boothnet installed; all logic is in ``boothnet.deploy.steps``.
"""

from __future__ import annotations

import re
import traceback

try:
    from boothnet.deploy import batch, results, steps
    from boothnet.locks import Busy, hold

    IMPORT_ERROR = None
except ImportError:  # reported by fail_json in need_boothnet()
    batch = results = steps = hold = None
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
    secret_files=dict(type="dict", no_log=False, default={}),  # paths to the secrets, not the secrets
)

_KNOWN_HOSTS_RE = re.compile(r"UserKnownHostsFile=(\S+)")


def need_boothnet(module):
    if IMPORT_ERROR:
        module.fail_json(
            msg="boothnet (and napalm) must be importable by the module's Python: run the "
            "playbook with ansible_python_interpreter={{ ansible_playbook_python }}",
            exception=IMPORT_ERROR,
        )


def target(module, p=None):
    """A steps.Target from the module's connection arguments (or one device's, *p*, of a list)."""
    need_boothnet(module)
    p = module.params if p is None else p
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
        who = f"{p['device']}: " if p.get("device") else ""
        module.fail_json(msg=f"{who}unknown platform {p['platform']!r}: one of {', '.join(sorted(steps.platforms()))}")
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


def secrets(module, p=None):
    """A steps.Secrets from the module's secrets / secret_files arguments (or one device's, *p*)."""
    p = module.params if p is None else p
    return steps.Secrets(
        given={k: (v if v is None else str(v)) for k, v in (p["secrets"] or {}).items()},
        files={k: str(v) for k, v in (p["secret_files"] or {}).items() if v},
    )


def spec(**extra):
    out = dict(CONNECTION_SPEC)
    out.update(extra)
    return out


# A device's deploy besides its connection (boothnet.deploy.steps.Job).
JOB_SPEC = dict(
    config_dir=dict(type="path", required=True),
    backup_dir=dict(type="path"),
    revert_in=dict(type="int", default=120),
    health_timeout=dict(type="int", default=30),
    revert_margin=dict(type="int", default=30),
)


def job(module, p):
    """A steps.Job from one device's options (JOB_SPEC, SECRETS_SPEC and the connection)."""
    from pathlib import Path

    return steps.Job(device=p["device"], target=target(module, p), config_dir=Path(p["config_dir"]),
                     backup_root=Path(p["backup_dir"]) if p["backup_dir"] else None, secrets=secrets(module, p),
                     revert_in=p["revert_in"], health_timeout=p["health_timeout"], revert_margin=p["revert_margin"])


# Where a device's cables are judged from: the intent, and how the lab names its ports.
CABLING_SPEC = dict(
    lab_vlan_mode=dict(type="str", default=""),
    report_dir=dict(type="path"),
)


def devices_spec(**extra):
    """A ``devices`` option: one dict of connection options (and *extra*) per device."""
    return dict(type="list", elements="dict", required=True,
                options=spec(device=dict(type="str", required=True), **extra))


def cabling(module, opened, inventory, lab_vlan_mode="", report_dir=None):
    """Every device's cables read over its open session (*opened*: device -> Session, of the
    devices with an LLDP reader), the rows written to *report_dir*/cabling.json; returns them
    and what is wrong ("" when nothing is; a device that cannot be read is named there too).
    Fails the module for an invalid intent."""
    import json
    from pathlib import Path

    from boothnet.deploy.lldp import check_sessions, intent_ports, misplaced
    from boothnet.errors import IntentInvalid
    from boothnet.intent import load_network
    from boothnet.lab.lldp import lab_ifnames

    try:
        net = load_network(Path(inventory))
    except IntentInvalid as exc:
        module.fail_json(msg=exc.summary())
    ifnames = lab_ifnames(net, lab_vlan_mode) if lab_vlan_mode else intent_ports
    rows = check_sessions(net, {d: s.driver for d, s in opened.items() if s.driver is not None}, ifnames,
                          unreachable={d: s.error for d, s in opened.items() if s.driver is None})
    dumped = [r.model_dump(mode="json") for r in rows]
    if report_dir:
        Path(report_dir).mkdir(parents=True, exist_ok=True)
        (Path(report_dir) / "cabling.json").write_text(json.dumps(dumped, indent=1) + "\n")
    return dumped, misplaced(rows)


def lldp_readers(module, devices, lab):
    """The devices whose cables can be read: in the lab every one; on hardware those whose
    platform has an LLDP reader (capabilities.yml). Returns ({device: steps.Target}, skipped
    messages); an unknown platform fails the module, named."""
    readers, skipped = {}, []
    for d in devices:
        t = target(module, d)
        if lab or t.capabilities.lldp_reader:
            readers[d["device"]] = t
        else:
            skipped.append(f"{d['device']}: not checked: no LLDP reader for platform {d['platform']}")
    return readers, skipped


DEPLOY_SPEC = dict(
    CABLING_SPEC, inventory=dict(type="path"), deploy_dir=dict(type="path", required=True),
    sessions=dict(type="str", choices=["cut", "list"], default="cut"),
    devices=devices_spec(**SECRETS_SPEC, **JOB_SPEC),
    cabling_devices=dict(devices_spec(), required=False, default=[]))


def deploy_devices(module):
    """boothnet_napalm_deploy: one session per device, the cables of O(cabling_devices) read first
    (one out of place fails the task before any device is changed), then every device deployed;
    each device's record written. Returns per device its record, commit, health and revert."""
    from pathlib import Path

    p = module.params
    jobs = [job(module, d) for d in p["devices"]]
    readers, _ = lldp_readers(module, p["cabling_devices"], bool(p["lab_vlan_mode"]))
    targets = readers | {j.device: j.target for j in jobs}
    network_dir = Path(p["deploy_dir"]).parent  # build/<network>: shared with the other deploys of it
    try:
        with hold(network_dir / ".lock", str(network_dir), "ansible deploy", shared=True), \
                batch.sessions(targets) as opened:
            if readers:
                _, wrong = cabling(module, {device: opened[device] for device in readers},
                                   p["inventory"], p["lab_vlan_mode"], p["report_dir"])
                if wrong:
                    module.fail_json(msg=f"{wrong}. Deploy stopped before any device was changed: re-plug the cables "
                                         "named, or run with -e boothnet_cabling_check=false to deploy anyway.")
            done = batch.deploy_all(jobs, opened, check=module.check_mode)
            cutter, why_not = session_cutter(p, module.check_mode)
            batch.end_sessions(done, jobs, opened, cutter, why_not)
    except Busy as exc:
        module.fail_json(msg=f"not deployed: {exc}")
    for d in done.values():
        results.record(Path(p["deploy_dir"]), d.record)
    return {name: dict(result=d.record.as_dict(), commit=d.run.commit, health=d.run.health, revert=d.run.revert)
            for name, d in done.items()}


def session_cutter(p, check):
    """What judges and cuts the open sessions the new policy denies (boothnet.deploy.sessions): the
    offline evaluator over the models the deployed configs were rendered from (the lab's, in a lab
    inventory), in mode O(sessions) (C(check) in --check). Returns (Cutter, "") or (None, why not)."""
    from pathlib import Path

    from boothnet.deploy.sessions import Cutter, PolicyJudge
    from boothnet.errors import IntentInvalid, Refusal
    from boothnet.run import Run

    if not p["inventory"]:
        return None, "no intent inventory to judge them against (option inventory)"
    run = Run(Path(p["inventory"]), Path(p["deploy_dir"]).parent.parent)
    try:
        if p["lab_vlan_mode"]:
            from boothnet.lab.plan import lab_models
            from boothnet.lab.standin import StandInRefused

            try:
                models = lab_models(run, p["lab_vlan_mode"])
            except StandInRefused as exc:
                return None, f"the lab's models could not be derived: {exc}"
        else:
            models = run.models("hardware")
        judge = PolicyJudge(run.net, models)
    except (IntentInvalid, Refusal, OSError) as exc:
        return None, f"the new policy could not be evaluated offline: {exc}"
    return Cutter(judge, "check" if check else p["sessions"]), ""


def getters(module):
    """boothnet_napalm_facts: each of O(getters) (without its get_ prefix) -> its result."""
    t = target(module)
    try:
        dev = t.open()
    except Exception as exc:  # any driver's connect error, in one line
        module.fail_json(msg=f"cannot connect: {exc}")
    try:
        out = {}
        for name in module.params["getters"]:
            fn = getattr(dev, f"get_{name}", None)
            if fn is None:
                module.fail_json(msg=f"driver {t.driver} has no getter get_{name}")
            out[name] = fn()
        return out
    finally:
        dev.close()

"""Documentation of the connection options every boothnet NAPALM module shares (their argument
specs are ``CONNECTION_SPEC``, ``SECRETS_SPEC``, ``JOB_SPEC`` and ``devices_spec`` in module_utils).
A device of a ``devices`` list takes the same options as a module that reaches one device, so
each is written once here and placed at both levels."""

from __future__ import annotations

from textwrap import indent

_CONNECTION = r"""
hostname:
  description: Management address of the device.
  type: str
  required: true
username:
  description: SSH user.
  type: str
  required: true
password:
  description:
    - SSH password (hardware), from E(BOOTHNET_DEPLOY_PASSWORD) or ansible-vault.
    - Never a file in the repository.
  type: str
  default: ""
platform:
  description:
    - The intent's platform (C(cisco_ios), C(arista_eos), C(frr_linux)); its NAPALM driver,
      revert timer range and enable-secret argument come from capabilities.yml.
  type: str
  default: frr_linux
driver:
  description:
    - NAPALM driver; by default the platform's (C(ios), C(eos), C(frr_linux)).
    - Set only for a driver with another transport (the tests' recorded devices).
  type: str
  default: ""
enable_secret:
  description: IOS/EOS enable secret (C(ansible_become_password)), from ansible-vault or the environment.
  type: str
  default: ""
key_file:
  description: SSH private key file.
  type: path
known_hosts:
  description: OpenSSH known_hosts file; the device key must be in it (no trust on first use).
  type: path
ssh_common_args:
  description:
    - The inventory ssh arguments.
    - C(UserKnownHostsFile=) is taken from them when C(known_hosts) is not set.
  type: str
  default: ""
optional_args:
  description:
    - NAPALM optional_args.
    - For frr_linux C(pathspace), C(state_dir), C(netns), C(swanctl_uri), ...
  type: dict
  default: {}
timeout:
  description: Connection timeout in seconds.
  type: int
  default: 30
"""

_SECRETS = r"""
secrets:
  description:
    - Values for C(${NAME}) placeholders in the candidate, from the controller environment.
    - Never shown; diffs, errors and backups show C(<secret>) instead.
  type: dict
  default: {}
secret_files:
  description:
    - "C({NAME: path}) read when C(secrets) has no value for C(NAME) (a lab's generated PSK file)."
    - A placeholder found in neither fails the task before anything is deployed.
  type: dict
  default: {}
"""

_JOB = r"""
config_dir:
  description: Folder of the device's rendered candidate.
  type: path
  required: true
backup_dir:
  description: Folder the running config is backed up to before the commit; none when not set.
  type: path
revert_in:
  description: Seconds the device waits for the confirm before it reverts by itself.
  type: int
  default: 120
health_timeout:
  description: Seconds the health check waits for management, the intent's interfaces and OSPF Full.
  type: int
  default: 30
revert_margin:
  description: Seconds waited beyond C(revert_in) for a device's own revert to show.
  type: int
  default: 30
"""

_DEVICE = r"""
device:
  description: The intent's name of the device.
  type: str
  required: true
"""


def _devices(name: str, description: str, *suboptions: str, required: bool = True) -> str:
    head = f"""options:
  {name}:
    description:
      - {description}
    type: list
    elements: dict
"""
    head += "    required: true\n" if required else "    default: []\n"
    return head + "    suboptions:\n" + "".join(indent(s.lstrip("\n"), " " * 6) for s in suboptions)


class ModuleDocFragment:
    DOCUMENTATION = "options:\n" + indent(_CONNECTION.lstrip("\n"), "  ")

    DEVICES = _devices("devices", "One dict per device, all reached at once (threads) from this one process.",
                       _DEVICE, _CONNECTION)

    DEPLOY_DEVICES = (_devices("devices", "One dict per device to deploy, all at once (threads) from this one process.",
                               _DEVICE, _CONNECTION, _SECRETS, _JOB)
                      + _devices("cabling_devices", "Devices whose cables are checked by LLDP before any device is "
                                 "deployed.", _DEVICE, _CONNECTION, required=False).removeprefix("options:\n"))

    CABLING = r"""
options:
  lab_vlan_mode:
    description: The lab's VLAN mode when the devices are lab stand-ins (ports eth<N>); empty on hardware.
    type: str
    default: ""
  report_dir:
    description: Folder for C(cabling.json) with the rows; none when empty.
    type: path
"""

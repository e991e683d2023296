"""Documentation of the connection options every boothnet NAPALM module shares."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
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
      - C(UserKnownHostsFile=) is taken from them when O(known_hosts) is not set.
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

    SECRETS = r"""
options:
  secrets:
    description:
      - Values for C(${NAME}) placeholders in the candidate, from the controller environment.
      - Never shown; diffs, errors and backups show C(<secret>) instead.
    type: dict
    default: {}
  secret_files:
    description:
      - C({NAME: path}) read when O(secrets) has no value for C(NAME) (a lab's generated PSK file).
      - A placeholder found in neither fails the task before anything is deployed.
    type: dict
    default: {}
"""

    DEVICES = r"""
options:
  devices:
    description:
      - One dict per device, all reached at once (threads) from this one process.
      - Each takes C(device) (the intent's name) and the connection options of
        M(boothnet.boothnet.boothnet_napalm_facts) (C(hostname), C(username), C(password), C(platform),
        C(driver), C(enable_secret), C(key_file), C(known_hosts), C(ssh_common_args), C(optional_args),
        C(timeout)).
    type: list
    elements: dict
    required: true
"""

    CABLING = r"""
options:
  inventory:
    description: The intent's inventory folder (where the cables come from).
    type: path
  lab_vlan_mode:
    description: The lab's VLAN mode when the devices are lab stand-ins (ports eth<N>); empty on hardware.
    type: str
    default: ""
  report_dir:
    description: Folder for C(cabling.json) with the rows; none when empty.
    type: path
"""

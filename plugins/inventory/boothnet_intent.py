"""Ansible's YAML inventory, with boothnet's file checks in front of it."""

from __future__ import annotations

DOCUMENTATION = """
    name: boothnet_intent
    short_description: an intent's hosts.yml, checked as boothnet checks an intent
    description:
        - Parses YAML inventories exactly as ansible.builtin.yaml does.
        - Before parsing, the file is read with boothnet's intent loader, so a hosts.yml that is not
          UTF-8, not valid YAML or has a duplicate key stops with boothnet's own message (file, line,
          what is allowed) instead of a Python codec error.
    options:
      yaml_extensions:
        description: list of 'valid' extensions for files containing YAML
        type: list
        elements: string
        default: ['.yaml', '.yml', '.json']
        env:
          - name: ANSIBLE_YAML_FILENAME_EXT
          - name: ANSIBLE_INVENTORY_PLUGIN_EXTS
        ini:
          - key: yaml_valid_extensions
            section: defaults
          - section: inventory_plugin_yaml
            key: yaml_valid_extensions
"""

from pathlib import Path

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory.yaml import InventoryModule as YamlInventory

try:
    from boothnet.errors import IntentInvalid
    from boothnet.intent.loader import yaml_file_errors
except ImportError:  # boothnet not installed in this Python: Ansible's own parser only
    yaml_file_errors = None


class InventoryModule(YamlInventory):
    NAME = "boothnet_intent"

    def parse(self, inventory, loader, path, cache=True):
        if yaml_file_errors is not None and (errors := yaml_file_errors(Path(path))):
            raise AnsibleParserError(IntentInvalid(errors).summary())
        super().parse(inventory, _UncopiedLoader(loader), path, cache)


class _UncopiedLoader:
    """The loader, minus the deep copy of a file it parsed for this call alone (cache='none'):
    nothing else holds that data, and copying a 500-device hosts.yml took 0.6 s."""

    def __init__(self, loader):
        self._loader = loader

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def load_from_file(self, file_name, cache="all", unsafe=False, **kwargs):
        return self._loader.load_from_file(file_name, cache=cache, unsafe=unsafe or cache == "none", **kwargs)

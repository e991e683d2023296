"""Ansible's group_vars/host_vars loader, with boothnet's file checks in front of it."""

from __future__ import annotations

DOCUMENTATION = """
    name: boothnet_intent_vars
    short_description: group_vars and host_vars, checked as boothnet checks an intent
    requirements:
        - Enabled in configuration (ansible.cfg vars_plugins_enabled, in place of host_group_vars)
    description:
        - Loads group_vars/ and host_vars/ exactly as ansible.builtin.host_group_vars does.
        - Before loading, every file is read with boothnet's intent loader, so a file that is not
          UTF-8, not valid YAML or has a duplicate key stops the run with boothnet's own message
          (file, line, what is allowed), the same one `boothnet build` prints.
    options:
      stage:
        ini:
          - key: stage
            section: vars_host_group_vars
        env:
          - name: ANSIBLE_VARS_PLUGIN_STAGE
      _valid_extensions:
        default: [".yml", ".yaml", ".json"]
        description: File extensions of variable files.
        env:
          - name: ANSIBLE_YAML_FILENAME_EXT
        ini:
          - key: yaml_valid_extensions
            section: defaults
        type: list
        elements: string
    extends_documentation_fragment:
      - vars_plugin_staging
"""

from pathlib import Path

from ansible.errors import AnsibleParserError
from ansible.plugins.vars.host_group_vars import VarsModule as HostGroupVars

try:
    from boothnet.errors import IntentInvalid
    from boothnet.intent.loader import yaml_file_errors
except ImportError:  # boothnet not installed in this Python: Ansible's own loader only
    yaml_file_errors = None

CHECKED: set[str] = set()


class VarsModule(HostGroupVars):
    def load_found_files(self, loader, data, found_files):
        if yaml_file_errors is not None:
            errors = [e for found in found_files if found not in CHECKED for e in yaml_file_errors(Path(found))]
            if errors:
                raise AnsibleParserError(IntentInvalid(errors).summary())
            CHECKED.update(found_files)
        return super().load_found_files(loader, data, found_files)

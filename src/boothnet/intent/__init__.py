"""Stage 1, intent: an Ansible inventory in (hosts.yml, group_vars, host_vars), a validated
`Network` out, or `IntentInvalid` with every error at once (file, field path, value, what is
allowed). Next: derive."""

from boothnet.intent.loader import load_inventory
from boothnet.intent.model import Network
from boothnet.intent.validate import load_network

__all__ = ["Network", "load_inventory", "load_network"]

"""Stage 1 and 2: read the intent from an Ansible inventory and validate it."""

from boothnet.intent.loader import load_inventory
from boothnet.intent.model import Network
from boothnet.intent.validate import load_network

__all__ = ["Network", "load_inventory", "load_network"]

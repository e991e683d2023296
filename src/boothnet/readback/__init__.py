"""Read IOS and EOS configs back as their devices read them; compare with the model (render
fidelity); build the lab's stand-in for such a device from what it reads."""

from boothnet.readback.expect import Mismatch, expected_facts, mismatches
from boothnet.readback.facts import ConfigFacts
from boothnet.readback.reader import READ_PLATFORMS, read_config

__all__ = ["READ_PLATFORMS", "ConfigFacts", "Mismatch", "expected_facts", "fidelity", "mismatches", "read_config"]


def fidelity(models: dict, configs: dict[str, str]) -> list[Mismatch]:
    """Every IOS/EOS device's config (device -> text) read back against its model."""
    found: list[Mismatch] = []
    for name, model in sorted(models.items()):
        if model.platform in READ_PLATFORMS:
            found += mismatches(expected_facts(model), read_config(configs[name], model.platform, name))
    return found

"""``napalm.get_network_driver("eos_simulated")``: NAPALM's eos driver on a simulated switch
(with ``-e {"boothnet_napalm_drivers": {...: "eos_simulated"}}``; PYTHONPATH must hold
the folder above)."""

from simulated_devices import SimulatedEOSDriver

__all__ = ["SimulatedEOSDriver"]

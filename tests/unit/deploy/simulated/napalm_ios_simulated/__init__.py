"""``napalm.get_network_driver("ios_simulated")``: NAPALM's ios driver on a simulated switch
(with ``-e {"boothnet_napalm_drivers": {...: "ios_simulated"}}``; PYTHONPATH must hold
the folder above)."""

from simulated_devices import SimulatedIOSDriver

__all__ = ["SimulatedIOSDriver"]

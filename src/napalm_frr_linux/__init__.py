"""Shim so ``napalm.get_network_driver("frr_linux")`` finds boothnet's driver.

napalm 5.2 resolves a plain driver name by module (``custom_napalm.<name>``,
``napalm.<name>``, ``napalm_<name>``), not by the ``napalm.drivers`` entry point.
"""

from boothnet.deploy.frr_linux import FrrLinuxDriver

__all__ = ["FrrLinuxDriver"]

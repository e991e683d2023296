"""Stage 5, deploy: rendered configs in, devices running them out. NAPALM drivers (`frr_linux` is
boothnet's own): backup, diff, commit with a revert timer, health check, confirm or revert;
the record of which config is in force. Next: lab (or hardware), then validate."""

import importlib.util
import sys


def _napalm_without_every_driver() -> None:
    """Import NAPALM's package without its ``__init__``, which imports every driver it ships
    (junos, iosxr, nxos, ...: 0.3 s of a deploy process's start, for drivers it never uses).
    Anything that ``__init__`` defines (``napalm.get_network_driver``) runs it on first use,
    so other code sees the whole package. The deploy imports the driver in use before its
    threads start, which is what ``__init__``'s imports are for."""
    if "napalm" in sys.modules:
        return
    spec = importlib.util.find_spec("napalm")
    if spec is None or spec.loader is None:
        return
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def rest_of_init(name: str) -> object:
        del package.__dict__["__getattr__"]
        loader.exec_module(package)
        return getattr(package, name)

    package.__getattr__ = rest_of_init  # type: ignore[method-assign]  # PEP 562: the package's lazy names
    sys.modules["napalm"] = package


_napalm_without_every_driver()

"""Read an OpenSSH known_hosts file into napalm-linux's ``ssh_host_keys`` argument."""

from __future__ import annotations

import base64
import hashlib
import hmac
from pathlib import Path

# Strongest first: the key type paramiko is told to expect decides what it negotiates.
_PREFERRED = ("ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512", "ssh-rsa")


def _matches(pattern: str, name: str) -> bool:
    if pattern.startswith("|1|"):  # hashed entry: |1|salt|hmac-sha1(name)
        _, _, salt, digest = pattern.split("|", 3)
        mac = hmac.new(base64.b64decode(salt), name.encode(), hashlib.sha1).digest()
        return hmac.compare_digest(base64.b64encode(mac).decode(), digest)
    return pattern == name


def host_keys(path: str | Path, host: str, port: int = 22) -> dict[str, dict[str, str]]:
    """``{"<port>": {"key_type", "key"}}`` for *host*, as ``optional_args["ssh_host_keys"]``.

    Raises ``LookupError`` when the file has no key for the host: with a known_hosts file
    given, an unknown host is refused rather than trusted on first use.
    """
    name = host if port == 22 else f"[{host}]:{port}"
    found: dict[str, str] = {}
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        fields = raw.split()
        if len(fields) < 3 or raw.lstrip().startswith(("#", "@")):
            continue
        if any(_matches(p, name) for p in fields[0].split(",")):
            found.setdefault(fields[1], fields[2])
    if not found:
        raise LookupError(f"no host key for {name} in {path}")
    key_type = next((t for t in _PREFERRED if t in found), sorted(found)[0])
    return {str(port): {"key_type": key_type, "key": found[key_type]}}

"""Offline lint of rendered configs: what can be checked without devices or Batfish."""

from __future__ import annotations

import re

from boothnet.derive.model import DeviceModel
from boothnet.render.templates import RenderedFile

VENDOR_HEADERS = {"cisco_ios": "!RANCID-CONTENT-TYPE: cisco", "arista_eos": "! device: "}
_ACL_USE = re.compile(r"^\s*ip access-group (\S+) (in|out)$", re.M)
_ACL_DEF = re.compile(r"^ip access-list (?:extended )?(\S+)$", re.M)
_INTERFACE = re.compile(r"^interface (\S+)$", re.M)


def lint_rendered(files: list[RenderedFile], models: dict[str, DeviceModel]) -> list[str]:
    findings: list[str] = []
    for file in files:
        platform = models[file.device].platform
        if platform in VENDOR_HEADERS:
            if not file.text.startswith(VENDOR_HEADERS[platform]):
                findings.append(f"{file.path}: first line must be the {platform} header Batfish detects")
            defined = set(_ACL_DEF.findall(file.text))
            for name, direction in _ACL_USE.findall(file.text):
                if name not in defined:
                    findings.append(f"{file.path}: ACL {name} applied {direction} but never defined")
            seen: set[str] = set()
            for name in _INTERFACE.findall(file.text):
                if name in seen:
                    findings.append(f"{file.path}: interface {name} configured twice")
                seen.add(name)
        if "{{" in file.text or "{%" in file.text:
            findings.append(f"{file.path}: unrendered template syntax")
    return findings

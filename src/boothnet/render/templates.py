"""Stage 4: render each device's model with one Jinja2 template per feature per platform.

Templates are found by ordered fallback: `host/<device>/<feature>.j2`, then
`<platform>/<feature>.j2`; a missing one is an error naming every place searched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import jinja2

from boothnet.derive.model import DeviceModel
from boothnet.errors import RenderError
from boothnet.files import recover, staged_dir
from boothnet.layout import REPO
from boothnet.platforms import platforms


def default_templates_dir() -> Path:
    configured = os.environ.get("BOOTHNET_TEMPLATES")
    return Path(configured) if configured else REPO / "templates"


@dataclass(frozen=True)
class RenderedFile:
    device: str
    path: str  # relative to the configs folder
    text: str


class Renderer:
    def __init__(self, templates_dir: Path | None = None):
        self.templates_dir = templates_dir or default_templates_dir()
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(self.templates_dir)),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,  # one render pass: no stat of every template per device
            autoescape=False,  # device configs, not HTML
        )
        host_dir = self.templates_dir / "host"
        self._hosts_with_templates = {d.name for d in host_dir.iterdir()} if host_dir.is_dir() else set()

    def template(self, device: str, platform: str, feature: str) -> jinja2.Template:
        searched = [f"host/{device}/{feature}.j2", f"{platform}/{feature}.j2"]
        try:
            if device not in self._hosts_with_templates:  # a failed lookup is not cached by jinja
                return self.env.get_template(searched[1])
            return self.env.select_template(searched)
        except jinja2.TemplateNotFound as exc:  # or TemplatesNotFound, its subclass
            raise RenderError(
                f"{device}: no template for feature '{feature}' on platform '{platform}'; "
                f"searched {', '.join(str(self.templates_dir / s) for s in searched)}"
            ) from exc

    def device(self, model: DeviceModel, network: str) -> list[RenderedFile]:
        platform = platforms()[model.platform]
        files = []
        for pattern, features in platform.files.items():
            text = "".join(
                self.template(model.name, model.platform, feature).render(d=model, network=network)
                for feature in features
            )
            if text.strip():
                files.append(RenderedFile(model.name, pattern.format(device=model.name), text))
        return files


def write_configs(files: list[RenderedFile], out_dir: Path) -> tuple[list[Path], list[Path]]:
    """Write every file, byte for byte the same for the same intent, into a fresh folder that
    replaces ``out_dir`` whole (stale files go with the old one): a failure halfway (a full disk,
    a kill) leaves the previous configs as they were, never a mix.

    Returns (every config file, the files written or removed by this call).
    """
    recover(out_dir)
    wanted = {out_dir / f.path: f.text for f in files}
    old = {p: p.read_text() for p in out_dir.rglob("*") if p.is_file()} if out_dir.exists() else {}
    with staged_dir(out_dir) as staging:
        for file in files:
            target = staging / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(file.text)
    changed = sorted([p for p in old if p not in wanted] + [p for p, text in wanted.items() if old.get(p) != text])
    return list(wanted), changed

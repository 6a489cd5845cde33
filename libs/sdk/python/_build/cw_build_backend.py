"""A PEP 517 build backend of the standard library only, for this one pure-Python package.

Builds a py3-none-any wheel of ``cw_sdk`` (and an sdist, and an editable wheel) from the
``[project]`` table of pyproject.toml, so ``pip wheel --no-build-isolation .`` works on a machine
without setuptools, wheel or network access.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "cw_sdk"


def _project() -> Dict[str, object]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+

        return tomllib.loads(text)["project"]
    except ImportError:  # Python 3.9, 3.10: the few keys this backend reads
        section = text.split("[project]", 1)[1].split("\n[", 1)[0]
        found = dict(re.findall(r'^([a-z-]+)\s*=\s*"([^"]*)"', section, re.M))
        return {k: found[k] for k in ("name", "version", "description", "requires-python") if k in found}


def _dist_name(project: Dict[str, object]) -> str:
    return re.sub(r"[-_.]+", "_", str(project["name"])).lower()


def _metadata(project: Dict[str, object]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.9')}",
        "License: MIT",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Typing :: Typed",
    ]
    readme = ROOT / "README.md"
    if readme.exists():
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + readme.read_text(encoding="utf-8")
    return "\n".join(lines) + "\n"


WHEEL = "Wheel-Version: 1.0\nGenerator: cw_build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files() -> List[Tuple[str, bytes]]:
    files = []
    for path in sorted((ROOT / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed"):
            files.append((path.relative_to(ROOT).as_posix(), path.read_bytes()))
    return files


def _write_wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    project = _project()
    name, version = _dist_name(project), str(project["version"])
    dist_info = f"{name}-{version}.dist-info"
    entries = list(files) + [
        (f"{dist_info}/METADATA", _metadata(project).encode()),
        (f"{dist_info}/WHEEL", WHEEL.encode()),
        (f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode()),
    ]
    record = []
    for arcname, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arcname},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    filename = f"{name}-{version}-py3-none-any.whl"
    os.makedirs(directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, data in entries + [(f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode())]:
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return filename


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    project = _project()
    dist_info = f"{_dist_name(project)}-{project['version']}.dist-info"
    path = Path(metadata_directory) / dist_info
    path.mkdir(parents=True, exist_ok=True)
    (path / "METADATA").write_text(_metadata(project), encoding="utf-8")
    (path / "WHEEL").write_text(WHEEL, encoding="utf-8")
    return dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    # A .pth file that puts this folder on sys.path: edits take effect without reinstalling.
    return _write_wheel(wheel_directory, [(f"_{PACKAGE}_editable.pth", f"{ROOT}\n".encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    filename = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    members = [("pyproject.toml", (ROOT / "pyproject.toml").read_bytes()), ("README.md", (ROOT / "README.md").read_bytes())]
    members += [(f"_build/{p.name}", p.read_bytes()) for p in sorted((ROOT / "_build").glob("*.py"))]
    members += _package_files()
    members.append(("PKG-INFO", _metadata(project).encode()))
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tf:
        for arcname, data in members:
            info = tarfile.TarInfo(f"{base}/{arcname}")
            info.size = len(data)
            info.mode = 0o644
            tf.addfile(info, io.BytesIO(data))
    return filename

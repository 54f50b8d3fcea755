#!/usr/bin/env bash
# Sandboxes that contain solutions (scbench/sandbox/): bubblewrap, a Docker engine, and the docker
# sandbox's image built without a registry (debootstrap + docker import). Idempotent: installs only
# what is missing, starts dockerd only when no engine answers, builds the image only when absent.
# Cost on a fresh machine: about 1 minute of apt, 1 to 2 minutes of image build (debootstrap took 61 s here on a
# quiet machine; g++ and cargo are 700 MB of the image's 956 MB); nothing when done. The venv's install (about a minute) runs beside
# apt and dockerd's start; apt waits for the lock other scripts hold.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ ! -x .venv/bin/scbench ]; then
    { python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]'; } &
    venv=$!
fi

missing=()
command -v bwrap >/dev/null || missing+=(bubblewrap)
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v strace >/dev/null || missing+=(strace)  # tests delay a syscall with it
if [ ${#missing[@]} -gt 0 ]; then
    bash .ci/apt-install "${missing[@]}"
fi

if ! docker info >/dev/null 2>&1; then
    nohup dockerd >/var/log/scbench-dockerd.log 2>&1 &
    for _ in $(seq 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null
fi

[ -z "${venv:-}" ] || wait "$venv"
if ! docker image inspect "$(.venv/bin/python -c 'from scbench.sandbox.docker import IMAGE; print(IMAGE)')" \
        >/dev/null 2>&1; then
    .venv/bin/scbench sandbox build-image
fi

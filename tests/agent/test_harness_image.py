"""A pinned harness CLI installed into the docker sandbox's image from its registry, then run by ``scbench run``
inside the sandbox with no credential and no network: a classified failure, recorded, nothing crashes."""

import ipaddress
import os
import subprocess
import threading
import uuid
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import FIXTURES, scbench
from scbench.rundir import read_run
from scbench.sandbox.docker import IMAGE


@pytest.fixture
def image():
    """The environment of a copy of the sandbox image under a tag of its own (the shared one is left as it is;
    tests running at once each have theirs), removed after."""
    tag = f"scbench-sandbox:harness-test-{uuid.uuid4().hex[:12]}"
    subprocess.run(["docker", "tag", IMAGE, tag], check=True)
    yield {**os.environ, "SCBENCH_DOCKER_IMAGE": tag}
    subprocess.run(["docker", "rmi", "--force", tag], check=True, capture_output=True)


def test_the_pinned_claude_code_runs_in_the_docker_sandbox_and_fails_classified_without_credentials(tmp_path, image):
    built = scbench("sandbox", "build-image", "--agent", "claude-code", env=image)
    assert built.returncode == 0, built.stderr
    assert "@anthropic-ai/claude-code@2.0.51" in built.stderr
    bare = {key: value for key, value in image.items() if key not in ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN")}
    done = scbench("run", FIXTURES / "calc", "--agent-command", "claude --print --output-format stream-json "
                   "--verbose --max-turns 2 --model {model}", "--usage", "claude-code", "--stdin", "--model",
                   "claude-sonnet-4-5", "--sandbox", "docker", "--timeout", "600", "--out", tmp_path / "run",
                   env=bare)
    assert done.returncode == 1, done.stderr
    record = read_run(tmp_path / "run")
    assert (record.harness_version, record.checkpoint(1).status, record.checkpoint(1).failure) == \
        ("2.0.51", "failed", "authentication")
    assert record.checkpoint(1).stop_reason == \
        "the agent's stream reports a failure (authentication): Invalid API key · Please run /login"
    assert [cp.status for cp in record.checkpoints[1:]] == ["not_run", "not_run"]


@pytest.fixture
def empty_registry(tmp_path):
    """The URL of a real HTTP server that answers 404 to everything (a registry without the package), listening
    on the Docker bridge's gateway, where the installer's container reaches the host; stopped after. An engine
    that chose the gateway itself names only the subnet: the gateway is then its first address."""
    from scbench.sandbox.docker import client
    config = client().networks.get("bridge").attrs["IPAM"]["Config"][0]
    gateway = config.get("Gateway") or str(next(ipaddress.ip_network(config["Subnet"]).hosts()))
    server = ThreadingHTTPServer((gateway, 0), partial(SimpleHTTPRequestHandler, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://{gateway}:{server.server_port}/"
    server.shutdown()


def test_a_harness_that_cannot_be_installed_is_refused_and_the_image_left_as_it_was(image, empty_registry):
    # the installer sees the host's registry settings: here a registry without the package
    inspect = ["docker", "image", "inspect", "--format", "{{.Id}}", image["SCBENCH_DOCKER_IMAGE"]]
    before = subprocess.run(inspect, capture_output=True, text=True, check=True).stdout
    done = scbench("sandbox", "build-image", "--agent", "gemini-cli",
                   env={**image, "npm_config_registry": empty_registry})
    assert done.returncode == 1
    assert "error: the harness was not installed: `npm install --global --no-fund --no-audit " \
           "@google/gemini-cli@0.19.4` exited with code 1 in the image (its messages are above): " in done.stderr
    assert subprocess.run(inspect, capture_output=True, text=True, check=True).stdout == before


def test_an_agent_without_a_package_cannot_be_installed():
    done = scbench("sandbox", "build-image", "--agent", "replay")
    assert done.returncode == 2 and "no agent 'replay' with a package; known: claude-code, codex" in done.stderr

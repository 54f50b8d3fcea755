#!/usr/bin/env bash
# A real browser for the HTML report's test (tests/trajectory/test_html_browser.py): Debian's chromium and its
# matching chromedriver, driven from Python by selenium. Idempotent: installs only what is missing.
# Cost on a fresh machine: about a minute of apt (beside the sandbox's image build: .ci/run starts every script
# at once, and apt waits for the lock another holds); nothing when done.
set -euo pipefail

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
if [ ${#missing[@]} -gt 0 ]; then
    bash "$(dirname "$0")/../apt-install" "${missing[@]}"
fi

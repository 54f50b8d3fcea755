#!/usr/bin/env bash
# A real browser for the HTML report's test (tests/trajectory/test_html_browser.py): Debian's chromium and its
# matching chromedriver, driven from Python by selenium. Idempotent: installs only what is missing.
# Cost on a fresh machine: about a minute of apt; nothing when done.
set -euo pipefail

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

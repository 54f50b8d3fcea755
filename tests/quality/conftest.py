"""Shared paths for the quality tests."""

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"

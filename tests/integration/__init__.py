"""Integration tests in a real Home Assistant."""

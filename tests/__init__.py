"""Tests for Local Agent."""

"""Engine tests: no Home Assistant needed."""

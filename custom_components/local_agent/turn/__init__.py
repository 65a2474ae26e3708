"""One conversation turn: the agent loop, options and defaults, history, home context, phrases."""

"""The home as tools: service catalog, entity views and references, actions, the one runner."""

"""The home as tools: services, entities and references, calls and their texts, the one runner."""

"""The config flow's parts: adding a model (file or server), its options, subentry flows."""

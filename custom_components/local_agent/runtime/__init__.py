"""A model entry while set up: where its model runs, both backends' set-up, updates, issues."""

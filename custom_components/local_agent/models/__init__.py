"""Model files: catalog, Hub store, downloads, file checks, the runtime package, safe loading."""
